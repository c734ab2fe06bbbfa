// `registry:migrate`: bring every file the registry names to the current format version.
// Migrations are keyed by the version they upgrade FROM; each rewrites a document to the next version.
import { readFile, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { isMap, isNode, parseDocument, type Document } from "yaml";
import { FORMAT_VERSION } from "../registry/contract/tool.js";
import { BRIEFS_DIR, FAMILIES_FILE, POLICY_EXAMPLE_FILE, POLICY_FILE } from "./load.js";
import { isRecord } from "./validate/finding.js";

/** Plain-data form of a file, upgraded in place from version `n` to `n + 1`. */
export type Migration = (data: Record<string, unknown>, kind: FileKind) => void;
export type FileKind = "families" | "tools" | "brief" | "policy" | "snapshot";

/** Version 1 is the first format: nothing to upgrade yet. Add `1: (data, kind) => {...}` when 2 exists. */
export const MIGRATIONS: Record<number, Migration> = {};

export type MigrateResult = {
  scanned: number;
  /** `from` is undefined when the file had no `version` (read as 1). */
  changed: { file: string; from?: number; to: number }[];
  problems: { file: string; message: string }[];
};

/** Upgrade one parsed file; returns the version it was in, or an error message. */
export function migrateData(data: Record<string, unknown>, kind: FileKind, target = FORMAT_VERSION): { from: number } | { error: string } {
  const raw = data.version;
  const from = raw === undefined ? 1 : raw;
  if (typeof from !== "number" || !Number.isInteger(from) || from < 1) return { error: `version ${JSON.stringify(raw)} is not a positive integer` };
  if (from > target) return { error: `version ${from} is newer than this build (${target})` };
  for (let v = from; v < target; v++) {
    const step = MIGRATIONS[v];
    if (!step) return { error: `no migration from version ${v}` };
    step(data, kind);
  }
  return { from };
}

export async function migrateRegistry(dir: string, opts: { write: boolean }): Promise<MigrateResult> {
  const result: MigrateResult = { scanned: 0, changed: [], problems: [] };
  const files: { file: string; kind: FileKind }[] = [{ file: FAMILIES_FILE, kind: "families" }];
  const families = await readYamlData(join(dir, FAMILIES_FILE));
  for (const f of isRecord(families) && Array.isArray(families.families) ? families.families : []) {
    const src = isRecord(f) && isRecord(f.source) ? f.source : {};
    if (typeof src.tools === "string") {
      for (const name of await listYaml(join(dir, src.tools))) files.push({ file: `${src.tools.replace(/\/+$/, "")}/${name}`, kind: "tools" });
    } else if (isRecord(src.mcp) && typeof src.mcp.snapshot === "string") {
      files.push({ file: src.mcp.snapshot, kind: "snapshot" });
    }
  }
  for (const name of await listYaml(join(dir, BRIEFS_DIR))) files.push({ file: `${BRIEFS_DIR}/${name}`, kind: "brief" });
  files.push({ file: POLICY_FILE, kind: "policy" }, { file: POLICY_EXAMPLE_FILE, kind: "policy" });

  for (const { file, kind } of files) {
    let text: string;
    try {
      text = await readFile(join(dir, file), "utf8");
    } catch {
      if (kind !== "policy") result.problems.push({ file, message: "cannot read" });
      continue;
    }
    result.scanned++;
    const json = /\.json$/i.test(file);
    let doc: Document | undefined;
    let data: unknown;
    try {
      if (json) data = JSON.parse(text);
      else {
        doc = parseDocument(text, { uniqueKeys: true });
        if (doc.errors.length > 0) throw new Error(doc.errors[0]!.message.split("\n")[0]);
        data = doc.toJS();
      }
    } catch (e) {
      result.problems.push({ file, message: `does not parse: ${(e as Error).message}` });
      continue;
    }
    if (!isRecord(data)) {
      result.problems.push({ file, message: "is not a mapping" });
      continue;
    }
    const hadVersion = data.version !== undefined;
    const outcome = migrateData(data, kind);
    if ("error" in outcome) {
      result.problems.push({ file, message: outcome.error });
      continue;
    }
    if (hadVersion && outcome.from === FORMAT_VERSION) continue;
    result.changed.push({ file, ...(hadVersion ? { from: outcome.from } : {}), to: FORMAT_VERSION });
    if (!opts.write) continue;
    const { version: _old, ...rest } = data;
    const upgraded = { version: FORMAT_VERSION, ...rest };
    if (json) await writeFile(join(dir, file), JSON.stringify(upgraded, null, 2) + "\n");
    else if (outcome.from === FORMAT_VERSION && doc && isMap(doc.contents)) {
      // Only the version is missing: add it on top and keep comments and layout.
      const pair = doc.createPair("version", FORMAT_VERSION);
      // A leading comment belongs to the file, not to its first key: keep it on top.
      const firstKey = doc.contents.items[0]?.key;
      if (isNode(firstKey) && firstKey.commentBefore && isNode(pair.key)) {
        pair.key.commentBefore = firstKey.commentBefore;
        firstKey.commentBefore = undefined;
      }
      doc.contents.items.unshift(pair as (typeof doc.contents.items)[number]);
      await writeFile(join(dir, file), doc.toString());
    } else {
      const fresh = parseDocument("");
      fresh.contents = fresh.createNode(upgraded) as typeof fresh.contents;
      fresh.commentBefore = doc?.commentBefore ?? null;
      await writeFile(join(dir, file), fresh.toString());
    }
  }
  return result;
}

async function readYamlData(path: string): Promise<unknown> {
  try {
    return parseDocument(await readFile(path, "utf8")).toJS();
  } catch {
    return undefined;
  }
}

async function listYaml(path: string): Promise<string[]> {
  try {
    return (await readdir(path, { withFileTypes: true }))
      .filter((e) => e.isFile() && /\.ya?ml$/i.test(e.name))
      .map((e) => e.name)
      .sort();
  } catch {
    return [];
  }
}
