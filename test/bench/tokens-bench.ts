// npm run bench:tokens -- [--json]
// What an agent pays in tokens to start (the surface) and per step (a find with the default options),
// against advertising the full granted catalog up front, and over a short task (open a session, find,
// call, find again and see the pin), for the example registry, example + the livemcpbench servers as
// families, seal-tools at 4,076 and 10,000 tools, and seal-tools dealt into 1,000 families.
// Tokens are real o200k_base (gpt-tokenizer); bytes / 4 beside them is the rough estimate a Claude
// figure would be (no current Claude tokenizer is published; @anthropic-ai/tokenizer says it is outdated).
import { readFileSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { parse as parseYaml } from "yaml";
import { emitArtifact } from "../../build/artifact.js";
import { compileRegistry } from "../../build/build.js";
import { catalogFromJsonl, type JsonlTool } from "../../build/sources/jsonl.js";
import { countTokens } from "../../build/tokens.js";
import { checkInputSchema } from "../../build/validate/json-schema.js";
import { DEFAULT_SURFACE_BOUNDS } from "../../lambdas/config.js";
import { artifactFromFiles, type Artifact } from "../../lambdas/artifact.js";
import type { FindResponse } from "../../lambdas/contract/find.js";
import { createFinder } from "../../lambdas/core/find/index.js";
import type { Caller } from "../../lambdas/core/ports.js";
import { createSessions } from "../../lambdas/core/sessions.js";
import { computeSurface, fitManifest, type Surface } from "../../lambdas/core/surface.js";
import { createToolLists } from "../../lambdas/mcp/tools.js";
import type { CatalogTool, FamilyInfo } from "../../registry/contract/artifact.js";
import { globMatcher } from "../../registry/contract/globs.js";
import { loadJsonlTools, readJsonl, scale } from "../eval/harness.js";
import { MemorySessionStore } from "../helpers/memory-store.js";

const USAGE = "usage: npm run bench:tokens -- [--json]";
let values;
try {
  ({ values } = parseArgs({ options: { help: { type: "boolean", default: false }, json: { type: "boolean", default: false } } }));
} catch (e) {
  console.error(`${(e as Error).message}\n${USAGE}`);
  process.exit(2);
}
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const ROOT = join(import.meta.dirname, "../..");
const EVAL = process.env.TOOLBELT_EVAL_DIR ?? join(ROOT, "../shared/eval");
const QUERIES = 50;

type Brief = { name: string; tools: string[] };
type Row = {
  set: string;
  families: number;
  tools: number;
  brief: string | null;
  /** Exact o200k_base tokens of the surface as served (tools without on_belt, and the manifest); what its size figure reports; bytes / 4. */
  surface: { tokens: number; reported: number | undefined; approx: number; manifest_families: number };
  /** One find with default options (REST's answer, no session): mean and largest over the sample queries, and bytes / 4 of the mean; answers that left a schema out for the budget. */
  find: { mean: number; max: number; approx: number; left_out: number };
  /** Every granted tool as the registry declares it (name, model name, description, schemas with examples), listed up front. */
  catalog: { tokens: number; approx: number };
  /** catalog ÷ (surface + one find step), per tokenizer, and the saving that is. */
  ratio: number;
  saving_pct: number;
  saving_pct_approx: number;
  /** MCP: tools/list and the server's instructions (the manifest as text), as a client hands them to its model. */
  mcp: { tokens: number; list: number; instructions: number };
  /** open session + find + call request + find again (the pin shows as on_belt), vs the catalog + the same call request. */
  task: { tokens: number; catalog_tokens: number; saving_pct: number; pinned_seen: boolean };
};

const tokensOf = (v: unknown) => countTokens(JSON.stringify(v));
const approxOf = (v: unknown) => Math.ceil(Buffer.byteLength(JSON.stringify(v)) / 4);
const served = (s: Surface) => ({ tools: s.tools.map(({ on_belt: _, ...rest }) => rest), manifest: s.manifest });
const pct = (part: number, whole: number) => Math.round((1 - part / whole) * 1000) / 10;

/** Arguments from a schema: each required property's first example, default or a value of its type. */
function sampleArgs(schema: Record<string, unknown>): Record<string, unknown> {
  const props = (schema.properties ?? {}) as Record<string, { type?: string | string[]; examples?: unknown[]; default?: unknown; enum?: unknown[] }>;
  const out: Record<string, unknown> = {};
  for (const k of (schema.required ?? []) as string[]) {
    const p = props[k] ?? {};
    const type = Array.isArray(p.type) ? p.type[0] : p.type;
    out[k] =
      p.examples?.[0] ??
      p.default ??
      p.enum?.[0] ??
      (type === "integer" || type === "number" ? 1 : type === "boolean" ? true : type === "array" ? [] : type === "object" ? {} : "x");
  }
  return out;
}

async function measure(set: string, artifact: Artifact, queries: string[], brief?: Brief): Promise<Row> {
  const isAlwaysLoaded = globMatcher(artifact.manifest.always_loaded);
  const s = computeSurface({ artifact, granted: () => true, isAlwaysLoaded, declared: brief?.tools ?? [], pins: [], bounds: DEFAULT_SURFACE_BOUNDS });
  const finder = createFinder(artifact);
  const steps: number[] = [];
  let approxTotal = 0;
  let leftOut = 0;
  for (const q of queries) {
    const r: FindResponse = await finder.find({ query: q }, () => true);
    steps.push(tokensOf(r));
    approxTotal += approxOf(r);
    if (r.note) leftOut++;
  }
  const catalogEntries = artifact.tools.map(({ name, model_name, description, input_schema, output_schema }) => ({
    name,
    model_name,
    description,
    input_schema,
    ...(output_schema ? { output_schema } : {}),
  }));
  const catalog = { tokens: tokensOf({ tools: catalogEntries }), approx: approxOf({ tools: catalogEntries }) };
  const surface = {
    tokens: tokensOf(served(s)),
    reported: s.size.surface.o200k_tokens,
    approx: approxOf(served(s)),
    manifest_families: s.manifest.families.length,
  };
  const find = {
    mean: Math.round(steps.reduce((a, n) => a + n, 0) / steps.length),
    max: Math.max(...steps),
    approx: Math.round(approxTotal / steps.length),
    left_out: leftOut,
  };
  const task = await simulateTask(artifact, finder, isAlwaysLoaded, queries[0]!, brief, catalog.tokens);
  const caller: Caller = { principal: "bench", admin: false, granted: () => true };
  // As the MCP server answers: the list, and instructions whose manifest gets what the list leaves of the budget.
  const lists = createToolLists(artifact.tools, isAlwaysLoaded);
  const briefFile = brief && { version: 1, description: "bench", ...brief };
  const list = tokensOf({ tools: lists.list(caller, briefFile) });
  const opening = { artifact, granted: caller.granted, isAlwaysLoaded, declared: brief?.tools ?? [], pins: [], bounds: DEFAULT_SURFACE_BOUNDS };
  const instructions = countTokens(lists.instructions(caller, briefFile, (used) => fitManifest(opening, used).manifest));
  return {
    set,
    families: artifact.families.length,
    tools: artifact.tools.length,
    brief: brief?.name ?? null,
    surface,
    find,
    catalog,
    ratio: Math.round((catalog.tokens / (surface.tokens + find.mean)) * 10) / 10,
    saving_pct: pct(surface.tokens + find.mean, catalog.tokens),
    saving_pct_approx: pct(surface.approx + find.approx, catalog.approx),
    mcp: { tokens: list + instructions, list, instructions },
    task,
  };
}

/** Open a session, find, call the top result (the request; its answer is the same either way), find again: the pin shows. */
async function simulateTask(
  artifact: Artifact,
  finder: ReturnType<typeof createFinder>,
  isAlwaysLoaded: (name: string) => boolean,
  query: string,
  brief: Brief | undefined,
  catalogTokens: number,
): Promise<Row["task"]> {
  const briefs = new Map(brief ? [[brief.name, { version: 1, description: "bench", ...brief }]] : []);
  const sessions = createSessions({ store: new MemorySessionStore(), artifact, briefs, isAlwaysLoaded, bounds: DEFAULT_SURFACE_BOUNDS, ttlSecs: 3600 });
  const caller: Caller = { principal: "bench", admin: false, granted: () => true };
  const session = await sessions.open(caller, brief?.name);
  const opened = { session: { id: session.id }, surface: served(sessions.surface(session, caller)) };
  // As POST /v1/find with the session: results on the belt carry no schema, and say on_belt.
  const findStep = async () => {
    const belt = new Set(sessions.beltNames(await sessions.get(session.id, caller), caller));
    const r = await finder.find({ query }, caller.granted, { onBelt: (name) => belt.has(name) });
    return { ...r, session: session.id, tools: r.tools.map((t) => ({ ...t, on_belt: belt.has(t.name) })) };
  };
  const first = await findStep();
  const tool = first.tools[0] ? artifact.byName.get(first.tools[0].name)! : undefined;
  const call = tool ? { tool: tool.name, args: sampleArgs(tool.input_schema as Record<string, unknown>), session: session.id } : undefined;
  if (tool) await sessions.recordUse(session.id, caller, tool.name);
  const again = await findStep();
  const tokens = tokensOf(opened) + tokensOf(first) + (call ? tokensOf(call) : 0) + tokensOf(again);
  const baseline = catalogTokens + (call ? tokensOf({ tool: call.tool, args: call.args }) : 0);
  return {
    tokens,
    catalog_tokens: baseline,
    saving_pct: pct(tokens, baseline),
    pinned_seen: tool ? again.tools.some((t) => t.name === tool.name && t.on_belt) : false,
  };
}

const queryTexts = (file: string, n: number): string[] =>
  readJsonl<{ query: string; kind?: string }>(file)
    .filter((q) => !q.kind || q.kind === "answerable")
    .slice(0, n)
    .map((q) => q.query);

async function catalogArtifact(families: FamilyInfo[], tools: CatalogTool[], always_loaded: string[] = []): Promise<Artifact> {
  return artifactFromFiles(await emitArtifact({ families, tools, always_loaded }));
}

/** A seal-tools entry as an http tool (the bench never calls it): what the surface and MCP lists advertise of a callable tool. */
const withBackend = (t: CatalogTool): CatalogTool => ({
  ...t,
  kind: "http",
  backend: { kind: "http", method: "POST", url: `http://127.0.0.1/${t.name}`, output: "json" },
});

const rows: Row[] = [];
const example = await compileRegistry(join(ROOT, "registry"));
if (!example.files) throw new Error("the example registry does not build: run npm run registry:check");
const exampleArtifact = artifactFromFiles(example.files);
const exampleQ = queryTexts(join(ROOT, "test/eval/sets/example/queries.jsonl"), QUERIES);
const codeReview = parseYaml(readFileSync(join(ROOT, "registry/briefs/code-review.yaml"), "utf8")) as Brief;
rows.push(await measure("example", exampleArtifact, exampleQ));
rows.push(await measure("example", exampleArtifact, exampleQ, codeReview));

// example + every livemcpbench server as a family: servers whose names collide with an example family,
// or with a tool schema the build would refuse, are left out (as registry:import would be refused).
const live = catalogFromJsonl(loadJsonlTools(join(EVAL, "livemcpbench/tools.jsonl")), { source: "livemcpbench" });
const taken = new Set(exampleArtifact.families.map((f) => f.name));
const invalid = new Set(live.tools.filter((t) => checkInputSchema(t.input_schema, []).some((f) => (f.severity ?? "error") === "error")).map((t) => t.family));
const liveFamilies = live.families.filter((f) => !taken.has(f.name) && !invalid.has(f.name));
const keep = new Set(liveFamilies.map((f) => f.name));
const combined = await catalogArtifact(
  [...exampleArtifact.families, ...liveFamilies],
  [...exampleArtifact.tools, ...live.tools.filter((t) => keep.has(t.family))],
  exampleArtifact.manifest.always_loaded,
);
const liveQ = queryTexts(join(EVAL, "livemcpbench/queries.jsonl"), QUERIES);
rows.push(await measure("example + livemcpbench servers", combined, liveQ));
rows.push(await measure("example + livemcpbench servers", combined, liveQ, codeReview));

const sealRows = loadJsonlTools(join(EVAL, "seal-tools/tools.jsonl"));
const sealQ = queryTexts(join(EVAL, "seal-tools/queries.jsonl"), QUERIES);
/** A brief of 8 tools of a seal-tools catalog: the first tool of 8 families spread over it. */
const sealBrief = (a: Artifact): Brief => {
  const firsts = [...new Map(a.tools.map((t) => [t.family, t.name])).values()];
  return { name: "eight-tools", tools: Array.from({ length: 8 }, (_, i) => firsts[Math.floor((i * firsts.length) / 8)] ?? a.tools[i]!.name) };
};
for (const [set, data] of [
  ["seal-tools", sealRows],
  ["seal-tools x2.5", scale(sealRows, 10_000)],
  // The generated registry: seal-tools' tools dealt into 1,000 families by index, deterministically.
  ["seal-tools dealt into 1,000 families", sealRows.map((r, i) => ({ ...r, family: `fam${String(i % 1000).padStart(4, "0")}` }))],
] as const) {
  const catalog = catalogFromJsonl(data as JsonlTool[], { source: "seal-tools" });
  // As a registry of tools with backends: imported entries are never on a belt, so a brief of them would advertise nothing.
  const artifact = await catalogArtifact(catalog.families, catalog.tools.map(withBackend));
  rows.push(await measure(set, artifact, sealQ));
  rows.push(await measure(set, artifact, sealQ, sealBrief(artifact)));
}

const date = new Date().toISOString().slice(0, 10);
const cpu = cpus()[0]?.model ?? "unknown";
if (values.json) {
  console.log(JSON.stringify({ date, cpu, tokenizer: "o200k_base", approx: "bytes / 4", bounds: DEFAULT_SURFACE_BOUNDS, rows }, null, 2));
} else {
  const n = (x: number | undefined) => (x === undefined ? "-" : x.toLocaleString("en"));
  console.log(`o200k_base tokens (bytes / 4 in brackets), ${date}, ${cpu}`);
  console.log(
    "set | families / tools | brief | surface (reported) | find step mean / max | full catalog | ratio | saving o200k (bytes/4) | task: ours / catalog, saving | MCP tools/list + instructions",
  );
  for (const r of rows) {
    console.log(
      [
        r.set,
        `${n(r.families)} / ${n(r.tools)}`,
        r.brief ?? "-",
        `${n(r.surface.tokens)} (${n(r.surface.reported)}; ${n(r.surface.approx)})`,
        `${n(r.find.mean)} / ${n(r.find.max)}${r.find.left_out ? ` (${r.find.left_out} left a schema out)` : ""}`,
        `${n(r.catalog.tokens)} (${n(r.catalog.approx)})`,
        `${r.ratio}x`,
        `${r.saving_pct}% (${r.saving_pct_approx}%)`,
        `${n(r.task.tokens)} / ${n(r.task.catalog_tokens)}, ${r.task.saving_pct}%${r.task.pinned_seen ? "" : " (pin not seen)"}`,
        `${n(r.mcp.tokens)} (${n(r.mcp.list)} + ${n(r.mcp.instructions)})`,
      ].join(" | "),
    );
  }
}
