// Eval catalogs generated from a pinned document rather than committed (the GitHub REST API set: about
// 1.5 MB of JSONL). Each is written once into test/eval/.cache/ (git-ignored) and read from there after.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { githubCatalog, toJsonl } from "./sets/github/catalog.js";
import { ROOT } from "./suite.js";

export const CACHE_DIR = join(ROOT, "test/eval/.cache");

/** The GitHub set's requests (dev split; the held-out split is not in the tree). */
export const GITHUB_QUERIES = join(ROOT, "test/eval/sets/github/queries.jsonl");

/** The GitHub REST API catalog as eval JSONL, generated into the cache when missing; its path. */
export async function githubTools(): Promise<string> {
  const file = join(CACHE_DIR, "github-tools.jsonl");
  if (!existsSync(file)) {
    mkdirSync(CACHE_DIR, { recursive: true });
    writeFileSync(file, toJsonl(await githubCatalog()));
  }
  return file;
}
