// npx tsx test/eval/sets/github/verdicts.ts REGISTRY_DIR [QPARAMS_JSON] > out.tsv
// One line per request of the splits in view: queries.jsonl (dev, heldout) and heldout-2.jsonl (never the
// newest held-out file until its round is measured; SETS=a.jsonl,b.jsonl reads others): split, kind,
// difficulty, the verdict (none or tool), the best gold rank in the top 10 (99: absent; 0: no gold), the
// top tool and its score. Two runs, pasted side by side, show which requests a change moves.
import { join } from "node:path";
import type { QueryParams } from "../../../../registry/contract/find-tuning.js";
import { answerQuery, evalFinder, goldGroups, loadRegistry, readJsonl, type EvalQuery } from "../../harness.js";

const [dir, qparams] = process.argv.slice(2);
if (!dir) {
  console.error("usage: npx tsx test/eval/sets/github/verdicts.ts REGISTRY_DIR [QPARAMS_JSON]");
  process.exit(2);
}
const loaded = await loadRegistry(dir);
const finder = evalFinder(loaded.artifact, qparams ? { finder: { query: JSON.parse(qparams) as Partial<QueryParams> } } : {});
const queries = (process.env.SETS ?? "queries.jsonl,heldout-2.jsonl").split(",").flatMap((f) => readJsonl<EvalQuery>(join(import.meta.dirname, f)));
for (const q of queries) {
  const { ranked, none } = await answerQuery(finder, q.query, undefined);
  const keys = ranked.map((n) => loaded.keyOf.get(n)!);
  const ranks = goldGroups(q).map((g) => keys.findIndex((k) => g.includes(k)) + 1 || 99);
  const top = (await finder.find({ query: q.query, limit: 1, min_score: 0, schemas: false, mode: "keyword" })).tools[0];
  const cells = [
    q.split,
    q.kind,
    q.difficulty ?? "",
    none ? "none" : "tool",
    ranks.length ? Math.min(...ranks) : 0,
    keys[0] ?? "",
    top?.score.toFixed(2) ?? "",
    q.query,
  ];
  console.log(cells.join("\t"));
}
