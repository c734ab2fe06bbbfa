// The own small-catalog sets (test/eval/sets/suite.json): per set and split, the figures a user meets
// first: the right tool in the top 3, false-none, and how often requests no tool serves are answered none.
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { FinderOptions } from "../../lambdas/core/find/index.js";
import type { ScorerParams } from "../../registry/contract/search-options.js";
import {
  answerQuery,
  evalFinder,
  goldGroups,
  loadJsonlTools,
  type DecisionEval,
  loadRegistry,
  loadTools,
  Metrics,
  readJsonl,
  type EvalQuery,
  type Loaded,
} from "./harness.js";

/** `queries`: one file or several (a split written later, such as `fresh`, keeps its own file). */
export type SuiteSet = { name: string; registry?: string; tools?: string; queries: string | string[] };
export type SuiteRow = {
  set: string;
  split: string;
  tools: number;
  answerable: number;
  /** Right tool (any of a gold group) in the top 3, % of answerable. */
  top3: number;
  ndcg10: number;
  false_none: number | null;
  /** Right tool hidden (harness Figures): % of answerable requests with the right tool first / in the top 3 answered none. */
  hidden1: number | null;
  hidden3: number | null;
  unanswerable: number;
  /** % of unanswerable requests answered none. */
  none_unanswerable: number | null;
  near_miss: number;
  /** % of near-miss requests (a tool's domain, no tool does it) answered none. */
  none_near_miss: number | null;
};

export const ROOT = resolve(dirname(new URL(import.meta.url).pathname), "../..");
export const SUITE_FILE = join(ROOT, "test/eval/sets/suite.json");

export function readSuite(file = SUITE_FILE): SuiteSet[] {
  return (JSON.parse(readFileSync(file, "utf8")) as { sets: SuiteSet[] }).sets;
}

/** Every request of a set, from all its query files. */
export const readSetQueries = (set: SuiteSet): EvalQuery[] => [set.queries].flat().flatMap((f) => readJsonl<EvalQuery>(join(ROOT, f)));

export async function loadSet(set: SuiteSet, params?: ScorerParams): Promise<Loaded> {
  if (set.registry) return loadRegistry(join(ROOT, set.registry), params);
  const tools = join(ROOT, set.tools!);
  return loadTools(loadJsonlTools(tools), tools, params);
}

const pct = (a: number, b: number) => (b ? Math.round((1000 * a) / b) / 10 : null);

/** Figures of one set per split (each split, then all), ours only, at the default min_score unless given. */
export async function suiteRows(
  set: SuiteSet,
  loaded: Loaded,
  opts: { finder?: FinderOptions; minScore?: number; split?: string; decision?: DecisionEval } = {},
): Promise<SuiteRow[]> {
  const queries = readSetQueries(set);
  const finder = evalFinder(loaded.artifact, opts);
  const splits = [...new Set(queries.map((q) => q.split ?? "all"))].sort();
  const rows: SuiteRow[] = [];
  for (const split of opts.split ? [opts.split] : [...splits, "all"]) {
    const qs = split === "all" ? queries : queries.filter((q) => (q.split ?? "all") === split);
    if (split === "all" && splits.length === 1 && splits[0] === "all") continue;
    const m = new Metrics();
    const none: Record<"unanswerable" | "near_miss", [number, number]> = { unanswerable: [0, 0], near_miss: [0, 0] };
    for (const q of qs) {
      const { ranked, none: isNone } = await answerQuery(finder, q.query, opts.minScore, opts.decision);
      const groups = goldGroups(q);
      m.add(
        groups,
        ranked.map((name) => loaded.keyOf.get(name)!),
        isNone,
      );
      if (!groups.length) {
        const c = none[q.kind === "near_miss" ? "near_miss" : "unanswerable"];
        c[1]++;
        if (isNone) c[0]++;
      }
    }
    const f = m.figures();
    rows.push({
      set: set.name,
      split,
      tools: loaded.artifact.tools.length,
      answerable: f.answerable,
      top3: f.r3,
      ndcg10: f.ndcg10,
      false_none: f.false_none,
      hidden1: f.hidden1,
      hidden3: f.hidden3,
      unanswerable: none.unanswerable[1],
      none_unanswerable: pct(none.unanswerable[0], none.unanswerable[1]),
      near_miss: none.near_miss[1],
      none_near_miss: pct(none.near_miss[0], none.near_miss[1]),
    });
  }
  return rows;
}

export function formatSuite(rows: SuiteRow[]): string {
  const f = (x: number | null) => (x === null ? "-" : x.toFixed(1));
  const lines = [
    "| set | split | tools | answerable | top-3 | nDCG@10 | false-none | unanswerable none | near-miss none |",
    "|---|---|---|---|---|---|---|---|---|",
  ];
  for (const r of rows) {
    lines.push(
      `| ${r.set} | ${r.split} | ${r.tools} | ${r.answerable} | ${f(r.top3)} | ${f(r.ndcg10)} | ${f(r.false_none)} | ${f(r.none_unanswerable)} (${r.unanswerable}) | ${f(r.none_near_miss)} (${r.near_miss}) |`,
    );
  }
  return lines.join("\n");
}
