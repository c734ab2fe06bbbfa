// Add a family entry to families.yaml without disturbing its comments or layout (pull and import use it).
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { isMap, isSeq, parseDocument } from "yaml";
import type { FamilySource, FamilyVariable } from "../registry/contract/family.js";
import { FAMILY_NAME_RE } from "../registry/contract/names.js";
import { FAMILIES_FILE } from "./load.js";

export type NewFamily = {
  name: string;
  description: string;
  required?: boolean;
  source: FamilySource;
  /** The `${NAME}`s its source reads (the family sees no others). */
  variables?: Record<string, Partial<FamilyVariable>>;
};

export function assertFamilyName(name: string): void {
  if (!FAMILY_NAME_RE.test(name)) {
    throw new Error(`family name \`${name}\` must be lower-case letters, digits, \`-\` or \`_\`, starting with a letter`);
  }
}

/**
 * Append the family unless one of that name exists; a same-named family with another source is refused
 * (the registry would silently change where a family comes from). Returns whether the file changed.
 */
export async function addFamily(registry: string, family: NewFamily): Promise<boolean> {
  const path = join(registry, FAMILIES_FILE);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch {
    text = "version: 1\nfamilies: []\n";
  }
  const doc = parseDocument(text, { uniqueKeys: true });
  if (doc.errors.length > 0) throw new Error(`${path}: ${doc.errors[0]!.message.split("\n")[0]}: fix it before adding a family`);
  if (!isMap(doc.contents)) throw new Error(`${path} is not a mapping`);
  let seq = doc.get("families");
  if (!isSeq(seq)) {
    seq = doc.createNode([]);
    doc.set("families", seq);
  }
  const list = seq as { items: unknown[] };
  for (const item of list.items) {
    if (isMap(item) && item.get("name") === family.name) {
      const existing = JSON.stringify((item.toJSON() as { source?: unknown }).source);
      if (existing === JSON.stringify(family.source)) return false;
      throw new Error(`family \`${family.name}\` already exists in ${path} with source ${existing}`);
    }
  }
  const entry: Record<string, unknown> = { name: family.name, description: family.description };
  if (family.required === false) entry.required = false;
  entry.source = family.source;
  if (family.variables && Object.keys(family.variables).length > 0) entry.variables = family.variables;
  list.items.push(doc.createNode(entry));
  await writeFile(path, doc.toString());
  return true;
}
