// npm run eval                                    (the own small-catalog sets, test/eval/sets/suite.json)
// npm run eval -- --registry DIR --queries FILE    (a registry folder instead of a JSONL catalog)
// npm run eval -- --tools FILE --queries FILE [--split NAME] [--sample N] [--seed S] [--json]
//   [--min-score X] [--systems ours,bm25,fts5] [--params JSON] [--qparams JSON] [--verdict on|off] [--verdict-sweep]
// npm run eval -- --mode decision --model-url URL [--model NAME] [--key-env VAR] [any of the above]
//   "ours" becomes find's decision mode, asking an OpenAI-compatible endpoint (URL ends in /v1).
// Builds the index from a JSONL catalog through the real build path and prints, for ours and the
// two baselines, Recall@1/5/10, nDCG@10, completeness@10, none-rate (no-gold) and false-none.
import { parseArgs } from "node:util";
import { DEFAULT_SCORER_PARAMS, type ScorerParams } from "../../registry/contract/search-options.js";
import {
  evaluate,
  verdictSweep,
  type DecisionEval,
  loadJsonlTools,
  loadRegistry,
  loadTools,
  readJsonl,
  sample,
  type EvalQuery,
  type SystemName,
} from "./harness.js";
import { formatSuite, loadSet, readSuite, suiteRows, type SuiteRow } from "./suite.js";
import { createModels } from "../../lambdas/models/index.js";
import { DECIDER_TIMEOUT_MS, parseModelRoles } from "../../lambdas/models/roles.js";

const USAGE =
  "usage: npm run eval [-- --set NAME[,NAME]] [--split dev|heldout|blind] [--json]   (own sets; tune on dev only)\n" +
  "       npm run eval -- --all [--json]   (every set, ours only; TOOLBELT_EVAL_DIR names the shared eval folder)\n" +
  "       npm run eval -- (--tools FILE | --registry DIR) --queries FILE [--split NAME[,NAME]] [--sample N] [--seed S] [--json]\n" +
  "       tuning: [--min-score X] [--systems ours,bm25,fts5] [--params JSON] [--qparams JSON] [--verdict-sweep] [--verdict on|off]\n" +
  "       decision mode: --mode decision --model-url URL [--model NAME] [--key-env VAR]   (any OpenAI-compatible endpoint)";

function usage(message?: string): never {
  if (message) console.error(message);
  console.error(USAGE);
  process.exit(message ? 2 : 0);
}

let parsed;
try {
  parsed = parseArgs({
    options: {
      help: { type: "boolean", default: false },
      tools: { type: "string" },
      registry: { type: "string" },
      set: { type: "string" },
      // Every set (own, paraphrase, cases, livemcpbench, seal-tools, MetaTool) in one process, ours only.
      all: { type: "boolean", default: false },
      queries: { type: "string" },
      split: { type: "string" },
      sample: { type: "string" },
      seed: { type: "string", default: "1" },
      json: { type: "boolean", default: false },
      "min-score": { type: "string" },
      systems: { type: "string", default: "ours,bm25,fts5" },
      params: { type: "string" },
      qparams: { type: "string" },
      // The "no tool fits" trade-off: none-rate and false-none by min_score, without and with the verdict.
      "verdict-sweep": { type: "boolean", default: false },
      // "off": the verdict by the lexical score alone (the figures before verdict.ts).
      verdict: { type: "string", default: "on" },
      mode: { type: "string", default: "keyword" },
      "model-url": { type: "string" },
      model: { type: "string", default: "default" },
      "key-env": { type: "string" },
    },
  });
} catch (e) {
  usage((e as Error).message);
}
const { values } = parsed;
if (values.help) usage();
// Tuning hooks: BM25F parameters (rebuild) and query-time knobs; reported runs use the defaults.
const over = values.params ? (JSON.parse(values.params) as Partial<ScorerParams>) : undefined;
const params: ScorerParams | undefined = over
  ? {
      ...DEFAULT_SCORER_PARAMS,
      ...over,
      weight: { ...DEFAULT_SCORER_PARAMS.weight, ...over.weight },
      b: { ...DEFAULT_SCORER_PARAMS.b, ...over.b },
    }
  : undefined;
const finderOptions = {
  ...(values.qparams ? { query: JSON.parse(values.qparams) } : {}),
  ...(values.verdict === "off" ? { verdict: false as const } : {}),
};

// Decision mode: the decider is the endpoint given; its fallbacks (timeouts, errors) are counted and reported.
if (values.mode !== "keyword" && values.mode !== "decision") usage("--mode is keyword or decision");
if (values.mode === "decision" && !values["model-url"]) usage("--mode decision needs --model-url (an OpenAI-compatible endpoint, …/v1)");
const decision: DecisionEval | undefined =
  values.mode === "decision"
    ? {
        models: createModels(
          parseModelRoles(
            JSON.stringify({
              decider: {
                provider: "openai",
                url: values["model-url"],
                model: values.model,
                timeout_ms: DECIDER_TIMEOUT_MS.max,
                ...(values["key-env"] ? { key_env: values["key-env"] } : {}),
              },
            }),
          ),
          process.env,
        ),
        fallbacks: new Map(),
      }
    : undefined;
const decisionNote = () =>
  decision
    ? `decision mode: ${values.model} at ${values["model-url"]}; fallbacks to keyword: ${[...decision.fallbacks].map(([k, n]) => `${k} ${n}`).join(", ") || "none"}`
    : "";

if (values.all) {
  const { allRows, formatAll } = await import("./all.js");
  const rows = await allRows(process.env.TOOLBELT_EVAL_DIR ?? "../shared/eval", { ...(params ? { params } : {}), finder: finderOptions });
  console.log(values.json ? JSON.stringify({ all: rows }) : formatAll(rows));
  process.exit(0);
}

if (!values.tools && !values.registry) {
  if (values.queries) usage("--queries needs --tools or --registry");
  const names = values.set?.split(",");
  const out: SuiteRow[] = [];
  for (const set of readSuite().filter((s) => !names || names.includes(s.name))) {
    const loaded = await loadSet(set, params);
    const opts = {
      finder: finderOptions,
      ...(decision ? { decision } : {}),
      ...(values["min-score"] ? { minScore: Number(values["min-score"]) } : {}),
      ...(values.split ? { split: values.split } : {}),
    };
    out.push(...(await suiteRows(set, loaded, opts)));
  }
  console.log(values.json ? JSON.stringify({ suite: out, ...(decision ? { fallbacks: Object.fromEntries(decision.fallbacks) } : {}) }) : formatSuite(out));
  if (decision && !values.json) console.log(decisionNote());
  process.exit(0);
}
if (!values.queries) usage("--queries is required");

const rows = values.tools ? loadJsonlTools(values.tools) : [];
let queries = readJsonl<EvalQuery>(values.queries);
if (values.split) queries = queries.filter((q) => values.split!.split(",").includes(q.split ?? ""));
if (values.sample) queries = sample(queries, Number(values.sample), Number(values.seed));
if (!queries.length) {
  console.error("no queries selected");
  process.exit(2);
}

const load = () => (values.registry ? loadRegistry(values.registry, params) : loadTools(rows, values.tools!, params));

if (values["verdict-sweep"]) {
  const loaded = await load();
  const sweep = await verdictSweep(loaded, queries, [0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6]);
  if (values.json)
    console.log(JSON.stringify({ tools: loaded.artifact.tools.length, queries: queries.length, split: values.split ?? null, verdict_sweep: sweep }));
  else {
    const f = (x: number | null) => (x === null ? "-" : x.toFixed(1));
    console.log(`${loaded.artifact.tools.length} tools, ${queries.length} queries${values.split ? ` (${values.split})` : ""}`);
    console.log("min_score  verdict  none(no-gold)  false-none");
    for (const r of sweep)
      console.log(
        `${r.min_score.toFixed(2).padEnd(10)} ${(r.verdict ? "on" : "off").padEnd(8)} ${f(r.none_rate).padStart(13)}  ${f(r.false_none).padStart(10)}`,
      );
  }
  process.exit(0);
}

const t0 = performance.now();
const loaded = await load();
const buildMs = performance.now() - t0;
const figures = await evaluate(loaded, queries, {
  systems: values.systems.split(",") as SystemName[],
  ...(values["min-score"] ? { minScore: Number(values["min-score"]) } : {}),
  finder: finderOptions,
  ...(decision ? { decision } : {}),
});

if (values.json) {
  console.log(
    JSON.stringify({
      tools: loaded.artifact.tools.length,
      queries: queries.length,
      split: values.split ?? null,
      figures,
      ...(decision ? { fallbacks: Object.fromEntries(decision.fallbacks) } : {}),
    }),
  );
} else {
  const f = (x: number | null) => (x === null ? "   -" : x.toFixed(1).padStart(5));
  console.log(`${loaded.artifact.tools.length} tools, ${queries.length} queries${values.split ? ` (${values.split})` : ""}, build ${buildMs.toFixed(0)} ms`);
  console.log("system   R@1    R@3    R@5   R@10  nDCG10  C@10   none(no-gold) false-none");
  for (const [name, x] of Object.entries(figures)) {
    console.log(
      `${name.padEnd(6)} ${f(x.r1)}  ${f(x.r3)}  ${f(x.r5)}  ${f(x.r10)}  ${f(x.ndcg10)}  ${f(x.c10)}   ${f(x.none_rate)}         ${f(x.false_none)}`,
    );
  }
  // A set that labels its requests (kind, difficulty): the same figures per label, nDCG for the answerable
  // ones, none-rate for the others.
  const label = (q: EvalQuery) => (q.kind && q.kind !== "answerable" ? q.kind : q.difficulty ? `answerable ${q.difficulty}` : undefined);
  const labels = [...new Set(queries.map(label))].filter((l): l is string => l !== undefined).sort();
  if (labels.length > 1) console.log("\nby label (nDCG10 for answerable; none-rate for the others):");
  for (const l of labels.length > 1 ? labels : []) {
    const subset = await evaluate(
      loaded,
      queries.filter((q) => label(q) === l),
      {
        systems: values.systems.split(",") as SystemName[],
        ...(values["min-score"] ? { minScore: Number(values["min-score"]) } : {}),
        finder: finderOptions,
      },
    );
    const cells = Object.entries(subset).map(([name, x]) => `${name} ${f(l.startsWith("answerable") ? x.ndcg10 : x.none_rate)}`);
    const fn = l.startsWith("answerable") ? `   ours false-none ${f(subset.ours?.false_none ?? null)}` : "";
    console.log(`${l.padEnd(18)} (${queries.filter((q) => label(q) === l).length})  ${cells.join("  ")}${fn}`);
  }
}
if (decision && !values.json) console.log(decisionNote());
