// npx tsx test/bench/retrieve-ab.ts [--ref COMMIT] [--sample N] [--sets a,b]
// A change to retrieve must leave every answer as it was: this runs find with this tree's Retriever and
// with the Retriever of another commit (`--ref`, read with git show) in the same process, over every
// eval set's requests (own sets, cases, LiveMCPBench, Seal-Tools, MetaTool, and Seal-Tools scaled to
// 10,000 tools), and compares the whole answers (tools, scores, verdict, explain): limit 10 at
// min_score 0, at the default min_score, and with explain. Both sides share the tree's other stages,
// so another stage's change moves both alike. Prints the differing requests; exit code 1 if any.
// --time N: then N rounds of the 10k catalog's requests, the two sides taking turns request by request
// (CPU time and latency per side: the speed A/B in one process and one load).
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { createFinder } from "../../lambdas/core/find/index.js";
import type { Retriever } from "../../lambdas/core/find/retrieve.js";
import type { FindRequest } from "../../lambdas/core/find/types.js";
import { loadJsonlTools, loadTools, readJsonl, sample, scale, type EvalQuery, type Loaded } from "../eval/harness.js";
import { loadSet, readSetQueries, readSuite, ROOT } from "../eval/suite.js";

const USAGE = "usage: npx tsx test/bench/retrieve-ab.ts [--ref COMMIT] [--sample N] [--sets own,cases,livemcpbench,seal,metatool,10k] [--time N]";
const SETS = ["own", "cases", "livemcpbench", "seal", "metatool", "10k"];
const { values } = parseArgs({
  options: {
    ref: { type: "string", default: "HEAD" },
    // Requests per set at most (a fixed sample; 0: all).
    sample: { type: "string", default: "0" },
    sets: { type: "string", default: SETS.join(",") },
    time: { type: "string", default: "0" },
  },
});
const EVAL = process.env.TOOLBELT_EVAL_DIR ?? join(ROOT, "../shared/eval");
const only = new Set(values.sets.split(","));
if ([...only].some((s) => !SETS.includes(s))) {
  console.error(USAGE);
  process.exit(2);
}

/** The reference commit's retrieve.ts, its imports pointed at this tree (only retrieve differs between the sides). */
async function referenceRetriever(ref: string): Promise<typeof Retriever> {
  const source = execFileSync("git", ["show", `${ref}:lambdas/core/find/retrieve.ts`], { cwd: ROOT, encoding: "utf8" });
  const from = join(ROOT, "lambdas/core/find");
  const text = source.replace(/from "(\.{1,2}\/[^"]+)"/g, (_, rel: string) => `from "${pathToFileURL(join(from, rel)).href}"`);
  const dir = mkdtempSync(join(tmpdir(), "retrieve-ref-"));
  const file = join(dir, "retrieve.ts");
  writeFileSync(file, text);
  try {
    return ((await import(pathToFileURL(file).href)) as { Retriever: typeof Retriever }).Retriever;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const Reference = await referenceRetriever(values.ref);
const limit = Number(values.sample);
const rounds = Number(values.time);
const pick = (qs: EvalQuery[]) => (limit > 0 ? sample(qs, limit, 1) : qs);

type Finder = ReturnType<typeof createFinder>;

/** CPU time per request and latency percentiles (µs) of each side, the sides taking turns request by request. */
async function timeBoth(sides: Record<"ours" | "ref", Finder>, queries: string[], rounds: number) {
  const cpu = { ours: 0, ref: 0 };
  const wall = { ours: [] as number[], ref: [] as number[] };
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < queries.length; i++) {
      for (const side of (i + r) % 2 ? (["ours", "ref"] as const) : (["ref", "ours"] as const)) {
        const c0 = process.cpuUsage();
        const t0 = process.hrtime.bigint();
        await sides[side].find({ query: queries[i]! });
        wall[side].push(Number(process.hrtime.bigint() - t0) / 1000);
        const c = process.cpuUsage(c0);
        cpu[side] += c.user + c.system;
      }
    }
  }
  const at = (xs: number[], p: number) => Math.round(xs.sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!);
  const n = rounds * queries.length;
  for (const side of ["ours", "ref"] as const) {
    console.log(`  ${side.padEnd(4)} cpu ${Math.round(cpu[side] / n)} µs/request, p50 ${at(wall[side], 0.5)} µs, p99 ${at(wall[side], 0.99)} µs`);
  }
  console.log(`  ours/ref cpu ${(cpu.ours / cpu.ref).toFixed(3)}`);
}

/** The requests of one catalog whose answers differ between the two Retrievers. */
async function compare(loaded: Loaded, queries: EvalQuery[]): Promise<{ differ: string[]; sides: Record<"ours" | "ref", Finder> }> {
  const ours = createFinder(loaded.artifact, { eagerFuzzy: true });
  const ref = createFinder(loaded.artifact, { eagerFuzzy: true, retriever: Reference });
  const asks: Omit<FindRequest, "query">[] = [{ limit: 10, min_score: 0 }, { limit: 10 }, { limit: 10, explain: true }];
  const differ: string[] = [];
  for (const q of queries) {
    for (const ask of asks) {
      const a = JSON.stringify(await ours.find({ query: q.query, ...ask }));
      const b = JSON.stringify(await ref.find({ query: q.query, ...ask }));
      if (a !== b) differ.push(`${JSON.stringify(ask)} ${q.query}`);
    }
  }
  return { differ, sides: { ours, ref } };
}

type Catalog = { name: string; load: () => Promise<Loaded>; queries: () => EvalQuery[]; timed?: boolean };
const jsonl = (name: string, tools: string, queries: string, filter: (q: EvalQuery) => boolean = () => true): Catalog => ({
  name,
  load: () => loadTools(loadJsonlTools(tools), tools),
  queries: () => readJsonl<EvalQuery>(queries).filter(filter),
});
const catalogs: Catalog[] = [];
if (only.has("own")) for (const set of readSuite()) catalogs.push({ name: set.name, load: () => loadSet(set), queries: () => readSetQueries(set) });
if (only.has("cases")) {
  catalogs.push(jsonl("cases", join(ROOT, "test/eval/cases/tools.jsonl"), join(ROOT, "test/eval/cases/queries.jsonl")));
  catalogs.push(jsonl("mcp-dev", join(EVAL, "livemcpbench/tools.jsonl"), join(ROOT, "test/eval/cases/mcp-dev.jsonl")));
}
if (only.has("livemcpbench")) catalogs.push(jsonl("livemcpbench", join(EVAL, "livemcpbench/tools.jsonl"), join(EVAL, "livemcpbench/queries.jsonl")));
if (only.has("seal")) catalogs.push(jsonl("seal-tools", join(EVAL, "seal-tools/tools.jsonl"), join(EVAL, "seal-tools/queries.jsonl")));
if (only.has("metatool")) catalogs.push(jsonl("metatool", join(EVAL, "metatool/tools.jsonl"), join(EVAL, "metatool/queries.jsonl")));
if (only.has("10k")) {
  const seal = join(EVAL, "seal-tools/tools.jsonl");
  catalogs.push({
    name: "seal-tools x2.5",
    load: () => loadTools(scale(loadJsonlTools(seal), 10_000), "10k"),
    queries: () => readJsonl<EvalQuery>(join(EVAL, "seal-tools/queries.jsonl")),
    timed: rounds > 0,
  });
}

let failed = 0;
for (const c of catalogs) {
  const queries = pick(c.queries());
  const { differ, sides } = await compare(await c.load(), queries);
  failed += differ.length;
  console.log(`${c.name.padEnd(16)} ${String(queries.length).padStart(6)} requests × 3 asks: ${differ.length ? `${differ.length} differ` : "identical"}`);
  for (const d of differ.slice(0, 5)) console.log(`  ${d}`);
  if (c.timed)
    await timeBoth(
      sides,
      pick(c.queries()).map((q) => q.query),
      rounds,
    );
}
console.log(failed ? `${failed} answers differ from ${values.ref}'s retrieve` : `every answer identical to ${values.ref}'s retrieve`);
process.exit(failed ? 1 : 0);
