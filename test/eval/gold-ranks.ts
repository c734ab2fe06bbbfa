// npx tsx test/eval/gold-ranks.ts TOOLS QUERIES [SPLIT] [QPARAMS_JSON]
// Where the gold tools rank, in counts only: by whether a gold tool is in the top tool's family
// and by rank band. Prints no query, so it may be run on a held-out set such as livemcpbench.
import { createFinder } from "../../lambdas/core/find/index.js";
import { goldGroups, loadJsonlTools, loadTools, readJsonl, type EvalQuery } from "./harness.js";

const [tools, queries, split, qparams] = process.argv.slice(2);
if (!tools || !queries) {
  console.error("usage: npx tsx test/eval/gold-ranks.ts TOOLS QUERIES [SPLIT] [QPARAMS_JSON]");
  process.exit(2);
}
const loaded = await loadTools(loadJsonlTools(tools), tools);
const finder = createFinder(loaded.artifact, { alwaysLoaded: [], ...(qparams ? { query: JSON.parse(qparams) } : {}) });
const familyOf = new Map(loaded.artifact.tools.map((t) => [loaded.keyOf.get(t.name)!, t.family]));
const band = (at: number) => (at < 0 ? "rank > 50" : at < 10 ? "top 10" : at < 20 ? "rank 11-20" : "rank 21-50");
const counts = new Map<string, number>();
const count = (key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);
for (const q of readJsonl<EvalQuery>(queries).filter((x) => !split || split.split(",").includes(x.split ?? ""))) {
  const groups = goldGroups(q);
  if (!groups.length) continue;
  count("queries");
  const keys = (await finder.find({ query: q.query, limit: 50, min_score: 0, schemas: false })).tools.map((t) => loaded.keyOf.get(t.name)!);
  const topFamily = keys[0] === undefined ? undefined : familyOf.get(keys[0]);
  const inTopFamily = (g: string[]) => g.some((k) => familyOf.get(k) === topFamily);
  if (groups.some(inTopFamily)) count("queries whose top tool's family is a gold family");
  for (const g of groups) {
    count("gold groups");
    count(`${inTopFamily(g) ? "top tool's family" : "another family"}, ${band(keys.findIndex((k) => g.includes(k)))}`);
  }
}
for (const [k, v] of [...counts].sort((a, b) => (a[0] < b[0] ? -1 : 1))) console.log(`${k}: ${v}`);
