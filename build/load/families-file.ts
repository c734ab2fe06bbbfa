// The family list (`families.yaml`): its version, each entry's source, name, description and
// variables. Problems in one entry do not hide the others, nor its own tools' (unless its name or
// source is wrong): entries are validated one by one.
import type { Diagnostic } from "../../registry/contract/diagnostics.js";
import { FamiliesFile, FamilyDef, type FamilySource, FamilyVariable, JsonlSource, McpSource, ToolsSource } from "../../registry/contract/family.js";
import { FAMILY_NAME_RE, canonicalName } from "../../registry/contract/names.js";
import { isSafeRelativePath, type RegistryFs } from "../registry-fs.js";
import { checkCredentialsDecl } from "../validate/credentials.js";
import { checkDescription } from "../validate/description.js";
import { checkEgressList } from "../validate/egress.js";
import { isRecord, type Finding, type Segment } from "../validate/finding.js";
import { closest, issuesToFindings } from "../validate/issues.js";
import { checkNamedValues, checkUrl } from "../validate/secrets.js";
import { checkNoTemplate } from "../validate/templates.js";
import { checkVariableNames, checkVariableRefs } from "../validate/variables.js";
import { checkVersion, diag, readParsed, type Located } from "./files.js";
import { scopeOf } from "./family-sources.js";

export const FAMILIES_FILE = "families.yaml";

// "Did you mean" candidates for unknown keys in the family list.
const FAMILIES_KEYS = [
  ...Object.keys(FamiliesFile.shape),
  ...Object.keys(FamilyDef.shape),
  ...Object.keys(ToolsSource.shape),
  ...Object.keys(McpSource.shape),
  ...Object.keys(McpSource.shape.mcp.shape),
  ...Object.keys(JsonlSource.shape),
  ...Object.keys(FamilyVariable.shape),
];

export type FamiliesRead = {
  /** The parsed file (always_loaded is read from it on its own). */
  value: unknown;
  /** Diagnostics located in families.yaml. */
  top: Located;
  /** The entries that passed their checks, with their index in the file. */
  defs: { def: FamilyDef; index: number }[];
};

/** Read and check families.yaml; `undefined` when it cannot be read, parsed or has an unsupported version. */
export async function readFamiliesFile(fs: RegistryFs, diagnostics: Diagnostic[]): Promise<FamiliesRead | undefined> {
  const read = await readParsed(fs, FAMILIES_FILE);
  // No families.yaml: most often a folder that is not a registry yet, so say how to start one.
  const start = " (not a registry yet? npm run registry:init -- --registry DIR starts one)";
  diagnostics.push(...read.diagnostics.map((d) => (d.code === "FILE_UNREADABLE" ? { ...d, message: d.message + start } : d)));
  if (!read.parsed || read.parsed.value === undefined) return undefined;
  const { value, lineOf } = read.parsed;
  const top: Located = { file: FAMILIES_FILE, lineOf };
  const versionProblems = checkVersion(value);
  if (versionProblems.length > 0) {
    diagnostics.push(...versionProblems.map((f) => diag(f, top)));
    return undefined;
  }

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
    for (const f of issuesToFindings(shell.error.issues, value, (key) => closest(key, FAMILIES_KEYS))) {
      if (f.at[0] === "families" && typeof f.at[1] === "number" && f.at[2] === "source" && sourceChecked.has(f.at[1])) continue;
      diagnostics.push(diag(f, top));
    }
  }

  const defs: { def: FamilyDef; index: number }[] = [];
  const familyNames = new Map<string, number>();
  rawFamilies.forEach((raw, index) => {
    const def = parseFamilyDef(raw);
    if (!def) return;
    const at = (...rest: Segment[]) => ["families", index, ...rest];
    const problems: Finding[] = [];
    if (!FAMILY_NAME_RE.test(def.name)) {
      problems.push({
        code: "BAD_NAME",
        at: at("name"),
        message: `family name \`${def.name}\` must be lower-case letters, digits, \`-\` or \`_\`, starting with a letter, at most 64 characters`,
      });
    }
    const canon = canonicalName(def.name);
    const prior = familyNames.get(canon);
    if (prior !== undefined) {
      problems.push({ code: "NAME_COLLISION", at: at("name"), message: `family \`${def.name}\` collides with the family at $.families[${prior}]` });
    } else familyNames.set(canon, index);
    problems.push(...checkDescription(def.description, at("description")).map((f) => ({ ...f, message: f.message.replace("the tool", "the family") })));
    problems.push(...checkSource(def.source, at("source")));
    problems.push(...checkFamilyVariables(def, at));
    problems.push(...checkEgressList(def.egress, at("egress")));
    problems.push(...checkCredentialsDecl(def, at("credentials")));
    diagnostics.push(...problems.map((f) => diag(f, top)));
    // Its tools are still checked in this run unless the family's name or source is what is wrong
    // (the errors above already fail the check).
    const blocking = problems.some((f) => (f.severity ?? "error") === "error" && (f.at[2] === "name" || f.at[2] === "source"));
    if (!blocking) defs.push({ def, index });
  });
  return { value, top, defs };
}

/**
 * An entry whose only problems are unknown keys (reported above) is read without them, so a typo such as
 * `egres` does not hide the family's tools and their problems until it is fixed.
 */
function parseFamilyDef(raw: unknown): FamilyDef | undefined {
  const parsed = FamilyDef.safeParse(raw);
  if (parsed.success) return parsed.data;
  if (!parsed.error.issues.every((i) => i.code === "unrecognized_keys")) return undefined;
  const copy = structuredClone(raw);
  for (const issue of parsed.error.issues) {
    let node: unknown = copy;
    for (const key of issue.path) node = isRecord(node) || Array.isArray(node) ? (node as Record<PropertyKey, unknown>)[key] : undefined;
    if (isRecord(node) && issue.code === "unrecognized_keys") for (const key of issue.keys) delete node[key];
  }
  const again = FamilyDef.safeParse(copy);
  return again.success ? again.data : undefined;
}

function checkSource(source: FamilySource, at: Segment[]): Finding[] {
  const out: Finding[] = [];
  const path = (p: string, key: Segment[]) => {
    if (!isSafeRelativePath(p))
      out.push({ code: "INVALID_VALUE", at: [...at, ...key], message: `\`${p}\` must be a path inside the registry (relative, no \`..\`)` });
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

/**
 * A family's `variables` and `env`: valid names; env values read only declared `${NAME}`s, take no
 * input (they are shared by every tool of the family) and hold no literal credential; the MCP
 * endpoint reads only declared variables too.
 */
function checkFamilyVariables(def: FamilyDef, at: (...rest: Segment[]) => Segment[]): Finding[] {
  const scope = scopeOf(def);
  const env = Object.entries(def.env ?? {});
  const fields = env.map(([k, v]) => ({ at: at("env", k), text: v }));
  (def.egress ?? []).forEach((origin, i) => fields.push({ at: at("egress", i), text: origin }));
  if ("mcp" in def.source) {
    fields.push({ at: at("source", "mcp", "url"), text: def.source.mcp.url });
    for (const [k, v] of Object.entries(def.source.mcp.headers ?? {})) fields.push({ at: at("source", "mcp", "headers", k), text: v });
  }
  return [
    ...checkVariableNames(Object.keys(def.variables ?? {}), at("variables"), "variable"),
    ...checkVariableNames(
      env.map(([k]) => k),
      at("env"),
      "environment variable",
    ),
    ...env.flatMap(([k, v]) => checkNoTemplate({ at: at("env", k), text: v }, "a family's environment")),
    ...checkNamedValues(def.env, at("env"), "environment variable"),
    ...checkVariableRefs(fields, scope),
  ];
}
