// The GitHub set through both catalog paths in one process: the imported registry folder (what `--all` loads,
// tags indexed as in a user's build) and JSONL (the same tools without the tags JSONL loading reads).
// `npx tsx test/eval/sets/github/paths.ts`: per split, nDCG@10 of ours, BM25 and FTS5 on answerable requests,
// ours' false-none, and the share of near-miss and unrelated requests answered none.
import { GITHUB_QUERIES, githubRegistry, githubTools } from "../../generated.js";
import { evaluate, loadJsonlTools, loadRegistry, loadTools, readJsonl, type EvalQuery, type Loaded } from "../../harness.js";

const jsonl = await githubTools();
const paths: [string, Loaded][] = [
  ["JSONL", await loadTools(loadJsonlTools(jsonl), jsonl)],
  ["registry", await loadRegistry(await githubRegistry())],
];
const queries = readJsonl<EvalQuery>(GITHUB_QUERIES);
const f = (x: number | null | undefined) => (x == null ? "-" : x.toFixed(1));
console.log("| path | split | tools | ours nDCG@10 | BM25 | FTS5 | false-none | near-miss none | unrelated none |");
console.log("|---|---|---|---|---|---|---|---|---|");
for (const [path, loaded] of paths) {
  for (const split of ["dev", "heldout"]) {
    const of = (kind: EvalQuery["kind"]) => queries.filter((q) => q.split === split && q.kind === kind);
    const answerable = await evaluate(loaded, of("answerable"));
    const near = (await evaluate(loaded, of("near_miss"), { systems: ["ours"] })).ours;
    const unrelated = (await evaluate(loaded, of("unanswerable"), { systems: ["ours"] })).ours;
    const cells = [answerable.ours.ndcg10, answerable.bm25.ndcg10, answerable.fts5.ndcg10, answerable.ours.false_none, near.none_rate, unrelated.none_rate];
    console.log(`| ${path} | ${split} | ${loaded.artifact.tools.length} | ${cells.map(f).join(" | ")} |`);
  }
}
