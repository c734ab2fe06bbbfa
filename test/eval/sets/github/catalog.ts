// The GitHub REST API as an eval catalog: the pinned OpenAPI description imported by the project's own
// importer (what `npm run registry:import-openapi` writes for a user), one JSONL tool per imported operation,
// keyed by operationId so gold labels name operations, not tool names the importer may change.
// `npx tsx test/eval/sets/github/catalog.ts OUT.jsonl` writes it; the file is large, so it is not committed.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parse } from "yaml";
import { importOpenApi } from "../../../../build/import-openapi.js";
import type { JsonlTool } from "../../../../build/sources/jsonl.js";
import { fullName } from "../../../../registry/contract/names.js";

export const GITHUB_SPEC = join(import.meta.dirname, "../../../../node_modules/@octokit/openapi/generated/api.github.com.json");
const FAMILY = "github";

/** A catalog line: the JSONL tool plus the tags the importer writes (a registry build indexes them; JSONL loading does not yet). */
export type GithubTool = JsonlTool & { id: string; family: string; tags?: string[] };

type ImportedTool = { name: string; description: string; input_schema: Record<string, unknown>; tags?: string[] };

/** The imported operations as JSONL tools, in the importer's order (by tool name): the same document gives the same lines. */
export async function githubCatalog(spec: string = GITHUB_SPEC): Promise<GithubTool[]> {
  const registry = await mkdtemp(join(tmpdir(), "github-catalog-"));
  try {
    const imported = await importOpenApi({ spec, family: FAMILY, registry });
    const file = parse(await readFile(imported.file, "utf8")) as { tools: ImportedTool[] };
    const families = parse(await readFile(join(registry, "families.yaml"), "utf8")) as { families: { name: string; description: string }[] };
    const familyDescription = families.families.find((f) => f.name === FAMILY)?.description;
    // Every tool whose verb is not its operationId is listed as renamed; the others kept it.
    const operationOf = new Map(imported.renamed.map((r) => [r.to, r.from]));
    return file.tools.map((t) => ({
      id: operationOf.get(fullName(FAMILY, t.name)) ?? t.name,
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
  const out = process.argv[2];
  if (!out) {
    console.error("usage: npx tsx test/eval/sets/github/catalog.ts OUT.jsonl [OPENAPI_DOCUMENT]");
    process.exit(2);
  }
  const tools = await githubCatalog(process.argv[3] ?? GITHUB_SPEC);
  await writeFile(out, toJsonl(tools));
  console.log(`${out}: ${tools.length} tools`);
}
