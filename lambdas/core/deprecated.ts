// Retired tools (registry `deprecated`): refused with 410 naming the replacement, or run with a warning.
import type { CatalogTool } from "../../registry/contract/artifact.js";
import type { Deprecation } from "../../registry/contract/tool.js";
import { ToolbeltError } from "./errors.js";

/** TOOLBELT_DEPRECATED_CALLS: `refuse` (default) answers 410 TOOL_DEPRECATED; `warn` runs the call and says so in the answer. */
export type DeprecatedCalls = "refuse" | "warn";
export const DEPRECATED_CALLS = ["refuse", "warn"] as const;

/** The tool's retirement, once the catalog carries it. */
export const deprecationOf = (tool: Pick<CatalogTool, "deprecated">): Deprecation | undefined => tool.deprecated;

export function refuseDeprecated(name: string, d: Deprecation): ToolbeltError {
  const instead = d.replaced_by ? `; call ${d.replaced_by} instead` : "; no tool replaces it";
  return new ToolbeltError("TOOL_DEPRECATED", `${name} was retired on ${d.since} (${d.reason})${instead}`, {
    tool: name,
    ...(d.replaced_by ? { replaced_by: d.replaced_by } : {}),
    reason: d.reason,
    since: d.since,
  });
}
