// Eval catalogs generated from a pinned document rather than committed (the GitHub REST API set: about
// 1.5 MB of JSONL). Each is written once into test/eval/.cache/ (git-ignored) and read from there after.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { githubCatalog, toJsonl } from "./sets/github/catalog.js";
import { ROOT } from "./suite.js";

export const CACHE_DIR = join(ROOT, "test/eval/.cache");

/** The GitHub set's requests (dev split; the held-out split is not in the tree). */
export const GITHUB_QUERIES = join(ROOT, "test/eval/sets/github/queries.jsonl");

/** What the GitHub catalog is made from: the pinned document, the set's generator and the importer it runs. */
function githubInputs(): string[] {
  const spec = createRequire(import.meta.url).resolve("@octokit/openapi/generated/api.github.com.json");
  const sources = [
    "test/eval/sets/github/catalog.ts",
    "build/import-openapi.ts",
    "build/openapi/operations.ts",
    "build/openapi/refs.ts",
    "build/openapi/schema.ts",
  ];
  return [spec, ...sources.map((f) => join(ROOT, f))];
}

/**
 * The GitHub REST API catalog as eval JSONL, generated into the cache when missing; its path. The file is
 * named by a hash of its inputs (a changed importer or document makes a new one) and written whole, then
 * renamed, so a second eval running at the same time never reads half a file.
 */
export async function githubTools(): Promise<string> {
  const hash = createHash("sha256");
  for (const f of githubInputs()) hash.update(readFileSync(f));
  const file = join(CACHE_DIR, `github-tools-${hash.digest("hex").slice(0, 12)}.jsonl`);
  if (!existsSync(file)) {
    mkdirSync(CACHE_DIR, { recursive: true });
    const part = `${file}.${process.pid}.part`;
    writeFileSync(part, toJsonl(await githubCatalog()));
    renameSync(part, file);
  }
  return file;
}
