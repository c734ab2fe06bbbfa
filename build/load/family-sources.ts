// Family sources: each family's tools from the source it names (a folder of tool files, an MCP
// snapshot or a JSONL catalog), with diagnostics and where each tool was defined.
import type { CatalogTool } from "../../registry/contract/artifact.js";
import type { Diagnostic } from "../../registry/contract/diagnostics.js";
import type { FamilyDef } from "../../registry/contract/family.js";
import { verbOf } from "../../registry/contract/names.js";
import type { RegistryFs } from "../registry-fs.js";
import { catalogFromJsonl, parseJsonl, renameFinding } from "../sources/jsonl.js";
import { checkExamples } from "../validate/values.js";
import { toolsFromSnapshot } from "../sources/snapshot.js";
import { toolsFromFile, type ToolEntryResult } from "../sources/tools-folder.js";
import { jsonPath, type Finding, type Segment } from "../validate/finding.js";
import { checkInputSchema } from "../validate/json-schema.js";
import type { SchemaLimits } from "../validate/schema-limits.js";
import { checkSearchHints } from "../validate/search-hints.js";
import { checkToolName } from "../validate/tool.js";
import type { FamilyScope } from "../validate/variables.js";
import type { ParsedFile } from "../yaml.js";
import type { YamlParser } from "../yaml-pool.js";
import { checkVersion, diag, errorText, readParsed } from "./files.js";

/** Where a tool was defined: file, JSON path and line, for collision messages that name both places. */
export type Origin = { file: string; path: string; line?: () => number | undefined };
export const showOrigin = (o: Origin) => {
  const line = o.line?.();
  return `${o.file}${line ? `:${line}` : ""} ${o.path}`;
};

export type FamilyLoad = {
  tools: CatalogTool[];
  /** Where each tool was defined (parallel to `tools`), for collision messages. */
  origins: Origin[];
  /** Named tools left out for their own errors: their names still collide, so one run reports both problems. */
  broken: { name: string; origin: Origin }[];
  diagnostics: Diagnostic[];
  /** Why the family could not load at all (unreadable or unparseable source), if so. */
  failure?: string;
};

export function scopeOf(def: FamilyDef): FamilyScope {
  return {
    name: def.name,
    variables: new Set(Object.keys(def.variables ?? {})),
    ...(def.env ? { env: def.env } : {}),
    ...(def.egress ? { egress: def.egress } : {}),
  };
}

export async function loadFamily(fs: RegistryFs, def: FamilyDef, scope: FamilyScope, parser: YamlParser, limits?: SchemaLimits): Promise<FamilyLoad> {
  const load: FamilyLoad = { tools: [], origins: [], broken: [], diagnostics: [] };
  const collect = (file: string, parsed: ParsedFile, fileFindings: Finding[], entries: ToolEntryResult[]) => {
    load.diagnostics.push(...fileFindings.map((f) => diag(f, { file, lineOf: parsed.lineOf })));
    for (const e of entries) {
      load.diagnostics.push(...e.findings.map((f) => diag(f, { file, tool: e.tool, lineOf: parsed.lineOf })));
      // Lazy: a line costs a main-thread parse of files the worker pool parsed; only collisions need one.
      const at = ["tools", e.index];
      const origin: Origin = { file, path: jsonPath(at), line: () => parsed.lineOf(at) };
      if (e.catalog && !e.findings.some((f) => (f.severity ?? "error") === "error")) {
        load.tools.push(e.catalog);
        load.origins.push(origin);
      } else if (e.tool) {
        load.broken.push({ name: e.tool, origin });
      }
    }
  };
  const readSource = async (file: string) => {
    const r = await readParsed(fs, file, { parser });
    load.diagnostics.push(...r.diagnostics);
    if (!r.parsed || r.parsed.value === undefined) {
      load.failure ??= r.diagnostics[0]?.code === "FILE_UNREADABLE" ? `${file}: ${r.diagnostics[0].message}` : `${file} does not parse`;
      return undefined;
    }
    const version = checkVersion(r.parsed.value);
    if (version.length > 0) {
      load.diagnostics.push(...version.map((f) => diag(f, { file, lineOf: r.parsed!.lineOf })));
      load.failure ??= `${file} has an unsupported format version`;
      return undefined;
    }
    return r.parsed;
  };

  const src = def.source;
  if ("tools" in src) {
    const folder = src.tools.replace(/\/+$/, "");
    let files: string[];
    try {
      files = (await fs.listFiles(folder)).filter((f) => /\.ya?ml$/i.test(f)).sort();
    } catch (e) {
      load.failure = `tools folder \`${folder}\`: ${errorText(e)}`;
      return load;
    }
    if (files.length === 0) {
      load.failure = `tools folder \`${folder}\` has no *.yaml tool files`;
      return load;
    }
    const parsedFiles = await Promise.all(files.map((f) => readSource(`${folder}/${f}`)));
    parsedFiles.forEach((parsed, i) => {
      if (!parsed) return;
      const file = `${folder}/${files[i]}`;
      const { fileFindings, entries } = toolsFromFile(scope, parsed.value, file, limits);
      collect(file, parsed, fileFindings, entries);
    });
  } else if ("mcp" in src) {
    const file = src.mcp.snapshot;
    const parsed = await readSource(file);
    if (!parsed) return load;
    const endpoint = { url: src.mcp.url, ...(src.mcp.headers ? { headers: src.mcp.headers } : {}) };
    const { fileFindings, entries } = toolsFromSnapshot(def.name, parsed.value, endpoint, file, limits);
    if (fileFindings.length > 0) load.failure = `${file} is not a valid snapshot`;
    collect(file, parsed, fileFindings, entries);
  } else {
    await loadJsonlFamily(fs, def, src.jsonl, load, limits);
  }
  return load;
}

async function loadJsonlFamily(fs: RegistryFs, def: FamilyDef, file: string, load: FamilyLoad, limits?: SchemaLimits): Promise<void> {
  let text: string;
  try {
    text = await fs.readText(file);
  } catch (e) {
    load.diagnostics.push({ severity: "error", code: "FILE_UNREADABLE", file, path: "$", message: `cannot read: ${errorText(e)}` });
    load.failure = `${file}: cannot read`;
    return;
  }
  const { tools: rows, errors } = parseJsonl(text);
  for (const e of errors) {
    load.diagnostics.push({
      severity: "error",
      code: "JSON_SYNTAX",
      file,
      path: jsonPath([e.line - 1]),
      message: `line ${e.line}: ${e.message}`,
      line: e.line,
    });
  }
  // Line of each parsed row (parseJsonl keeps valid rows in order and reports the others).
  const bad = new Set(errors.map((e) => e.line));
  const lines: number[] = [];
  text.split("\n").forEach((l, i) => {
    if (l.trim() && !bad.has(i + 1)) lines.push(i + 1);
  });
  const projected = catalogFromJsonl(rows, { family: def.name, familyDescription: def.description, source: file });
  projected.tools.forEach((t, i) => {
    const line = lines[i]!;
    const at = (...rest: Segment[]): Segment[] => [line - 1, ...rest];
    const raw = rows[i]!;
    const findings: Finding[] = [
      ...checkToolName(def.name, verbOf(t.name), at("name")),
      // A name changed to fit the name policy is said, with the old and the new name.
      ...renameFinding(raw, at("name")),
      ...(raw.input_schema ? checkInputSchema(raw.input_schema, at("input_schema"), "lenient", limits) : []),
      // An imported catalog's examples that break their own schema: a warning, as for snapshots.
      ...(raw.input_schema ? checkExamples(raw.input_schema, at("input_schema"), "warning") : []),
      ...checkSearchHints(t).map((f) => ({ ...f, at: at(...f.at) })),
      ...(["examples", "aliases"] as const)
        .filter((k) => raw[k] !== undefined && !(Array.isArray(raw[k]) && raw[k].every((x) => typeof x === "string")))
        .map((k) => ({ code: "INVALID_VALUE" as const, at: at(k), message: `\`${k}\` must be a list of strings` })),
    ];
    load.diagnostics.push(...findings.map((f) => ({ ...diag(f, { file, tool: t.name }), line })));
    if (!findings.some((f) => (f.severity ?? "error") === "error")) {
      load.tools.push(t);
      load.origins.push({ file, path: jsonPath([line - 1]), line: () => line });
    }
  });
}
