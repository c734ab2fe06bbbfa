import { fileURLToPath } from "node:url";
import { loadRegistry } from "../../../build/load.js";
import type { Diagnostic } from "../../../registry/contract/diagnostics.js";

export const fixture = (name: string) => fileURLToPath(new URL(`../../fixtures/registries/${name}`, import.meta.url));

/** Diagnostics of a fixture registry in a compact, reviewable form: `severity CODE file tool path: message`. */
export async function check(name: string): Promise<string[]> {
  const reg = await loadRegistry(fixture(name));
  return reg.diagnostics.map(show);
}

export const show = (d: Diagnostic) => `${d.severity} ${d.code} ${d.file}${d.line ? `:${d.line}` : ""} ${d.tool ?? "-"} ${d.path}: ${d.message}`;
