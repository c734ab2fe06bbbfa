// npx tsx test/eval/failures.ts TOOLS QUERIES [SPLIT] [SAMPLE] [SEED] [MAX]
// Prints queries whose gold tools are not all in our top 5, with what came first: for reading
// where ranking fails on dev splits (not for tuning on test splits).
import { createFinder } from "../../lambdas/core/find/index.js";
import { goldGroups, loadJsonlTools, loadTools, readJsonl, sample, type EvalQuery } from "./harness.js";

const [tools, queries, split, n, seed, max] = process.argv.slice(2);
if (!tools || !queries) {
  console.error("usage: npx tsx test/eval/failures.ts TOOLS QUERIES [SPLIT] [SAMPLE] [SEED] [MAX]");
  process.exit(2);
}
const rows = loadJsonlTools(tools);
let qs = readJsonl<EvalQuery>(queries).filter((q) => !split || split.split(",").includes(q.split ?? ""));
qs = sample(qs, Number(n ?? 1e9), Number(seed ?? 1));
const loaded = await loadTools(rows, tools);
const finder = createFinder(loaded.artifact, { alwaysLoaded: [] });
let shown = 0;
for (const q of qs) {
  const groups = goldGroups(q);
  if (!groups.length) continue;
  const r = await finder.find({ query: q.query, limit: 10, min_score: 0, schemas: false });
  const keys = r.tools.map((t) => loaded.keyOf.get(t.name)!);
  const missing = groups.filter((g) => !keys.slice(0, 5).some((k) => g.includes(k)));
  if (!missing.length) continue;
  console.log(`Q: ${q.query.slice(0, 200)}`);
  console.log(
    `   missing: ${missing.map((m) => m[0]).join(", ")} | top: ${r.tools
      .slice(0, 5)
      .map((t) => `${loaded.keyOf.get(t.name)}(${t.score.toFixed(2)})`)
      .join(" ")}`,
  );
  if (++shown >= Number(max ?? 25)) break;
}
