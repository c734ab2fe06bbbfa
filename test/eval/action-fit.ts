// npx tsx test/eval/action-fit.ts [--json]
// The measurement behind comparing a request's action (and scope) with a tool's
// (lambdas/core/find/actions.ts), before any rule uses it: per set, how often the request names an
// action, how often its right tool's action agrees or conflicts, and on the requests find gets wrong
// today, how often the wrong first tool conflicts while the right one agrees (a rule could help) against
// right first tools that conflict (a rule could hurt). Counts only; no query text is printed.
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { actionFit, requestAction, actionWords, Fit, scopeFit, scopeOf, toolAction, type ActionTable } from "../../lambdas/core/find/actions.js";
import { evalFinder, goldGroups, loadJsonlTools, loadTools, readJsonl, sample, type EvalQuery, type Loaded } from "./harness.js";
import { loadSet, readSetQueries, readSuite } from "./suite.js";

const table = JSON.parse(readFileSync(new URL("../../build/data/actions.json", import.meta.url), "utf8")) as ActionTable;

export type ActionFitRow = {
  set: string;
  answerable: number;
  /** % of answerable requests whose action is known. */
  request_action: number;
  /** Of those: % whose right tool's action is the same / conflicts / is unknown. */
  gold_same: number;
  gold_conflict: number;
  gold_unknown: number;
  /** Requests whose first tool is wrong, the wrong one conflicts and a right one in the top 10 agrees. */
  could_help: number;
  /** Requests whose first tool is right and conflicts with the request's action. */
  could_hurt: number;
  /** The same two counts on short requests only (at most SHORT words): one capability, said plainly. */
  short_help: number;
  short_hurt: number;
  /** For the verdict: % of near-miss requests (own sets) whose first tool's action conflicts, against % of answerable ones. */
  near_miss_conflict: number | null;
  answerable_top_conflict: number;
  /** The same two counts for scope (own / org / repo). */
  scope_help: number;
  scope_hurt: number;
};

/** A request of at most this many words is "short". */
const SHORT = 8;

const pct = (a: number, b: number) => (b ? Math.round((1000 * a) / b) / 10 : 0);

export async function actionFitRow(set: string, loaded: Loaded, queries: EvalQuery[]): Promise<ActionFitRow> {
  const finder = evalFinder(loaded.artifact, {});
  const keyTool = new Map<string, string>();
  for (const [name, key] of loaded.keyOf) keyTool.set(key, name);
  const memo = new Map<string, { action: string | undefined; scope: number }>();
  const toolOf = (name: string) => {
    let hit = memo.get(name);
    if (!hit) {
      const t = loaded.artifact.byName.get(name);
      const words = actionWords(t?.description ?? "");
      hit = { action: toolAction(actionWords(name.split(".").pop() ?? name), words, table), scope: scopeOf([...actionWords(name), ...words], table) };
      memo.set(name, hit);
    }
    return hit;
  };
  const row: ActionFitRow = {
    set,
    answerable: 0,
    request_action: 0,
    gold_same: 0,
    gold_conflict: 0,
    gold_unknown: 0,
    could_help: 0,
    could_hurt: 0,
    short_help: 0,
    short_hurt: 0,
    near_miss_conflict: null,
    answerable_top_conflict: 0,
    scope_help: 0,
    scope_hurt: 0,
  };
  let known = 0;
  let nearMiss = 0;
  let nearMissConflict = 0;
  for (const q of queries) {
    const groups = goldGroups(q);
    if (q.kind === "near_miss") {
      nearMiss++;
      const r = await finder.find({ query: q.query, limit: 1, min_score: 0, schemas: false });
      const top = r.tools[0]?.name;
      if (top !== undefined && actionFit(requestAction(actionWords(q.query), table), toolOf(top).action) === Fit.conflict) nearMissConflict++;
    }
    if (!groups.length) continue;
    row.answerable++;
    const words = actionWords(q.query);
    const action = requestAction(words, table);
    const scope = scopeOf(words, table);
    const gold = new Set(groups.flat().flatMap((k) => keyTool.get(k) ?? []));
    const r = await finder.find({ query: q.query, limit: 10, min_score: 0, schemas: false });
    const names = r.tools.map((t) => t.name);
    const top = names[0];
    const rightInTop = names.find((n) => gold.has(n));
    if (action !== undefined) {
      known++;
      const fit = actionFit(action, toolOf([...gold][0] ?? "").action);
      if (fit === Fit.same) row.gold_same++;
      else if (fit === Fit.conflict) row.gold_conflict++;
      else row.gold_unknown++;
    }
    if (top === undefined) continue;
    const short = words.length <= SHORT;
    if (actionFit(action, toolOf(top).action) === Fit.conflict) row.answerable_top_conflict++;
    if (gold.has(top)) {
      if (actionFit(action, toolOf(top).action) === Fit.conflict) {
        row.could_hurt++;
        if (short) row.short_hurt++;
      }
      if (scopeFit(scope, toolOf(top).scope) === Fit.conflict) row.scope_hurt++;
    } else if (rightInTop) {
      if (actionFit(action, toolOf(top).action) === Fit.conflict && actionFit(action, toolOf(rightInTop).action) === Fit.same) {
        row.could_help++;
        if (short) row.short_help++;
      }
      if (scopeFit(scope, toolOf(top).scope) === Fit.conflict && scopeFit(scope, toolOf(rightInTop).scope) === Fit.same) row.scope_help++;
    }
  }
  row.request_action = pct(known, row.answerable);
  row.answerable_top_conflict = pct(row.answerable_top_conflict, row.answerable);
  row.near_miss_conflict = nearMiss ? pct(nearMissConflict, nearMiss) : null;
  row.gold_same = pct(row.gold_same, known);
  row.gold_conflict = pct(row.gold_conflict, known);
  row.gold_unknown = pct(row.gold_unknown, known);
  return row;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({ options: { json: { type: "boolean", default: false } } });
  const EVAL = process.env.TOOLBELT_EVAL_DIR ?? "../shared/eval";
  const rows: ActionFitRow[] = [];
  for (const set of readSuite()) rows.push(await actionFitRow(set.name, await loadSet(set), readSetQueries(set)));
  const jsonl = (name: string, tools: string, queries: string, split?: string, n?: number) => async () => {
    const qs = readJsonl<EvalQuery>(queries).filter((q) => !split || q.split === split);
    rows.push(await actionFitRow(name, await loadTools(loadJsonlTools(tools), tools), n ? sample(qs, n, 1) : qs));
  };
  for (const run of [
    jsonl("mcp-dev", `${EVAL}/livemcpbench/tools.jsonl`, "test/eval/cases/mcp-dev.jsonl"),
    jsonl("livemcpbench", `${EVAL}/livemcpbench/tools.jsonl`, `${EVAL}/livemcpbench/queries.jsonl`),
    jsonl("seal dev", `${EVAL}/seal-tools/tools.jsonl`, `${EVAL}/seal-tools/queries.jsonl`, "dev"),
    jsonl("metatool single (2,000)", `${EVAL}/metatool/tools.jsonl`, `${EVAL}/metatool/queries.jsonl`, "single", 2000),
  ])
    await run();
  if (values.json) process.stdout.write(`${JSON.stringify(rows, null, 1)}\n`);
  else {
    const cols = Object.keys(rows[0]!) as (keyof ActionFitRow)[];
    process.stdout.write(`| ${cols.join(" | ")} |\n|${cols.map(() => "---").join("|")}|\n`);
    for (const r of rows) process.stdout.write(`| ${cols.map((c) => r[c]).join(" | ")} |\n`);
  }
}
