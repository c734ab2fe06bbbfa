// A REST API as an eval catalog: a pinned OpenAPI document imported by the project's own importer (what
// `npm run registry:import-openapi` writes for a user), keyed by operationId so gold labels name operations,
// not tool names the importer may change. The GitHub set (sets/github/) and the blind sets on APIs nobody
// tuned for (sets/rest-apis.json) are read through it.
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { parse } from "yaml";
import { importOpenApi } from "../../../build/import-openapi.js";
import { fullName } from "../../../registry/contract/names.js";
import { EVAL_KEYS } from "../harness.js";

export type ImportedTool = { id: string; name: string; description: string; input_schema: Record<string, unknown>; tags?: string[] };

/**
 * Imports the document SPEC (a `.json.gz` is unpacked first) as family FAMILY into the folder REGISTRY (created
 * when missing) and reads back what it wrote, with each tool's operationId and the family's description.
 */
export async function importApi(registry: string, spec: string, family: string): Promise<{ tools: ImportedTool[]; familyDescription?: string }> {
  await mkdir(registry, { recursive: true });
  const scratch = spec.endsWith(".gz") ? await mkdtemp(join(tmpdir(), "openapi-")) : undefined;
  try {
    const path = scratch ? join(scratch, "openapi.json") : spec;
    if (scratch) await writeFile(path, gunzipSync(await readFile(spec)));
    const imported = await importOpenApi({ spec: path, family, registry });
    const file = parse(await readFile(imported.file, "utf8")) as { tools: Omit<ImportedTool, "id">[] };
    const families = parse(await readFile(join(registry, "families.yaml"), "utf8")) as { families: { name: string; description: string }[] };
    // Every tool whose name is not its operationId is listed as renamed; the others kept it.
    const operationOf = new Map(imported.renamed.map((r) => [r.to, r.from]));
    const description = families.families.find((f) => f.name === family)?.description;
    return {
      tools: file.tools.map((t) => ({ ...t, id: operationOf.get(fullName(family, t.name)) ?? t.name })),
      ...(description ? { familyDescription: description } : {}),
    };
  } finally {
    if (scratch) await rm(scratch, { recursive: true, force: true });
  }
}

/**
 * The imported registry folder in DIR, as a user's import leaves it, plus `eval-keys.json` (full tool name →
 * operationId) so `loadRegistry` scores gold operationIds; the build does not read that file. The tool count.
 */
export async function writeApiRegistry(dir: string, spec: string, family: string): Promise<number> {
  const { tools } = await importApi(dir, spec, family);
  await writeFile(join(dir, EVAL_KEYS), `${JSON.stringify(Object.fromEntries(tools.map((t) => [fullName(family, t.name), t.id])), null, 1)}\n`);
  return tools.length;
}
