// Reading one registry file: its text, its parse (YAML or JSON), its format version, and diagnostics
// located in it (file, line, JSON path). Every step of the loader reads through here.
import type { Diagnostic } from "../../registry/contract/diagnostics.js";
import { FORMAT_VERSION } from "../../registry/contract/tool.js";
import type { RegistryFs } from "../registry-fs.js";
import { isRecord, jsonPath, type Finding, type Segment } from "../validate/finding.js";
import { parseJson, parseYaml, type ParsedFile } from "../yaml.js";
import type { YamlParser } from "../yaml-pool.js";

/** File format versions this build reads; older ones are brought up by `registry:migrate`. */
export const SUPPORTED_VERSIONS: readonly number[] = [FORMAT_VERSION];

export type Located = { file: string; tool?: string; lineOf?: ParsedFile["lineOf"]; base?: Segment[] };

export function diag(f: Finding, loc: Located, severity: Diagnostic["severity"] = f.severity ?? "error"): Diagnostic {
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

export const isError = (d: Diagnostic) => d.severity === "error";

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

/** Read and parse a file; an `optional` file that cannot be read comes back `missing`, without a diagnostic. */
export async function readParsed(
  fs: RegistryFs,
  file: string,
  opts: { parser?: YamlParser; optional?: boolean } = {},
): Promise<{ parsed?: ParsedFile; missing?: true; diagnostics: Diagnostic[] }> {
  const { parser } = opts;
  let text: string;
  try {
    text = await fs.readText(file);
  } catch (e) {
    if (opts.optional) return { missing: true, diagnostics: [] };
    return { diagnostics: [{ severity: "error", code: "FILE_UNREADABLE", file, path: "$", message: `cannot read: ${errorText(e)}` }] };
  }
  const parsed = /\.json$/i.test(file) ? parseJson(text, file) : parser ? await parser.parse(text, file) : parseYaml(text, file);
  return { parsed, diagnostics: parsed.diagnostics };
}

export function errorText(e: unknown): string {
  const err = e as { code?: string; message?: string };
  return err.code === "ENOENT" ? "no such file or folder" : err.code === "ENOTDIR" ? "not a folder" : (err.message ?? String(e));
}
