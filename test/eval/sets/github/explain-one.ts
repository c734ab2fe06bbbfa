// npx tsx test/eval/sets/github/explain-one.ts REGISTRY_DIR "request" [QPARAMS_JSON]: the top tools of one request with
// their scores, matched words and rules, and the verdict's reasons (a helper for reading one verdict).
import type { QueryParams } from "../../../../registry/contract/find-tuning.js";
import { evalFinder, loadRegistry } from "../../harness.js";

const [dir, query, qparams] = process.argv.slice(2);
if (!dir || !query) {
  console.error('usage: npx tsx test/eval/sets/github/explain-one.ts REGISTRY_DIR "request" [QPARAMS_JSON]');
  process.exit(2);
}
const loaded = await loadRegistry(dir);
const finder = evalFinder(loaded.artifact, qparams ? { finder: { query: JSON.parse(qparams) as Partial<QueryParams> } } : {});
const r = await finder.find({ query, limit: 5, min_score: 0, schemas: false, mode: "keyword", explain: true });
for (const t of r.tools) {
  console.log(`${t.score.toFixed(2)} ${loaded.keyOf.get(t.name)}`);
  console.log(`   words: ${(t.explain ?? []).map((m) => `${m.word}@${m.fields.join("+")}`).join(" ")}`);
  for (const rule of t.rules ?? []) console.log(`   rule ${rule.rule}: ${rule.detail}`);
}
for (const v of r.verdict_reasons ?? []) console.log(`verdict ${v.rule}: ${v.detail}`);
