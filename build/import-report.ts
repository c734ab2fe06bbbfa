// What an import prints after writing its files: renamed tools, the warnings of the import and of
// registry:check on the new family grouped by code with a count (the full list on request), and the
// next step with the registry named.
import type { Diagnostic } from "../registry/contract/diagnostics.js";
import { printable } from "../registry/contract/printable.js";
import { loadRegistry } from "./load.js";

/** Lines listed of each kind before "… and N more" (all of them with `full`). */
export const LISTED = 10;

export type ImportReportInput = {
  registry: string;
  family: string;
  renamed: readonly { from: string; to: string }[];
  /** The importer's own warnings (examples left out), per tool. */
  warnings?: readonly { tool: string; message: string }[];
  /** List every warning, not only their count per code. */
  full: boolean;
};

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

function listed<T>(items: readonly T[], full: boolean, line: (t: T) => string): string[] {
  const shown = full ? items : items.slice(0, LISTED);
  const out = shown.map((t) => `  ${line(t)}`);
  if (shown.length < items.length) out.push(`  … and ${items.length - shown.length} more (--warnings lists them all)`);
  return out;
}

/** The family's warnings and errors as registry:check reports them (files under its folder or its catalog). */
async function checkFamily(registry: string, family: string): Promise<Diagnostic[]> {
  const reg = await loadRegistry(registry);
  return reg.diagnostics.filter((d) => d.tool?.startsWith(`${family}.`) || d.file.startsWith(`families/${family}/`) || d.file === `catalogs/${family}.jsonl`);
}

/** The lines printed after an import; the check of the new family runs here. */
export async function importReport(o: ImportReportInput): Promise<string> {
  const lines: string[] = [];
  if (o.renamed.length > 0) {
    lines.push(`${plural(o.renamed.length, "name")} changed on import (agents see the new one):`);
    lines.push(...listed(o.renamed, o.full, (r) => `${printable(r.from)} → ${r.to}`));
  }
  const own = o.warnings ?? [];
  if (own.length > 0) {
    lines.push(`${plural(own.length, "import warning")} in family \`${o.family}\`:`);
    lines.push(...listed(own, o.full, (w) => `${w.tool} ${w.message}`));
  }
  const found = await checkFamily(o.registry, o.family);
  const errors = found.filter((d) => d.severity === "error");
  const warnings = found.filter((d) => d.severity === "warning");
  if (warnings.length > 0) {
    const byCode = new Map<string, number>();
    for (const w of warnings) byCode.set(w.code, (byCode.get(w.code) ?? 0) + 1);
    const counts = [...byCode].sort((a, b) => b[1] - a[1]).map(([code, n]) => `${code} ×${n}`);
    lines.push(
      `registry:check: ${plural(warnings.length, "warning")} in family \`${o.family}\` (${counts.join(", ")})${o.full ? ":" : "; --warnings lists them"}`,
    );
    if (o.full) lines.push(...warnings.map((w) => `  ${w.tool ?? w.file} ${w.path}: ${w.message}`));
  }
  if (errors.length > 0) {
    lines.push(`registry:check: ${plural(errors.length, "error")} in family \`${o.family}\`:`);
    lines.push(...listed(errors, true, (e) => `${e.tool ?? e.file} ${e.path}: ${e.message}`));
  }
  lines.push(`next: npm run registry:check -- --registry ${o.registry}`);
  return `${lines.join("\n")}\n`;
}
