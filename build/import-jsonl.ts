// `registry:import`: add a family from a JSONL catalog (the format of the evaluation sets' tools.jsonl).
// The file is copied into `<registry>/catalogs/` so the registry stays self-contained, then listed.
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { assertFamilyName, upsertFamily, type FamilyEdit } from "./families-edit.js";
import { parseJsonl, renamedTools } from "./sources/jsonl.js";
import { printable } from "../registry/contract/printable.js";
import { firstSentence } from "./validate/description.js";

export type ImportOptions = { jsonl: string; family: string; registry: string; description?: string; required?: boolean; replace?: boolean };

export type JsonlImport = {
  file: string;
  tools: number;
  familyAdded: boolean;
  family: FamilyEdit;
  /** Catalog names served under another name. */
  renamed: { from: string; to: string }[];
};

export async function importJsonl(o: ImportOptions): Promise<JsonlImport> {
  assertFamilyName(o.family);
  const text = await readFile(o.jsonl, "utf8");
  const { tools, errors } = parseJsonl(text);
  if (errors.length > 0) {
    throw new Error(`${o.jsonl}: ${errors.length} bad line(s), first at line ${errors[0]!.line}: ${errors[0]!.message}`);
  }
  if (tools.length === 0) throw new Error(`${o.jsonl} has no tools`);
  const rel = `catalogs/${o.family}.jsonl`;
  const file = join(o.registry, rel);
  await mkdir(join(o.registry, "catalogs"), { recursive: true });
  await writeFile(file, text.endsWith("\n") ? text : text + "\n");
  const fromServer = tools.find((t) => t.server_description)?.server_description;
  const description = o.description ?? (fromServer ? printable(firstSentence(fromServer)) : `Tools imported from the ${o.family} catalog.`);
  const family = await upsertFamily(
    o.registry,
    {
      name: o.family,
      description,
      ...(o.required === false ? { required: false } : {}),
      source: { jsonl: rel },
    },
    { replace: o.replace ?? false },
  );
  const renamed = renamedTools(tools).map(({ from, to }) => ({ from, to: `${o.family}.${to}` }));
  return { file, tools: tools.length, familyAdded: family === "added", family, renamed };
}
