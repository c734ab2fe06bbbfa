// The check's word on model roles: a warning per role the registry's prompt tools ask that
// TOOLBELT_MODELS does not set. Warnings, not errors: a registry is
// valid without models, and CI has none (prompt tools then answer 503 MODEL_NOT_CONFIGURED).
import { existsSync, readFileSync } from "node:fs";
import type { CatalogTool } from "../../registry/contract/artifact.js";
import type { Diagnostic } from "../../registry/contract/diagnostics.js";
import { unsetRoleWarnings } from "../../registry/contract/model-roles.js";

/** Role names TOOLBELT_MODELS sets (JSON or a file path, as the gateway reads it); the gateway validates the rest. */
export function configuredRoles(raw: string | undefined): string[] {
  const text = raw?.trim();
  if (!text) return [];
  const json = text.startsWith("{") ? text : existsSync(text) ? readFileSync(text, "utf8") : "";
  try {
    const parsed = JSON.parse(json) as unknown;
    return parsed && typeof parsed === "object" && !Array.isArray(parsed) ? Object.keys(parsed) : [];
  } catch {
    return [];
  }
}

export function modelRoleWarnings(tools: readonly Pick<CatalogTool, "name" | "backend" | "source">[], configured: readonly string[]): Diagnostic[] {
  const byName = new Map(tools.map((t) => [t.name, t]));
  return unsetRoleWarnings(tools, configured).map((w) => {
    const first = byName.get(w.tools[0]!)!;
    return { severity: "warning", code: "MODEL_ROLE_UNSET", file: first.source, tool: first.name, path: "$.model", message: w.message } satisfies Diagnostic;
  });
}
