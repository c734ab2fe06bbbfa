// The GitHub REST API as an eval catalog: the pinned OpenAPI description imported by the project's own
// importer (what `npm run registry:import-openapi` writes for a user), keyed by operationId so gold labels
// name operations, not tool names the importer may change. Two forms: the imported registry folder itself
// (what the eval loads, as a user's build does) with its operationIds beside it, and JSONL.
// `npx tsx test/eval/sets/github/catalog.ts OUT.jsonl` writes the JSONL; `… --registry DIR` the folder.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { JsonlTool } from "../../../../build/sources/jsonl.js";
import { importApi, writeApiRegistry } from "../openapi-catalog.js";

export const GITHUB_SPEC = join(import.meta.dirname, "../../../../node_modules/@octokit/openapi/generated/api.github.com.json");
const FAMILY = "github";

/** A catalog line: the JSONL tool plus the tags the importer writes (a registry build indexes them; JSONL loading does not). */
export type GithubTool = JsonlTool & { id: string; family: string; tags?: string[] };

/** Imports the document into the folder REGISTRY (created when missing); see openapi-catalog.ts. */
const importGithub = (registry: string, spec: string) => importApi(registry, spec, FAMILY);

/**
 * The imported registry folder in DIR, as a user's import leaves it, plus `eval-keys.json` (full tool name →
 * operationId) so `loadRegistry` scores gold operationIds; the build does not read that file.
 */
export const writeGithubRegistry = (dir: string, spec: string = GITHUB_SPEC): Promise<number> => writeApiRegistry(dir, spec, FAMILY);

/** The imported operations as JSONL tools, in the importer's order (by tool name): the same document gives the same lines. */
export async function githubCatalog(spec: string = GITHUB_SPEC): Promise<GithubTool[]> {
  const registry = await mkdtemp(join(tmpdir(), "github-catalog-"));
  try {
    const { tools, familyDescription } = await importGithub(registry, spec);
    return tools.map((t) => ({
      id: t.id,
      name: t.name,
      description: t.description,
      input_schema: t.input_schema,
      family: FAMILY,
      ...(familyDescription ? { server_description: familyDescription } : {}),
      ...(t.tags?.length ? { tags: t.tags } : {}),
    }));
  } finally {
    await rm(registry, { recursive: true, force: true });
  }
}

export const toJsonl = (tools: readonly GithubTool[]) => tools.map((t) => JSON.stringify(t)).join("\n") + "\n";

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const [first, second, third] = process.argv.slice(2);
  if (!first || (first === "--registry" && !second)) {
    console.error("usage: npx tsx test/eval/sets/github/catalog.ts (OUT.jsonl | --registry NEW_DIR) [OPENAPI_DOCUMENT]");
    process.exit(2);
  }
  if (first === "--registry") console.log(`${second}: ${await writeGithubRegistry(second!, third ?? GITHUB_SPEC)} tools`);
  else {
    const tools = await githubCatalog(second ?? GITHUB_SPEC);
    await writeFile(first, toJsonl(tools));
    console.log(`${first}: ${tools.length} tools`);
  }
}
