// npm run bench:tokens -- [--json]
// What an agent pays in o200k_base tokens to start (the surface) and per find step (default options),
// against advertising the full granted catalog, for the example registry and the eval catalogs.
import { readFileSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { parse as parseYaml } from "yaml";
import { emitArtifact } from "../../build/artifact.js";
import { compileRegistry } from "../../build/build.js";
import { catalogFromJsonl, type JsonlTool } from "../../build/sources/jsonl.js";
import { countTokens } from "../../build/tokens.js";
import { DEFAULT_SURFACE_BOUNDS } from "../../lambdas/config.js";
import { artifactFromFiles, type Artifact } from "../../lambdas/artifact.js";
import { createFinder } from "../../lambdas/core/find/index.js";
import { computeSurface, type Surface } from "../../lambdas/core/surface.js";
import { globMatcher } from "../../registry/contract/globs.js";
import { loadJsonlTools, readJsonl } from "../eval/harness.js";

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

type Row = {
  set: string;
  families: number;
  tools: number;
  brief: string | null;
  /** Exact o200k_base count of the surface as served (tools without on_belt, and the manifest). */
  surface_tokens: number;
  /** What the surface's own size figure reports (the build's per-entry counts added up) and bytes / 4. */
  surface_reported: number | undefined;
  surface_approx: number;
  /** Mean exact tokens of one find response with default options over the sample queries. */
  find_tokens: number;
  /** Every granted tool advertised up front (meta-tools included), as a client would list them. */
  catalog_tokens: number;
  catalog_approx: number;
  /** catalog / (surface + one find step), and the saving that is. */
  ratio: number;
  saving_pct: number;
};

const tokensOf = (v: unknown) => countTokens(JSON.stringify(v));
const servedSurface = (s: Surface) => ({ tools: s.tools.map(({ on_belt: _, ...rest }) => rest), manifest: s.manifest });

async function measure(set: string, artifact: Artifact, queries: string[], brief?: { name: string; tools: string[] }): Promise<Row> {
  const isAlways = globMatcher(artifact.manifest.always_loaded);
  const s = computeSurface({ artifact, granted: () => true, isAlwaysLoaded: isAlways, declared: brief?.tools ?? [], pins: [], bounds: DEFAULT_SURFACE_BOUNDS });
  const finder = createFinder(artifact);
  let findTotal = 0;
  for (const q of queries) findTotal += tokensOf(await finder.find({ query: q }, () => true));
  const { surface, catalog } = s.size;
  // The full catalog as one list of surface entries (the surface narrowed or not, every granted tool).
  const full = computeSurface({ artifact, granted: () => true, isAlwaysLoaded: () => true, declared: [], pins: [], bounds: DEFAULT_SURFACE_BOUNDS });
  const catalogTokens = tokensOf({ tools: full.tools.map(({ on_belt: _, ...rest }) => rest) });
  const surfaceTokens = tokensOf(servedSurface(s));
  const findTokens = Math.round(findTotal / queries.length);
  const ratio = catalogTokens / (surfaceTokens + findTokens);
  return {
    set,
    families: artifact.families.length,
    tools: artifact.tools.length,
    brief: brief?.name ?? null,
    surface_tokens: surfaceTokens,
    surface_reported: surface.o200k_tokens,
    surface_approx: surface.approx_tokens,
    find_tokens: findTokens,
    catalog_tokens: catalogTokens,
    catalog_approx: catalog.approx_tokens,
    ratio: Math.round(ratio * 10) / 10,
    saving_pct: Math.round((1 - 1 / ratio) * 1000) / 10,
  };
}

const queryTexts = (file: string, n: number): string[] =>
  readJsonl<{ query: string }>(file)
    .slice(0, n)
    .map((q) => q.query);

async function jsonlArtifact(rows: JsonlTool[], source: string): Promise<Artifact> {
  const catalog = catalogFromJsonl(rows, { source });
  return artifactFromFiles(await emitArtifact({ families: catalog.families, tools: catalog.tools, always_loaded: [] }));
}

const rows: Row[] = [];
const example = await compileRegistry(join(ROOT, "registry"));
if (!example.files) throw new Error("the example registry does not build: run npm run registry:check");
const exampleArtifact = artifactFromFiles(example.files);
const exampleQueries = [
  "show recent commits",
  "convert celsius to fahrenheit",
  "search my notes",
  "what time is it in Tokyo",
  "read the first lines of a file",
];
const codeReview = parseYaml(readFileSync(join(ROOT, "registry/briefs/code-review.yaml"), "utf8")) as { name: string; tools: string[] };
rows.push(await measure("example", exampleArtifact, exampleQueries));
rows.push(await measure("example", exampleArtifact, exampleQueries, codeReview));

const liveQ = queryTexts(join(EVAL, "livemcpbench/queries.jsonl"), 50);
rows.push(
  await measure("livemcpbench (servers as families)", await jsonlArtifact(loadJsonlTools(join(EVAL, "livemcpbench/tools.jsonl")), "livemcpbench"), liveQ),
);

// seal-tools has no families: its tools are dealt into 1,000 families by index, deterministically.
const seal = loadJsonlTools(join(EVAL, "seal-tools/tools.jsonl")).map((r, i) => ({ ...r, family: `fam${String(i % 1000).padStart(4, "0")}` }));
const sealQ = queryTexts(join(EVAL, "seal-tools/queries.jsonl"), 50);
rows.push(await measure("seal-tools (dealt into 1,000 families)", await jsonlArtifact(seal, "seal-tools"), sealQ));

if (values.json) {
  console.log(JSON.stringify({ date: new Date().toISOString().slice(0, 10), cpu: cpus()[0]?.model ?? "unknown", tokenizer: "o200k_base", rows }, null, 2));
} else {
  console.log(`o200k_base tokens, ${new Date().toISOString().slice(0, 10)}, ${cpus()[0]?.model ?? "unknown"}`);
  console.log("set | families/tools | brief | surface (reported, bytes/4) | find step | full catalog (bytes/4) | catalog ÷ (surface + find) | saving");
  for (const r of rows) {
    console.log(
      `${r.set} | ${r.families}/${r.tools} | ${r.brief ?? "-"} | ${r.surface_tokens} (${r.surface_reported ?? "-"}, ${r.surface_approx}) | ${r.find_tokens} | ${r.catalog_tokens} (${r.catalog_approx}) | ${r.ratio}x | ${r.saving_pct}%`,
    );
  }
}
