// Diagnostics → text for people, JSON for tools, GitHub workflow annotations for CI.
import { join, relative, sep } from "node:path";
import type { Diagnostic } from "../registry/contract/diagnostics.js";
import { printable } from "../registry/contract/printable.js";
import type { DeclaredSetting } from "../registry/contract/upstream-settings.js";

export const FORMATS = ["text", "json", "github"] as const;
export type Format = (typeof FORMATS)[number];

export type Summary = { families: number; tools: number; settings?: DeclaredSetting[] };

/** The file as the reader's shell would name it: registry dir + file, relative to the working directory. */
export function displayPath(registryDir: string, file: string, cwd = process.cwd()): string {
  const rel = relative(cwd, join(registryDir, file));
  return rel.split(sep).join("/");
}

export function formatDiagnostics(diags: readonly Diagnostic[], format: Format, registryDir: string, summary?: Summary): string {
  const errors = diags.filter((d) => d.severity === "error").length;
  const warnings = diags.length - errors;
  if (format === "json") {
    return JSON.stringify({ ok: errors === 0, errors, warnings, ...(summary ?? {}), diagnostics: diags }, null, 2) + "\n";
  }
  const lines = diags.map((d) => (format === "github" ? github(d, registryDir) : text(d, registryDir)));
  const tail =
    errors > 0
      ? `${errors} error${errors === 1 ? "" : "s"}, ${warnings} warning${warnings === 1 ? "" : "s"}`
      : `registry OK${summary ? `: ${summary.tools} tool${summary.tools === 1 ? "" : "s"} in ${summary.families} famil${summary.families === 1 ? "y" : "ies"}` : ""}${warnings ? ` (${warnings} warning${warnings === 1 ? "" : "s"})` : ""}`;
  return [...lines, ...(format === "text" ? settingsLines(summary?.settings ?? []) : []), tail].join("\n") + "\n";
}

/** The settings the registry's families declare: what an operator must give `npm start` or the deployment. */
function settingsLines(settings: readonly DeclaredSetting[]): string[] {
  if (settings.length === 0) return [];
  const label = (s: DeclaredSetting) => `${s.name}${s.secret ? " (secret)" : ""}`;
  const width = Math.max(...settings.map((s) => label(s).length));
  return [
    "settings the families declare (a required family without one stops npm start and synth; an optional one is left out):",
    ...settings.map((s) => `  ${label(s).padEnd(width)}  ${s.families.map((f) => `${f.name}${f.required ? "" : " (optional)"}`).join(", ")}`),
  ];
}

function text(d: Diagnostic, dir: string): string {
  const where = `${displayPath(dir, d.file)}${d.line ? `:${d.line}` : ""}`;
  // One diagnostic, one line: names and messages quote registry and upstream data.
  return printable(`${where}: ${d.severity} ${d.code}${d.tool ? ` ${d.tool}` : ""} ${d.path}: ${d.message}`);
}

// Workflow command escaping: data escapes %, CR, LF; property values also `:` and `,`.
const escData = (s: string) => s.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
const escProp = (s: string) => escData(s).replace(/:/g, "%3A").replace(/,/g, "%2C");

function github(d: Diagnostic, dir: string): string {
  const props = [`file=${escProp(displayPath(dir, d.file))}`, ...(d.line ? [`line=${d.line}`] : []), `title=${escProp(d.code)}`];
  const msg = `${d.tool ? `${d.tool} ` : ""}${d.path}: ${d.message}`;
  return printable(`::${d.severity === "error" ? "error" : "warning"} ${props.join(",")}::${escData(msg)}`);
}
