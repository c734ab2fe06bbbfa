// Every set in one process (`npm run eval -- --all`): the own small-catalog sets per split, the
// paraphrase sets' held-out halves, own cases, livemcpbench, seal-tools and MetaTool. Ours only:
// right tool in the top 3, nDCG@10, false-none and none-rate at the default min_score. The
// before/after figures of a change come from two runs of this with and without it (--params,
// --qparams, --verdict), so every set moves under the same code and load. Then per catalog the
// share of everyday requests no tool serves (everyday-requests.txt) answered none, and beside
// false-none how often the verdict hid a right tool ranked first / in the top 3.
import { readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import type { FinderOptions } from "../../lambdas/core/find/index.js";
import type { ScorerParams } from "../../registry/contract/search-options.js";
import { evaluate, loadJsonlTools, loadRegistry, loadTools, readJsonl, type EvalQuery, type Loaded } from "./harness.js";
import { apiRegistry, GITHUB_QUERIES, githubRegistry, REST_API_SETS } from "./generated.js";
import { loadSet, readSuite, ROOT, suiteRows, SUITE_FILE, type SuiteSet } from "./suite.js";

/**
 * Everyday requests that no tool catalog serves (physical-world chores and errands: "water the plants",
 * "fold the clean laundry"), written for the fourth round without reading any eval set's no-tool
 * requests: the share answered none is each catalog's floor against stray-word matches.
 */
export const EVERYDAY_FILE = join(dirname(SUITE_FILE), "../everyday-requests.txt");
export const everydayRequests = (file = EVERYDAY_FILE): EvalQuery[] =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((query, i) => ({ id: `everyday-${i + 1}`, query }));

export type AllRow = {
  set: string;
  queries: number;
  top3: number | null;
  ndcg10: number | null;
  false_none: number | null;
  /** % of answerable requests whose right tool is ranked first (hidden1) / in the top 3 (hidden3) that are answered none. */
  hidden1: number | null;
  hidden3: number | null;
  /** % of requests without a tool answered none (own sets: unanswerable and near-miss together). */
  none: number | null;
  /** Own sets: % of unanswerable requests answered none (the target's figure). */
  none_unanswerable: number | null;
  /** Own sets: % of near-miss requests (the catalog's domain, no tool does it) answered none. */
  none_near_miss: number | null;
};

type Public = { set: string; tools: string; queries: string; splits?: string[]; registry?: boolean };

/** The public and own JSONL sets; EVAL is the shared eval folder (TOOLBELT_EVAL_DIR). */
function publicSets(EVAL: string): Public[] {
  return [
    { set: "paraphrase-example test", tools: "registry", registry: true, queries: "test/eval/cases/paraphrase-example.jsonl", splits: ["test"] },
    { set: "paraphrase-mcp test", tools: join(EVAL, "livemcpbench/tools.jsonl"), queries: "test/eval/cases/paraphrase-mcp.jsonl", splits: ["test"] },
    { set: "cases", tools: "test/eval/cases/tools.jsonl", queries: "test/eval/cases/queries.jsonl" },
    { set: "mcp-dev", tools: join(EVAL, "livemcpbench/tools.jsonl"), queries: "test/eval/cases/mcp-dev.jsonl" },
    { set: "livemcpbench", tools: join(EVAL, "livemcpbench/tools.jsonl"), queries: join(EVAL, "livemcpbench/queries.jsonl") },
    { set: "seal dev", tools: join(EVAL, "seal-tools/tools.jsonl"), queries: join(EVAL, "seal-tools/queries.jsonl"), splits: ["dev"] },
    { set: "seal in", tools: join(EVAL, "seal-tools/tools.jsonl"), queries: join(EVAL, "seal-tools/queries.jsonl"), splits: ["test_in_domain"] },
    { set: "seal out", tools: join(EVAL, "seal-tools/tools.jsonl"), queries: join(EVAL, "seal-tools/queries.jsonl"), splits: ["test_out_domain"] },
    { set: "metatool single+no_tool", tools: join(EVAL, "metatool/tools.jsonl"), queries: join(EVAL, "metatool/queries.jsonl"), splits: ["single", "no_tool"] },
  ];
}

export async function allRows(EVAL: string, opts: { params?: ScorerParams; finder?: FinderOptions }): Promise<AllRow[]> {
  const out: AllRow[] = [];
  const catalogs = new Map<string, Loaded>();
  // The own sets, then the sets over generated catalogs (the GitHub REST API and the REST APIs nobody tuned for, as
  // the registry a user's import writes), per split alike.
  const github: SuiteSet = { name: "github", registry: relative(ROOT, await githubRegistry()), queries: relative(ROOT, GITHUB_QUERIES) };
  const apis: SuiteSet[] = [];
  for (const a of REST_API_SETS) apis.push({ name: a.name, registry: relative(ROOT, await apiRegistry(a)), queries: a.queries });
  for (const set of [...readSuite(), github, ...apis]) {
    const loaded = await loadSet(set, opts.params);
    catalogs.set(set.name, loaded);
    for (const r of await suiteRows(set, loaded, { finder: opts.finder ?? {} })) {
      const noGold = r.unanswerable + r.near_miss;
      const none = noGold ? ((r.none_unanswerable ?? 0) * r.unanswerable + (r.none_near_miss ?? 0) * r.near_miss) / noGold : null;
      out.push({
        set: `${set.name} ${r.split}`,
        queries: r.answerable + noGold,
        top3: r.top3,
        ndcg10: r.ndcg10,
        false_none: r.false_none,
        hidden1: r.hidden1,
        hidden3: r.hidden3,
        none,
        none_unanswerable: r.none_unanswerable,
        none_near_miss: r.none_near_miss,
      });
    }
  }
  const cache = new Map<string, Loaded>();
  for (const p of publicSets(EVAL)) {
    let loaded = cache.get(p.tools);
    if (!loaded) {
      loaded = p.registry ? await loadRegistry(p.tools, opts.params) : await loadTools(loadJsonlTools(p.tools), p.tools, opts.params);
      cache.set(p.tools, loaded);
      // The registry is the example set's catalog, counted once.
      if (!p.registry) catalogs.set(p.tools.split("/").at(-2)!, loaded);
    }
    const qs = readJsonl<EvalQuery>(p.queries).filter((q) => !p.splits || p.splits.includes(q.split ?? ""));
    const f = (await evaluate(loaded, qs, { systems: ["ours"], finder: opts.finder ?? {} })).ours;
    out.push({
      set: p.set,
      queries: qs.length,
      top3: f.r3,
      ndcg10: f.ndcg10,
      false_none: f.false_none,
      ...hidden(f),
      none: f.none_rate,
      none_unanswerable: null,
      none_near_miss: null,
    });
  }
  const everyday = everydayRequests();
  for (const [name, loaded] of catalogs) {
    const f = (await evaluate(loaded, everyday, { systems: ["ours"], finder: opts.finder ?? {} })).ours;
    out.push({
      set: `everyday · ${name}`,
      queries: everyday.length,
      top3: null,
      ndcg10: null,
      false_none: null,
      hidden1: null,
      hidden3: null,
      none: f.none_rate,
      none_unanswerable: null,
      none_near_miss: null,
    });
  }
  return out;
}

const hidden = (f: { hidden1: number | null; hidden3: number | null }) => ({ hidden1: f.hidden1, hidden3: f.hidden3 });

export function formatAll(rows: AllRow[]): string {
  const f = (x: number | null) => (x === null ? "-" : x.toFixed(1));
  return [
    "| set | queries | top-3 | nDCG@10 | false-none | hidden@1 | hidden@3 | none (no tool) | unanswerable none | near-miss none |",
    "|---|---|---|---|---|---|---|---|---|---|",
    ...rows.map(
      (r) =>
        `| ${r.set} | ${r.queries} | ${f(r.top3)} | ${f(r.ndcg10)} | ${f(r.false_none)} | ${f(r.hidden1)} | ${f(r.hidden3)} | ${f(r.none)} | ${f(r.none_unanswerable)} | ${f(r.none_near_miss)} |`,
    ),
  ].join("\n");
}
