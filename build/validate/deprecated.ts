// Retired tools (`deprecated`) still named by a brief or a policy: warnings, so an operator moves the
// reference to the replacement before the gateway starts refusing it (410 TOOL_DEPRECATED), and an error
// when `replaced_by` names no live tool.
import type { Diagnostic, RegistryCode } from "../../registry/contract/diagnostics.js";
import type { Deprecation } from "../../registry/contract/tool.js";
import { jsonPath } from "./finding.js";

export const DEPRECATED_REFERENCE: RegistryCode = "DEPRECATED_TOOL_REFERENCE";

export type RetirableTool = { name: string; source?: string; deprecated?: Deprecation };
/** Where a brief or a policy names tools: its file and its exact-name references with their JSON paths. */
export type Referrer = { file: string; refs: { name: string; at: (string | number)[] }[] };

/** A brief's `tools`. */
export const briefReferrer = (b: { file: string; tools: readonly string[] }): Referrer => ({
  file: b.file,
  refs: b.tools.map((name, i) => ({ name, at: ["tools", i] })),
});

/** A policy's grants and per-tool limits, principal by principal. */
export function policyReferrer(
  file: string,
  policy: { principals: readonly { allow?: readonly string[]; tool_limits?: Record<string, unknown> }[] },
): Referrer {
  const refs: Referrer["refs"] = [];
  policy.principals.forEach((p, i) => {
    (p.allow ?? []).forEach((name, j) => refs.push({ name, at: ["principals", i, "allow", j] }));
    for (const name of Object.keys(p.tool_limits ?? {})) refs.push({ name, at: ["principals", i, "tool_limits", name] });
  });
  return { file, refs };
}

export function deprecatedReferences(tools: readonly RetirableTool[], referrers: readonly Referrer[]): Diagnostic[] {
  const retired = new Map(tools.flatMap((t) => (t.deprecated ? [[t.name, t.deprecated] as const] : [])));
  const live = new Set(tools.filter((t) => !t.deprecated).map((t) => t.name));
  const out: Diagnostic[] = [];
  for (const t of tools) {
    const to = t.deprecated?.replaced_by;
    if (to !== undefined && !live.has(to)) {
      out.push({
        severity: "error",
        code: DEPRECATED_REFERENCE,
        file: t.source ?? "",
        tool: t.name,
        path: "$.deprecated.replaced_by",
        message: `${t.name} is replaced by \`${to}\`, which is ${retired.has(to) ? "retired too" : "no tool in the registry"}: name a live tool or leave replaced_by out`,
      });
    }
  }
  // Exact names only: a glob that also matches a retired tool simply stops reaching it.
  for (const { file, refs } of referrers) {
    for (const { name, at } of refs) {
      const d = retired.get(name);
      if (!d) continue;
      out.push({
        severity: "warning",
        code: DEPRECATED_REFERENCE,
        file,
        tool: name,
        path: jsonPath(at),
        message: `\`${name}\` is deprecated since ${d.since} (${d.reason}): calls to it are refused with 410${d.replaced_by ? `; name \`${d.replaced_by}\` instead` : ""}`,
      });
    }
  }
  return out;
}
