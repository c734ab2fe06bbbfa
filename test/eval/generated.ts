// Eval catalogs generated from a pinned document rather than committed (the GitHub REST API set: about
// 1.5 MB of JSONL, or the registry folder the importer writes). Each is written once into test/eval/.cache/
// (git-ignored) and read from there after.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { githubCatalog, toJsonl, writeGithubRegistry } from "./sets/github/catalog.js";
import { writeApiRegistry } from "./sets/openapi-catalog.js";
import { ROOT } from "./suite.js";

export const CACHE_DIR = join(ROOT, "test/eval/.cache");

/** The GitHub set's requests (dev and held-out splits). */
export const GITHUB_QUERIES = join(ROOT, "test/eval/sets/github/queries.jsonl");

/** What an imported API catalog is made from besides its document: the generators and the importer they run. */
const IMPORT_SOURCES = [
  "test/eval/sets/openapi-catalog.ts",
  "build/import-openapi.ts",
  "build/families-edit.ts",
  "build/openapi/operations.ts",
  "build/openapi/refs.ts",
  "build/openapi/schema.ts",
].map((f) => join(ROOT, f));

/** What the GitHub catalog is made from: the pinned document, the set's generator and the importer it runs. */
function githubInputs(): string[] {
  const spec = createRequire(import.meta.url).resolve("@octokit/openapi/generated/api.github.com.json");
  return [spec, join(ROOT, "test/eval/sets/github/catalog.ts"), ...IMPORT_SOURCES];
}

/**
 * CACHE_DIR/NAME-<hash>EXT, made by `make` when missing; its path. The hash is of the catalog's inputs (a changed
 * importer or document makes a new one); `make` writes a private path that is then renamed, so a second eval
 * running at the same time never reads half of it.
 */
async function cached(name: string, ext: string, make: (part: string) => Promise<unknown>, inputs: string[] = githubInputs()): Promise<string> {
  const hash = createHash("sha256");
  for (const f of inputs) hash.update(readFileSync(f));
  const out = join(CACHE_DIR, `${name}-${hash.digest("hex").slice(0, 12)}${ext}`);
  if (existsSync(out)) return out;
  mkdirSync(CACHE_DIR, { recursive: true });
  const part = `${out}.${process.pid}.part`;
  rmSync(part, { recursive: true, force: true });
  await make(part);
  try {
    renameSync(part, out);
  } catch (e) {
    // A folder cannot be renamed over one another eval made meanwhile: keep that one.
    if (!existsSync(out)) throw e;
    rmSync(part, { recursive: true, force: true });
  }
  return out;
}

/** The GitHub REST API catalog as eval JSONL (a registry import without the tags JSONL loading does not read). */
export const githubTools = () => cached("github-tools", ".jsonl", async (part) => writeFileSync(part, toJsonl(await githubCatalog())));

/** The GitHub REST API as the registry folder a user's import writes, with its operationIds (`eval-keys.json`): what `--all` loads. */
export const githubRegistry = () => cached("github-registry", "", (part) => writeGithubRegistry(part));

/** A REST API set of sets/rest-apis.json: its family name, its pinned OpenAPI document and its requests (paths from the root). */
export type RestApiSet = { name: string; spec: string; queries: string; about?: string };

/** The REST API sets nobody tuned for (sets/rest-apis.json). */
export const REST_API_SETS: RestApiSet[] = (JSON.parse(readFileSync(join(ROOT, "test/eval/sets/rest-apis.json"), "utf8")) as { sets: RestApiSet[] }).sets;

/** One of them as the registry folder a user's import writes, with its operationIds (`eval-keys.json`). */
export const apiRegistry = (set: RestApiSet) =>
  cached(`${set.name}-registry`, "", (part) => writeApiRegistry(part, join(ROOT, set.spec), set.name), [join(ROOT, set.spec), ...IMPORT_SOURCES]);
