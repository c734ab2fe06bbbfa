// Pinned upstream definitions: a digest of each pulled or imported tool's definition, written by the
// build into the artifact, so that `registry:pull --check` and the gateway can tell when an upstream
// changed a tool after it was reviewed. Shared by build/ and lambdas/ (node:crypto only).
import { createHash } from "node:crypto";
import { printable } from "./printable.js";

/** A tool as an MCP server lists it (tools/list), or as a snapshot stores it. */
export type UpstreamTool = {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
};

/** The parts of a definition that can drift, in the order a change is reported. */
export const DEFINITION_FIELDS = ["description", "title", "input_schema", "output_schema", "annotations"] as const;
export type DefinitionField = (typeof DEFINITION_FIELDS)[number];

/**
 * A tool's pin, as the artifact stores it. `sha256` covers the whole definition and decides drift;
 * `fields` (MCP tools only) are short digests that only name what changed.
 */
export type ToolDigest = {
  sha256: string;
  fields?: Partial<Record<DefinitionField, string>>;
  /** The family allows a changed definition with a warning (families.yaml `mcp.drift: warn`); absent: refused. */
  drift?: "warn";
};

/** JSON with object keys sorted at every level, so equal values have one text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

const sha256 = (value: unknown) =>
  createHash("sha256")
    .update(canonicalJson(value) ?? "null", "utf8")
    .digest("hex");

/** The tool as a snapshot stores it: text meant for people escaped as the pull escapes it, so a live list and its snapshot compare equal. */
export function pinnedForm(t: UpstreamTool): UpstreamTool {
  return {
    name: t.name,
    ...(t.title !== undefined ? { title: printable(t.title) } : {}),
    ...(t.description !== undefined ? { description: printable(t.description, { multiline: true }) } : {}),
    inputSchema: t.inputSchema,
    ...(t.outputSchema !== undefined ? { outputSchema: t.outputSchema } : {}),
    ...(t.annotations !== undefined ? { annotations: t.annotations } : {}),
  };
}

const fieldsOf = (t: UpstreamTool): Record<DefinitionField, unknown> => ({
  description: t.description ?? null,
  title: t.title ?? null,
  input_schema: t.inputSchema,
  output_schema: t.outputSchema ?? null,
  annotations: t.annotations ?? null,
});

/** The pin of an upstream (MCP) tool, from its snapshot entry or a live list (escaping twice changes nothing). */
export function upstreamDigest(t: UpstreamTool): ToolDigest {
  const parts = fieldsOf(pinnedForm(t));
  const fields: Partial<Record<DefinitionField, string>> = {};
  // 16 hex digits name a changed part; the full digest, not these, decides whether anything changed.
  for (const f of DEFINITION_FIELDS) fields[f] = sha256(parts[f]).slice(0, 16);
  return { sha256: sha256({ name: t.name, ...parts }), fields };
}

/** The pin of an imported or hand-written tool: its definition as the catalog holds it. */
export function definitionDigest(t: { name: string; description: string; input_schema: unknown; output_schema?: unknown; governance?: unknown }): ToolDigest {
  return {
    sha256: sha256({
      name: t.name,
      description: t.description,
      input_schema: t.input_schema,
      output_schema: t.output_schema ?? null,
      governance: t.governance ?? {},
    }),
  };
}

/**
 * What changed between a pin and the tool as listed now: nothing (`[]`), the named parts, `definition`
 * when the whole differs but no part's short digest does, or `removed` when the upstream no longer lists it.
 */
export function driftOf(pinned: ToolDigest, live: UpstreamTool | undefined): string[] {
  if (!live) return ["removed"];
  const now = upstreamDigest(live);
  if (now.sha256 === pinned.sha256) return [];
  const changed = DEFINITION_FIELDS.filter((f) => pinned.fields?.[f] !== undefined && pinned.fields[f] !== now.fields?.[f]);
  return changed.length ? changed : ["definition"];
}
