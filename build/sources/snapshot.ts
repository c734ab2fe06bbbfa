// An MCP family: the snapshot written by `registry:pull`, projected offline into catalog tools.
import type { CatalogTool, GovernanceInfo } from "../../registry/contract/artifact.js";
import { fullName } from "../../registry/contract/names.js";
import { printable } from "../../registry/contract/printable.js";
import { SnapshotFile } from "../../registry/contract/snapshot.js";
import { DEFAULT_TIMEOUT_SECS } from "../../registry/contract/tool.js";
import { checkDescription, firstSentence } from "../validate/description.js";
import { checkInputSchema, checkJsonSchema } from "../validate/json-schema.js";
import type { SchemaLimits } from "../validate/schema-limits.js";
import { issuesToFindings } from "../validate/issues.js";
import { checkToolName } from "../validate/tool.js";
import { checkExamples } from "../validate/values.js";
import type { Finding } from "../validate/finding.js";
import type { ToolEntryResult } from "./tools-folder.js";

export type McpEndpoint = { url: string; headers?: Record<string, string> };

export function toolsFromSnapshot(
  family: string,
  value: unknown,
  endpoint: McpEndpoint,
  source: string,
  limits?: SchemaLimits,
): { fileFindings: Finding[]; entries: ToolEntryResult[] } {
  const parsed = SnapshotFile.safeParse(value);
  if (!parsed.success) return { fileFindings: issuesToFindings(parsed.error.issues, value), entries: [] };
  const entries = parsed.data.tools.map((t, index): ToolEntryResult => {
    const at = (...rest: (string | number)[]) => ["tools", index, ...rest];
    // MCP descriptions are often paragraphs: the catalog keeps the first sentence, the title as a fallback;
    // an upstream's control and bidi characters reach agents escaped, never raw.
    const description = printable(firstSentence(t.description ?? "") || (t.title ?? "").trim(), { multiline: true });
    const findings: Finding[] = [
      ...checkToolName(family, t.name, at("name")),
      ...checkDescription(description, at("description")),
      ...checkInputSchema(t.inputSchema, at("inputSchema"), "lenient", limits),
      ...(t.outputSchema ? checkJsonSchema(t.outputSchema, at("outputSchema"), "lenient", limits) : []),
      // Pulled from an upstream, not written here: a refused example is a warning, as for other imports.
      ...checkExamples(t.inputSchema, at("inputSchema"), "warning"),
      ...checkExamples(t.outputSchema, at("outputSchema"), "warning"),
    ];
    const tool: CatalogTool = {
      name: fullName(family, t.name),
      family,
      kind: "mcp",
      description,
      input_schema: t.inputSchema,
      governance: governanceFromAnnotations(t.annotations),
      timeout_ms: DEFAULT_TIMEOUT_SECS * 1000,
      backend: { kind: "mcp", url: endpoint.url, ...(endpoint.headers ? { headers: endpoint.headers } : {}), tool: t.name },
      source,
    };
    if (t.outputSchema) tool.output_schema = t.outputSchema;
    return { index, tool: tool.name, findings, catalog: tool };
  });
  return { fileFindings: [], entries };
}

/**
 * MCP hints → governance. Per the MCP spec, destructive and idempotent hints mean something only when
 * the tool is not read-only, so a read-only tool keeps just `read_only` (no false contradiction).
 */
export function governanceFromAnnotations(a: Record<string, unknown> | undefined): GovernanceInfo {
  const g: GovernanceInfo = {};
  if (!a) return g;
  if (typeof a.readOnlyHint === "boolean") g.read_only = a.readOnlyHint;
  if (g.read_only) return g;
  if (typeof a.destructiveHint === "boolean") g.destructive = a.destructiveHint;
  if (typeof a.idempotentHint === "boolean") g.idempotent = a.idempotentHint;
  return g;
}
