// Load a registry: read the family list, load each family from the source it names, validate every rule,
// project to catalog tools, and report every problem at once. Never throws on bad input.
import type { Catalog, CatalogTool, FamilyInfo } from "../registry/contract/artifact.js";
import { BriefFile } from "../registry/contract/brief.js";
import type { Diagnostic } from "../registry/contract/diagnostics.js";
import { DEFAULT_ALWAYS_LOADED, FamiliesFile, FamilyDef, type FamilySource, FamilyVariable, JsonlSource, McpSource, ToolsSource } from "../registry/contract/family.js";
import { FAMILY_NAME_RE, canonicalName, familyOf, verbOf } from "../registry/contract/names.js";
import { modelName } from "../registry/contract/names.js";
import { PolicyFile, Principal } from "../registry/contract/policy.js";
import { FORMAT_VERSION } from "../registry/contract/tool.js";
import { globMatcher } from "../registry/contract/globs.js";
import { diskFs, isSafeRelativePath, type RegistryFs } from "./registry-fs.js";
import { catalogFromJsonl, parseJsonl } from "./sources/jsonl.js";
import { toolsFromSnapshot } from "./sources/snapshot.js";
import { toolsFromFile, type ToolEntryResult } from "./sources/tools-folder.js";
import { checkDescription } from "./validate/description.js";
import { isRecord, jsonPath, type Finding, type Segment } from "./validate/finding.js";
import { closest, issuesToFindings } from "./validate/issues.js";
import { checkInputSchema } from "./validate/json-schema.js";
import { checkNamedValues, checkUrl } from "./validate/secrets.js";
import { checkNoTemplate } from "./validate/templates.js";
import { checkToolName } from "./validate/tool.js";
import { checkVariableNames, checkVariableRefs, type FamilyScope } from "./validate/variables.js";
import { parseJson, parseYaml, type ParsedFile } from "./yaml.js";
import { YamlParser } from "./yaml-pool.js";

export const FAMILIES_FILE = "families.yaml";
export const BRIEFS_DIR = "briefs";
export const POLICY_FILE = "policy.yaml";
/** A sample policy shipped beside the registry is checked like the real one, so it cannot rot. */
export const POLICY_EXAMPLE_FILE = "policy.example.yaml";
/** File format versions this build reads; older ones are brought up by `registry:migrate`. */
export const SUPPORTED_VERSIONS: readonly number[] = [FORMAT_VERSION];
/** Examples per family in the capability manifest. */
const EXAMPLES_PER_FAMILY = 5;

export type LoadedBrief = BriefFile & { file: string };

export type LoadedRegistry = {
  catalog: Catalog;
  alwaysLoaded: string[];
  skippedFamilies: string[];
  briefs: LoadedBrief[];
  /** The registry's `policy.yaml`, when it has one. */
  policy?: PolicyFile;
  diagnostics: Diagnostic[];
  /** No error-severity diagnostic: the registry may be built and deployed. */
  ok: boolean;
};

export type LoadOptions = {
  fs?: RegistryFs;
  /** Worker threads for YAML parsing of large registries; 0 parses on the main thread. Default: cores, at most 4. */
  parseWorkers?: number;
};

type Located = { file: string; tool?: string; lineOf?: ParsedFile["lineOf"]; base?: Segment[] };

function diag(f: Finding, loc: Located, severity: Diagnostic["severity"] = f.severity ?? "error"): Diagnostic {
  const at = [...(loc.base ?? []), ...f.at];
  const line = loc.lineOf?.(at);
  return {
    severity,
    code: f.code,
    file: loc.file,
    ...(loc.tool ? { tool: loc.tool } : {}),
    path: jsonPath(at),
    message: f.message,
    ...(line ? { line } : {}),
  };
}

const isError = (d: Diagnostic) => d.severity === "error";

// "Did you mean" candidates for unknown keys in the family list, briefs and policies.
const FAMILIES_KEYS = [
  ...Object.keys(FamiliesFile.shape),
  ...Object.keys(FamilyDef.shape),
  ...Object.keys(ToolsSource.shape),
  ...Object.keys(McpSource.shape),
  ...Object.keys(McpSource.shape.mcp.shape),
  ...Object.keys(JsonlSource.shape),
  ...Object.keys(FamilyVariable.shape),
];
const suggestFrom = (keys: readonly string[]) => (key: string) => closest(key, keys);

/** A file's `version`: omitted means 1; a version this build does not read stops the file. */
export function checkVersion(value: unknown): Finding[] {
  if (!isRecord(value) || value.version === undefined) return [];
  const v = value.version;
  if (typeof v === "number" && Number.isInteger(v) && v > 0 && !SUPPORTED_VERSIONS.includes(v)) {
    const hint = v < FORMAT_VERSION ? "run `npm run registry:migrate`" : `this build reads version ${SUPPORTED_VERSIONS.join(", ")}`;
    return [{ code: "UNSUPPORTED_VERSION", at: ["version"], message: `format version ${v} is not supported: ${hint}` }];
  }
  return [];
}

async function readParsed(fs: RegistryFs, file: string, parser?: YamlParser): Promise<{ parsed?: ParsedFile; diagnostics: Diagnostic[] }> {
  let text: string;
  try {
    text = await fs.readText(file);
  } catch (e) {
    return { diagnostics: [{ severity: "error", code: "FILE_UNREADABLE", file, path: "$", message: `cannot read: ${errorText(e)}` }] };
  }
  const parsed = /\.json$/i.test(file) ? parseJson(text, file) : parser ? await parser.parse(text, file) : parseYaml(text, file);
  return { parsed, diagnostics: parsed.diagnostics };
}

function errorText(e: unknown): string {
  const err = e as { code?: string; message?: string };
  return err.code === "ENOENT" ? "no such file or folder" : err.code === "ENOTDIR" ? "not a folder" : (err.message ?? String(e));
}

/** Where a tool was defined: file, JSON path and line, for collision messages that name both places. */
type Origin = { file: string; path: string; line?: () => number | undefined };
const showOrigin = (o: Origin) => {
  const line = o.line?.();
  return `${o.file}${line ? `:${line}` : ""} ${o.path}`;
};

type FamilyLoad = {
  tools: CatalogTool[];
  /** Where each tool was defined (parallel to `tools`), for collision messages. */
  origins: Origin[];
  diagnostics: Diagnostic[];
  /** Why the family could not load at all (unreadable or unparseable source), if so. */
  failure?: string;
};

export async function loadRegistry(dir: string, opts: LoadOptions = {}): Promise<LoadedRegistry> {
  const fs = opts.fs ?? diskFs(dir);
  const diagnostics: Diagnostic[] = [];
  const empty = (): LoadedRegistry => ({
    catalog: { families: [], tools: [] },
    alwaysLoaded: [],
    skippedFamilies: [],
    briefs: [],
    diagnostics,
    ok: false,
  });

  const read = await readParsed(fs, FAMILIES_FILE);
  diagnostics.push(...read.diagnostics);
  if (!read.parsed || read.parsed.value === undefined) return empty();
  const { value, lineOf } = read.parsed;
  const top: Located = { file: FAMILIES_FILE, lineOf };
  const versionProblems = checkVersion(value);
  if (versionProblems.length > 0) {
    diagnostics.push(...versionProblems.map((f) => diag(f, top)));
    return empty();
  }

  // Problems in one family entry must not hide the others: validate entries one by one.
  const rawFamilies = isRecord(value) && Array.isArray(value.families) ? value.families : [];
  const sourceChecked = new Set<number>();
  rawFamilies.forEach((raw, i) => {
    const all = isRecord(raw) && isRecord(raw.source) ? Object.keys(raw.source) : undefined;
    const keys = all?.filter((k) => ["tools", "mcp", "jsonl"].includes(k));
    if (all && keys && keys.length !== 1) {
      sourceChecked.add(i);
      const found = all.length ? ` (found ${all.map((k) => `\`${k}\``).join(", ")})` : "";
      const hint = keys.length === 0 && all.length === 1 ? closest(all[0]!, ["tools", "mcp", "jsonl"]) : undefined;
      diagnostics.push(
        diag(
          {
            code: keys.length === 0 ? "MISSING_FIELD" : "INVALID_VALUE",
            at: ["families", i, "source"],
            message: `a family \`source\` names exactly one of \`tools\`, \`mcp\`, \`jsonl\`${found}${hint ? `: did you mean \`${hint}\`?` : ""}`,
          },
          top,
        ),
      );
    }
  });
  const shell = FamiliesFile.safeParse(value);
  if (!shell.success) {
    for (const f of issuesToFindings(shell.error.issues, value, suggestFrom(FAMILIES_KEYS))) {
      if (f.at[0] === "families" && typeof f.at[1] === "number" && f.at[2] === "source" && sourceChecked.has(f.at[1])) continue;
      diagnostics.push(diag(f, top));
    }
  }

  const defs: { def: FamilyDef; index: number }[] = [];
  const familyNames = new Map<string, number>();
  rawFamilies.forEach((raw, index) => {
    const parsed = FamilyDef.safeParse(raw);
    if (!parsed.success) return;
    const def = parsed.data;
    const at = (...rest: Segment[]) => ["families", index, ...rest];
    const problems: Finding[] = [];
    if (!FAMILY_NAME_RE.test(def.name)) {
      problems.push({ code: "BAD_NAME", at: at("name"), message: `family name \`${def.name}\` must be lower-case letters, digits, \`-\` or \`_\`, starting with a letter, at most 64 characters` });
    }
    const canon = canonicalName(def.name);
    const prior = familyNames.get(canon);
    if (prior !== undefined) {
      problems.push({ code: "NAME_COLLISION", at: at("name"), message: `family \`${def.name}\` collides with the family at $.families[${prior}]` });
    } else familyNames.set(canon, index);
    problems.push(...checkDescription(def.description, at("description")).map((f) => ({ ...f, message: f.message.replace("the tool", "the family") })));
    problems.push(...checkSource(def.source, at("source")));
    problems.push(...checkFamilyVariables(def, at));
    diagnostics.push(...problems.map((f) => diag(f, top)));
    if (!problems.some((f) => (f.severity ?? "error") === "error")) defs.push({ def, index });
  });

  const parser = new YamlParser(opts.parseWorkers);
  let loads: FamilyLoad[];
  try {
    loads = await Promise.all(defs.map(({ def }) => loadFamily(fs, def, scopeOf(def), parser)));
  } finally {
    await parser.close();
  }

  const tools: CatalogTool[] = [];
  const families: FamilyInfo[] = [];
  const skippedFamilies: string[] = [];
  const skipped = new Set<string>();
  const seen = new Map<string, { name: string; origin: Origin }>();
  const seenModel = new Map<string, { name: string; origin: Origin }>();
  loads.forEach((load, k) => {
    const { def, index } = defs[k]!;
    const at: Segment[] = ["families", index, "source"];
    const failed = load.failure !== undefined || load.diagnostics.some(isError);
    if (failed && !def.required) {
      // An optional family that cannot load is reported and skipped; its problems do not fail the build.
      diagnostics.push(...load.diagnostics.map((d) => ({ ...d, severity: "warning" as const })));
      diagnostics.push(
        diag({ code: "FAMILY_SKIPPED", at, message: `optional family \`${def.name}\` skipped: ${load.failure ?? `${load.diagnostics.filter(isError).length} problem(s) in its tools`}` }, top, "warning"),
      );
      skippedFamilies.push(def.name);
      skipped.add(def.name);
      return;
    }
    diagnostics.push(...load.diagnostics);
    if (load.failure !== undefined) {
      diagnostics.push(diag({ code: "FAMILY_LOAD_FAILED", at, message: `required family \`${def.name}\` cannot load: ${load.failure}` }, top));
      return;
    }
    const kept: CatalogTool[] = [];
    load.tools.forEach((t, i) => {
      const canon = canonicalName(t.name);
      const origin = load.origins[i] ?? { file: t.source, path: "$" };
      const prior = seen.get(canon);
      if (prior) {
        const message =
          prior.name === t.name
            ? `\`${t.name}\` is defined twice: here and in ${showOrigin(prior.origin)}`
            : `\`${t.name}\` collides with \`${prior.name}\` defined in ${showOrigin(prior.origin)}: names that differ only by case or \`_\`/\`-\`/\`.\` are one tool to the gateway`;
        const { file, path } = origin;
        const line = origin.line?.();
        diagnostics.push({ severity: "error", code: "NAME_COLLISION", file, tool: t.name, path, message, ...(line ? { line } : {}) });
        return;
      }
      // Models call tools by the projection: two tools with one would be one function to them.
      const model = modelName(t.name);
      const twin = seenModel.get(model);
      if (twin) {
        const message = `\`${t.name}\` and \`${twin.name}\` defined in ${showOrigin(twin.origin)} have the same model-safe name \`${model}\`: rename one (names over 64 characters are shortened to 55 and a hash)`;
        const line = origin.line?.();
        diagnostics.push({ severity: "error", code: "NAME_COLLISION", file: origin.file, tool: t.name, path: origin.path, message, ...(line ? { line } : {}) });
        return;
      }
      seen.set(canon, { name: t.name, origin });
      seenModel.set(model, { name: t.name, origin });
      kept.push(t);
    });
    tools.push(...kept);
    families.push({
      name: def.name,
      description: def.description.trim(),
      required: def.required,
      tool_count: kept.length,
      examples: kept.slice(0, EXAMPLES_PER_FAMILY).map((t) => verbOf(t.name)),
      // Names and flags only: values are read from the environment where the gateway runs.
      ...(def.variables ? { variables: def.variables } : {}),
    });
  });

  const names = tools.map((t) => t.name);
  // Read on its own, so a broken family entry elsewhere does not silently restore the default list.
  const alwaysParsed = isRecord(value) ? FamiliesFile.shape.always_loaded.safeParse(value.always_loaded) : undefined;
  const alwaysDeclared = alwaysParsed?.success ? alwaysParsed.data : undefined;
  const alwaysLoaded = alwaysDeclared ?? [...DEFAULT_ALWAYS_LOADED];
  if (alwaysDeclared) {
    diagnostics.push(...checkReferences(alwaysDeclared, names, skipped).map((f) => diag({ ...f, at: ["always_loaded", ...f.at] }, top)));
  }

  const briefs = await loadBriefs(dir, { fs, toolNames: names, skippedFamilies: skipped });
  diagnostics.push(...briefs.diagnostics);
  const policy = (await hasPolicy(dir, { fs })) ? await loadPolicy(dir, { fs, toolNames: names }) : undefined;
  diagnostics.push(...(policy?.diagnostics ?? []));
  if (await hasPolicy(dir, { fs, file: POLICY_EXAMPLE_FILE })) {
    diagnostics.push(...(await loadPolicy(dir, { fs, file: POLICY_EXAMPLE_FILE, toolNames: names })).diagnostics);
  }

  return {
    catalog: { families, tools },
    alwaysLoaded,
    skippedFamilies,
    briefs: briefs.briefs,
    ...(policy?.policy ? { policy: policy.policy } : {}),
    diagnostics,
    ok: !diagnostics.some(isError),
  };
}

function checkSource(source: FamilySource, at: Segment[]): Finding[] {
  const out: Finding[] = [];
  const path = (p: string, key: Segment[]) => {
    if (!isSafeRelativePath(p)) out.push({ code: "INVALID_VALUE", at: [...at, ...key], message: `\`${p}\` must be a path inside the registry (relative, no \`..\`)` });
  };
  if ("tools" in source) path(source.tools, ["tools"]);
  else if ("jsonl" in source) path(source.jsonl, ["jsonl"]);
  else {
    path(source.mcp.snapshot, ["mcp", "snapshot"]);
    out.push(...checkNoTemplate({ at: [...at, "mcp", "url"], text: source.mcp.url }, "the MCP endpoint"));
    out.push(...checkUrl(source.mcp.url, [...at, "mcp", "url"]));
    out.push(...checkNamedValues(source.mcp.headers, [...at, "mcp", "headers"], "header"));
  }
  return out;
}

function scopeOf(def: FamilyDef): FamilyScope {
  return { name: def.name, variables: new Set(Object.keys(def.variables ?? {})), ...(def.env ? { env: def.env } : {}) };
}

/**
 * A family's `variables` and `env`: valid names; env values read only declared `${NAME}`s, take no
 * input (they are shared by every tool of the family) and hold no literal credential; the MCP
 * endpoint reads only declared variables too.
 */
function checkFamilyVariables(def: FamilyDef, at: (...rest: Segment[]) => Segment[]): Finding[] {
  const scope = scopeOf(def);
  const env = Object.entries(def.env ?? {});
  const fields = env.map(([k, v]) => ({ at: at("env", k), text: v }));
  if ("mcp" in def.source) {
    fields.push({ at: at("source", "mcp", "url"), text: def.source.mcp.url });
    for (const [k, v] of Object.entries(def.source.mcp.headers ?? {})) fields.push({ at: at("source", "mcp", "headers", k), text: v });
  }
  return [
    ...checkVariableNames(Object.keys(def.variables ?? {}), at("variables"), "variable"),
    ...checkVariableNames(env.map(([k]) => k), at("env"), "environment variable"),
    ...env.flatMap(([k, v]) => checkNoTemplate({ at: at("env", k), text: v }, "a family's environment")),
    ...checkNamedValues(def.env, at("env"), "environment variable"),
    ...checkVariableRefs(fields, scope),
  ];
}

async function loadFamily(fs: RegistryFs, def: FamilyDef, scope: FamilyScope, parser: YamlParser): Promise<FamilyLoad> {
  const load: FamilyLoad = { tools: [], origins: [], diagnostics: [] };
  const collect = (file: string, parsed: ParsedFile, fileFindings: Finding[], entries: ToolEntryResult[]) => {
    load.diagnostics.push(...fileFindings.map((f) => diag(f, { file, lineOf: parsed.lineOf })));
    for (const e of entries) {
      load.diagnostics.push(...e.findings.map((f) => diag(f, { file, tool: e.tool, lineOf: parsed.lineOf })));
      if (e.catalog && !e.findings.some((f) => (f.severity ?? "error") === "error")) {
        load.tools.push(e.catalog);
        // Lazy: a line costs a main-thread parse of files the worker pool parsed; only collisions need one.
        const at = ["tools", e.index];
        load.origins.push({ file, path: jsonPath(at), line: () => parsed.lineOf(at) });
      }
    }
  };
  const readSource = async (file: string) => {
    const r = await readParsed(fs, file, parser);
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
      const { fileFindings, entries } = toolsFromFile(scope, parsed.value, file);
      collect(file, parsed, fileFindings, entries);
    });
  } else if ("mcp" in src) {
    const file = src.mcp.snapshot;
    const parsed = await readSource(file);
    if (!parsed) return load;
    const endpoint = { url: src.mcp.url, ...(src.mcp.headers ? { headers: src.mcp.headers } : {}) };
    const { fileFindings, entries } = toolsFromSnapshot(def.name, parsed.value, endpoint, file);
    if (fileFindings.length > 0) load.failure = `${file} is not a valid snapshot`;
    collect(file, parsed, fileFindings, entries);
  } else {
    await loadJsonlFamily(fs, def, src.jsonl, load);
  }
  return load;
}

async function loadJsonlFamily(fs: RegistryFs, def: FamilyDef, file: string, load: FamilyLoad): Promise<void> {
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
    load.diagnostics.push({ severity: "error", code: "JSON_SYNTAX", file, path: jsonPath([e.line - 1]), message: `line ${e.line}: ${e.message}`, line: e.line });
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
    const findings = [
      ...checkToolName(def.name, verbOf(t.name), at("name")),
      ...(raw.input_schema ? checkInputSchema(raw.input_schema, at("input_schema")) : []),
    ];
    load.diagnostics.push(...findings.map((f) => ({ ...diag(f, { file, tool: t.name }), line })));
    if (findings.length === 0) {
      load.tools.push(t);
      load.origins.push({ file, path: jsonPath([line - 1]), line: () => line });
    }
  });
}

/** Names or globs that must match at least one tool; a reference into a skipped family is only a warning. */
function checkReferences(patterns: readonly string[], names: readonly string[], skipped: ReadonlySet<string>): Finding[] {
  const out: Finding[] = [];
  patterns.forEach((p, i) => {
    const match = globMatcher([p]);
    if (names.some(match)) return;
    const intoSkipped = skipped.has(familyOf(p));
    out.push({
      code: "UNKNOWN_TOOL_REFERENCE",
      severity: intoSkipped ? "warning" : "error",
      at: [i],
      message: intoSkipped ? `\`${p}\` belongs to a skipped optional family` : `\`${p}\` matches no tool in the registry`,
    });
  });
  return out;
}

/**
 * Briefs (`briefs/*.yaml`): declared packing lists. A missing folder means no briefs. Pass `toolNames` to
 * check references (every name or glob must match a tool); without it only the format is checked.
 */
export async function loadBriefs(
  dir: string,
  opts: LoadOptions & { toolNames?: readonly string[]; skippedFamilies?: ReadonlySet<string> } = {},
): Promise<{ briefs: LoadedBrief[]; diagnostics: Diagnostic[] }> {
  const fs = opts.fs ?? diskFs(dir);
  const diagnostics: Diagnostic[] = [];
  const briefs: LoadedBrief[] = [];
  let files: string[];
  try {
    files = (await fs.listFiles(BRIEFS_DIR)).filter((f) => /\.ya?ml$/i.test(f)).sort();
  } catch {
    return { briefs, diagnostics };
  }
  const byName = new Map<string, string>();
  for (const name of files) {
    const file = `${BRIEFS_DIR}/${name}`;
    const r = await readParsed(fs, file);
    diagnostics.push(...r.diagnostics);
    if (!r.parsed || r.parsed.value === undefined) continue;
    const { value, lineOf } = r.parsed;
    const loc = { file, lineOf };
    const version = checkVersion(value);
    if (version.length > 0) {
      diagnostics.push(...version.map((f) => diag(f, loc)));
      continue;
    }
    const parsed = BriefFile.safeParse(value);
    if (!parsed.success) {
      diagnostics.push(...issuesToFindings(parsed.error.issues, value, suggestFrom(Object.keys(BriefFile.shape))).map((f) => diag(f, loc)));
      continue;
    }
    const brief = parsed.data;
    const prior = byName.get(brief.name);
    if (prior) {
      diagnostics.push(diag({ code: "NAME_COLLISION", at: ["name"], message: `brief \`${brief.name}\` is also defined in ${prior}` }, loc));
      continue;
    }
    byName.set(brief.name, file);
    if (opts.toolNames) {
      diagnostics.push(...checkReferences(brief.tools, opts.toolNames, opts.skippedFamilies ?? new Set()).map((f) => diag({ ...f, at: ["tools", ...f.at] }, loc)));
    }
    briefs.push({ ...brief, file });
  }
  return { briefs, diagnostics };
}

/**
 * The grants/principals policy (`policy.yaml`, optional in a registry; deployments may keep theirs
 * elsewhere). Globs that match no tool are warnings: a grant may anticipate a family not yet deployed.
 */
export async function loadPolicy(
  dir: string,
  opts: LoadOptions & { file?: string; toolNames?: readonly string[] } = {},
): Promise<{ policy?: PolicyFile; diagnostics: Diagnostic[] }> {
  const fs = opts.fs ?? diskFs(dir);
  const file = opts.file ?? POLICY_FILE;
  const r = await readParsed(fs, file);
  if (!r.parsed || r.parsed.value === undefined) return { diagnostics: r.diagnostics };
  const { value, lineOf } = r.parsed;
  const loc = { file, lineOf };
  const version = checkVersion(value);
  if (version.length > 0) return { diagnostics: version.map((f) => diag(f, loc)) };
  const parsed = PolicyFile.safeParse(value);
  if (!parsed.success) {
    const keys = [...Object.keys(PolicyFile.shape), ...Object.keys(Principal.shape)];
    return { diagnostics: issuesToFindings(parsed.error.issues, value, suggestFrom(keys)).map((f) => diag(f, loc)) };
  }
  const diagnostics: Diagnostic[] = [];
  const ids = new Set<string>();
  parsed.data.principals.forEach((p, i) => {
    if (ids.has(p.id)) diagnostics.push(diag({ code: "NAME_COLLISION", at: ["principals", i, "id"], message: `principal \`${p.id}\` is listed twice` }, loc));
    ids.add(p.id);
    if (opts.toolNames) {
      for (const key of ["allow", "deny"] as const) {
        diagnostics.push(
          ...checkReferences(p[key], opts.toolNames, new Set()).map((f) => diag({ ...f, severity: "warning", at: ["principals", i, key, ...f.at] }, loc)),
        );
      }
    }
  });
  return { policy: parsed.data, diagnostics };
}

/** Does the registry ship a policy file? (The check validates it when it does.) */
export async function hasPolicy(dir: string, opts: LoadOptions & { file?: string } = {}): Promise<boolean> {
  const fs = opts.fs ?? diskFs(dir);
  try {
    await fs.readText(opts.file ?? POLICY_FILE);
    return true;
  } catch {
    return false;
  }
}
