// A family whose tools are YAML files in one folder the family list names (not recursive).
import { z } from "zod";
import type { CatalogTool, GovernanceInfo } from "../../registry/contract/artifact.js";
import { fullName } from "../../registry/contract/names.js";
import { BuiltinTool, DEFAULT_TIMEOUT_SECS, ExecTool, HttpTool, McpTool, PromptTool, ToolDef, ToolFile } from "../../registry/contract/tool.js";
import { derivedEgress } from "../../registry/contract/egress.js";
import { checkUrlInEgress } from "../validate/egress.js";
import { EMPTY_INPUT_SCHEMA, checkToolDef } from "../validate/tool.js";
import { closest, issuesToFindings } from "../validate/issues.js";
import { isRecord, type Finding } from "../validate/finding.js";
import type { SchemaLimits } from "../validate/schema-limits.js";
import type { FamilyScope } from "../validate/variables.js";

const ToolFileShell = ToolFile.extend({ tools: z.array(z.unknown()) });
const KNOWN_TOOL_KEYS = new Set([HttpTool, McpTool, ExecTool, BuiltinTool, PromptTool].flatMap((s) => Object.keys(s.shape)));
const suggestToolKey = (key: string) => closest(key, KNOWN_TOOL_KEYS);
const KEYS_BY_KIND: Record<string, string[]> = Object.fromEntries(
  [HttpTool, McpTool, ExecTool, BuiltinTool, PromptTool].map((s) => [s.shape.kind.value, Object.keys(s.shape)]),
);

/**
 * An unknown key hides nothing else: the tool is checked again without its unknown top-level keys, so
 * template, schema and reference problems of the same tool arrive in the same run. A key with no close
 * match lists the keys the tool's kind takes.
 */
function recheckWithoutUnknownKeys(family: FamilyScope, raw: unknown, findings: Finding[], limits?: SchemaLimits): Finding[] {
  if (!isRecord(raw)) return findings;
  const valid = typeof raw.kind === "string" ? KEYS_BY_KIND[raw.kind] : undefined;
  const unknown = new Set(findings.filter((f) => f.code === "UNKNOWN_KEY" && f.at.length === 1).map((f) => String(f.at[0])));
  const out = findings.map((f) =>
    f.code === "UNKNOWN_KEY" && f.at.length === 1 && valid && !f.message.includes("did you mean")
      ? { ...f, message: `${f.message}: a ${String(raw.kind)} tool takes ${valid.map((k) => `\`${k}\``).join(", ")}` }
      : f,
  );
  if (unknown.size === 0 || findings.some((f) => f.code !== "UNKNOWN_KEY")) return out;
  const again = ToolDef.safeParse(Object.fromEntries(Object.entries(raw).filter(([k]) => !unknown.has(k))));
  if (!again.success) return out;
  const more = checkToolDef(family, again.data, limits);
  if (again.data.kind === "http") more.push(...checkUrlInEgress(again.data.url, family.egress, ["url"]));
  return [...out, ...more];
}

export type ToolEntryResult = { index: number; tool?: string; findings: Finding[]; catalog?: CatalogTool };

/**
 * Validate and project every entry of one parsed tool file; `findings` paths are relative to the file root.
 * `family` says which `${NAME}`s its templates may read and the exec environment its tools share.
 */
export function toolsFromFile(
  family: FamilyScope,
  value: unknown,
  source: string,
  limits?: SchemaLimits,
): { fileFindings: Finding[]; entries: ToolEntryResult[] } {
  const shell = ToolFileShell.safeParse(value);
  const fileFindings = shell.success ? [] : issuesToFindings(shell.error.issues, value);
  const rawTools = isRecord(value) && Array.isArray(value.tools) ? value.tools : [];
  const entries = rawTools.map((raw, index): ToolEntryResult => {
    const name = isRecord(raw) && typeof raw.name === "string" ? fullName(family.name, raw.name) : undefined;
    const base = ["tools", index];
    const parsed = ToolDef.safeParse(raw);
    if (!parsed.success) {
      const findings = recheckWithoutUnknownKeys(
        family,
        raw,
        issuesToFindings(parsed.error.issues, raw, (key) => suggestToolKey(key)),
        limits,
      );
      return { index, tool: name, findings: findings.map((f) => ({ ...f, at: [...base, ...f.at] })) };
    }
    const own = checkToolDef(family, parsed.data, limits);
    if (parsed.data.kind === "http") own.push(...checkUrlInEgress(parsed.data.url, family.egress, ["url"]));
    const findings = own.map((f) => ({ ...f, at: [...base, ...f.at] }));
    return { index, tool: name, findings, catalog: project(family, parsed.data, source) };
  });
  return { fileFindings, entries };
}

export function governanceOf(t: GovernanceInfo): GovernanceInfo {
  const g: GovernanceInfo = {};
  if (t.read_only !== undefined) g.read_only = t.read_only;
  if (t.destructive !== undefined) g.destructive = t.destructive;
  if (t.idempotent !== undefined) g.idempotent = t.idempotent;
  if (t.consequential !== undefined) g.consequential = t.consequential;
  if (t.affects !== undefined) g.affects = t.affects;
  if (t.impact !== undefined) g.impact = t.impact;
  if (t.audit_args !== undefined) g.audit_args = t.audit_args;
  return g;
}

function project(family: FamilyScope, t: ToolDef, source: string): CatalogTool {
  const tool: CatalogTool = {
    name: fullName(family.name, t.name),
    family: family.name,
    kind: t.kind,
    description: t.description.trim(),
    input_schema: t.input_schema ?? { ...EMPTY_INPUT_SCHEMA, properties: {} },
    governance: governanceOf(t),
    timeout_ms: Math.round((t.timeout_secs ?? DEFAULT_TIMEOUT_SECS) * 1000),
    backend: backendOf(t, family),
    source,
  };
  if (t.output_schema !== undefined) tool.output_schema = t.output_schema;
  if (t.tags !== undefined) tool.tags = t.tags;
  if (t.details?.trim()) tool.details = t.details.trim();
  if (t.examples?.length) tool.examples = t.examples.map((e) => e.trim());
  if (t.aliases?.length) tool.aliases = t.aliases.map((a) => a.trim());
  if (t.deprecated !== undefined) tool.deprecated = t.deprecated;
  if (t.result_budget_tokens !== undefined) tool.result_budget_tokens = t.result_budget_tokens;
  return tool;
}

function backendOf(t: ToolDef, family: FamilyScope): CatalogTool["backend"] {
  switch (t.kind) {
    case "http":
      return {
        kind: "http",
        method: t.method,
        url: t.url,
        ...(t.headers ? { headers: t.headers } : {}),
        ...(t.query ? { query: t.query } : {}),
        ...(t.body !== undefined ? { body: t.body } : {}),
        ...(t.defaults !== undefined ? { defaults: t.defaults } : {}),
        output: t.output,
        // The runtime checks every resolved URL against this list (lambdas/backends/http.ts).
        egress: family.egress ? [...family.egress] : derivedEgress(t.url),
      };
    case "mcp":
      return { kind: "mcp", url: t.url, ...(t.headers ? { headers: t.headers } : {}), tool: t.upstream_tool ?? t.name };
    case "exec": {
      // The family's environment, extended (and overridden) by the tool's: the runtime adds only the minimal base.
      const env = { ...family.env, ...t.env };
      return {
        kind: "exec",
        command: t.command,
        args: t.args,
        ...(Object.keys(env).length > 0 ? { env } : {}),
        ...(t.cwd !== undefined ? { cwd: t.cwd } : {}),
        ...(t.paths?.length ? { paths: t.paths } : {}),
        output: t.output,
        ...(t.not_found_exit_codes?.length ? { not_found_exit_codes: t.not_found_exit_codes } : {}),
      };
    }
    case "builtin":
      return { kind: "builtin", handler: t.handler };
    case "prompt":
      return { kind: "prompt", prompt: t.prompt, model: t.model };
  }
}
