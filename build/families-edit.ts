// Add or replace one family entry of families.yaml, changing only that entry's text: the rest of the
// file (comments, anchors, flow maps, long lines) stays byte for byte. pull and the imports use it.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { isMap, isScalar, isSeq, parseDocument, stringify, type YAMLMap } from "yaml";
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
  /** Origins its http tools may reach. */
  egress?: string[];
};

export function assertFamilyName(name: string): void {
  if (!FAMILY_NAME_RE.test(name)) {
    throw new Error(`family name \`${name}\` must be lower-case letters, digits, \`-\` or \`_\`, starting with a letter`);
  }
}

/**
 * `added`: appended; `unchanged`: a family of that name with the same source exists; `replaced`: `replace`
 * rewrote its entry; `updated`: `refresh` changed scalars of its entry in place.
 */
export type FamilyEdit = "added" | "unchanged" | "replaced" | "updated";

/** A scalar of the family's entry to set, by its path inside the entry (`["source", "mcp", "url"]`). */
export type ScalarEdit = { path: string[]; value: string };

export type UpsertOptions = {
  /** Rewrite an existing entry of that name whatever its source. */
  replace?: boolean;
  /** For an existing entry with another source: the scalar edits that make it this family's (a re-pull from a new URL), or undefined to refuse. */
  refresh?: (existing: Record<string, unknown>) => ScalarEdit[] | undefined;
};

function entryOf(family: NewFamily): Record<string, unknown> {
  const entry: Record<string, unknown> = { name: family.name, description: family.description };
  if (family.required === false) entry.required = false;
  entry.source = family.source;
  if (family.egress) entry.egress = family.egress;
  if (family.variables && Object.keys(family.variables).length > 0) entry.variables = family.variables;
  return entry;
}

/** The entry as a block sequence item whose dash sits at column `indent`. */
function itemText(family: NewFamily, indent: number): string {
  const pad = " ".repeat(indent);
  return stringify([entryOf(family)], { lineWidth: 0 })
    .trimEnd()
    .split("\n")
    .map((l) => pad + l)
    .join("\n")
    .concat("\n");
}

const columnOf = (text: string, offset: number) => offset - (text.lastIndexOf("\n", offset - 1) + 1);

/**
 * Append the family unless one of that name exists. A same-named family with another source is refused
 * (the registry would silently change where a family comes from) unless `replace` is set, which rewrites
 * that entry in place.
 */
export async function upsertFamily(registry: string, family: NewFamily, opts: UpsertOptions = {}): Promise<FamilyEdit> {
  const path = join(registry, FAMILIES_FILE);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch {
    text = "version: 1\nfamilies: []\n";
  }
  const doc = parseDocument(text, { uniqueKeys: true, keepSourceTokens: true });
  if (doc.errors.length > 0) throw new Error(`${path}: ${doc.errors[0]!.message.split("\n")[0]}: fix it before adding a family`);
  if (!isMap(doc.contents)) throw new Error(`${path} is not a mapping`);
  const seq = doc.get("families", true);
  const items = isSeq(seq) ? seq.items : [];
  const existing = items.find((item): item is YAMLMap => isMap(item) && item.get("name") === family.name);
  let next: string;
  if (existing) {
    const current = existing.toJSON() as Record<string, unknown>;
    const source = JSON.stringify(current.source);
    if (!opts.replace && source === JSON.stringify(family.source)) return "unchanged";
    const edits = opts.replace ? undefined : opts.refresh?.(current);
    if (edits) return writeChecked(path, setScalars(text, existing, edits, path), "updated");
    if (!opts.replace) throw new Error(`family \`${family.name}\` already exists in ${path} with source ${source}: pass --replace to replace it`);
    const [start, end] = existing.range!;
    // The item's text starts after `- `: the dash is two columns left of it.
    const replacement = itemText(family, columnOf(text, start) - 2)
      .trimStart()
      .slice(2);
    next = text.slice(0, start) + replacement + text.slice(end);
  } else if (isSeq(seq) && !seq.flow && items.length > 0) {
    const last = items[items.length - 1] as YAMLMap;
    const end = last.range![1];
    const gap = items.length > 1 ? text.slice((items[items.length - 2] as YAMLMap).range![1], last.range![0]) : "";
    const head = text.slice(0, end) + (text.slice(0, end).endsWith("\n") ? "" : "\n");
    next = head + (/\n\s*\n/.test(`\n${gap}`) ? "\n" : "") + itemText(family, columnOf(text, last.range![0]) - 2) + text.slice(end);
  } else {
    // No block list to append to (a new file, `families: []`): this one edit rewrites the list.
    doc.set("families", doc.createNode([...items.map((i) => (isMap(i) ? i.toJSON() : i)), entryOf(family)]));
    next = doc.toString({ lineWidth: 0 });
  }
  return writeChecked(path, next, existing ? "replaced" : "added");
}

async function writeChecked(path: string, next: string, edit: FamilyEdit): Promise<FamilyEdit> {
  const check = parseDocument(next, { uniqueKeys: true });
  if (check.errors.length > 0) throw new Error(`${path}: the edit would make the file invalid (${check.errors[0]!.message.split("\n")[0]}); nothing written`);
  await writeFile(path, next);
  return edit;
}

/** Each scalar's source text replaced by the new value (plain when YAML reads it back unchanged, else double-quoted). */
function setScalars(text: string, entry: YAMLMap, edits: ScalarEdit[], path: string): string {
  const spans = edits.map((e) => {
    const node = entry.getIn(e.path, true);
    if (!isScalar(node) || !node.range)
      throw new Error(`${path}: \`${e.path.join(".")}\` of the family is not a plain value; edit it by hand or pass --replace`);
    const plain = stringify(e.value, { lineWidth: 0 }).trimEnd();
    return { start: node.range[0], end: node.range[1], text: plain.includes("\n") ? JSON.stringify(e.value) : plain };
  });
  let out = text;
  for (const s of spans.sort((a, b) => b.start - a.start)) out = out.slice(0, s.start) + s.text + out.slice(s.end);
  return out;
}

/** Append the family unless one of that name exists (see upsertFamily). Returns whether the file changed. */
export async function addFamily(registry: string, family: NewFamily): Promise<boolean> {
  return (await upsertFamily(registry, family)) === "added";
}
