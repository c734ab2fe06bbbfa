import { fileURLToPath } from "node:url";
import { loadRegistry } from "../../../build/load.js";
import { CONVENTION_CODES } from "../../../build/validate/conventions.js";
import type { Diagnostic } from "../../../registry/contract/diagnostics.js";

export const fixture = (name: string) => fileURLToPath(new URL(`../../fixtures/registries/${name}`, import.meta.url));

/**
 * Diagnostics of a fixture registry in a compact, reviewable form: `severity CODE file tool path: message`.
 * Each fixture pins one rule with minimal tools, so the convention warnings (undocumented parameters and
 * the like, pinned by the `conventions` fixture) are left out unless asked for.
 */
export async function check(name: string, opts: { conventions?: boolean } = {}): Promise<string[]> {
  const reg = await loadRegistry(fixture(name));
  return reg.diagnostics.filter((d) => opts.conventions || !CONVENTION_CODES.includes(d.code)).map(show);
}

export const show = (d: Diagnostic) => `${d.severity} ${d.code} ${d.file}${d.line ? `:${d.line}` : ""} ${d.tool ?? "-"} ${d.path}: ${d.message}`;
