// What the MCP endpoint advertises: one fixed `tools/list` per principal and brief (2026-07-28 forbids
// per-connection lists, and major clients ignore list_changed), built from the same catalog, grants,
// always-loaded list and briefs as the REST surface. Pins never change the list; they travel as the
// `belt` handle in find_tool/call_tool arguments and results.
import type { CatalogTool } from "../../registry/contract/artifact.js";
import type { BriefFile } from "../../registry/contract/brief.js";
import { META_TOOLS, modelNameOf } from "../../registry/contract/names.js";
import type { JsonSchema } from "../../registry/contract/schema-types.js";
import { withoutExamples } from "../../registry/contract/surface-entry.js";
import type { Caller } from "../core/ports.js";
import { CallInput, IdempotencyKey } from "../contract/call.js";
import { FindInput } from "../contract/find.js";
import { described, jsonSchema } from "../contract/schema.js";
import { SessionId, type Manifest } from "../contract/sessions.js";
import { withoutDecisionOptions } from "../contract/meta-tools.js";
import { declarationMatcher, standingReason } from "../core/surface.js";
import * as z from "../core/zod-mini.js";

export const FIND_TOOL = "find_tool";
export const CALL_TOOL = "call_tool";

const belt = described(
  z.optional(SessionId),
  "The `belt` id a find_tool result returned (a REST session id). Pass it on every later call so the tools you use stay pinned",
);

export const FindToolInput = z.extend(FindInput, { belt });
export type FindToolInput = z.infer<typeof FindToolInput>;

export const CallToolInput = z.extend(CallInput, {
  belt,
  idempotency_key: z.optional(IdempotencyKey),
});
export type CallToolInput = z.infer<typeof CallToolInput>;

export type McpToolAnnotations = { readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean };

/** MCP's value for a hint a tool does not send. */
const HINT_DEFAULTS: Required<McpToolAnnotations> = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true };

/** Only the hints that differ from MCP's defaults: the rest cost tokens on every tools/list and say nothing. */
function differingHints(hints: Required<McpToolAnnotations>): McpToolAnnotations {
  return Object.fromEntries(Object.entries(hints).filter(([k, v]) => HINT_DEFAULTS[k as keyof McpToolAnnotations] !== v));
}

export type McpTool = {
  name: string;
  title?: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  annotations?: McpToolAnnotations;
};

const withHints = (hints: McpToolAnnotations) => (Object.keys(hints).length > 0 ? { annotations: hints } : {});

// MCP tool schemas are draft-07.
const toSchema = (s: z.ZodMiniType) => jsonSchema(s, "input", "draft-7") as JsonSchema & { properties: Record<string, JsonSchema> };

/**
 * MCP's hints from the registry's governance: read_only, destructive and idempotent map one to one;
 * a tool is open-world when it affects someone (consequential) or leaves the gateway (every kind but builtin).
 */
export function annotationsOf(t: Pick<CatalogTool, "governance" | "kind">): McpToolAnnotations {
  const g = t.governance;
  return differingHints({
    readOnlyHint: g.read_only === true,
    destructiveHint: g.read_only !== true && g.destructive === true,
    idempotentHint: g.read_only === true || g.idempotent === true,
    openWorldHint: g.consequential === true || t.kind !== "builtin",
  });
}

const isObjectSchema = (s: JsonSchema | undefined): s is JsonSchema => typeof s === "object" && s !== null && (s as { type?: unknown }).type === "object";

/** A catalog tool as a directly callable MCP tool, under its model-safe name; its schemas as the REST surface shows them (no examples). */
export function directTool(t: CatalogTool): McpTool {
  return {
    name: modelNameOf(t),
    title: t.name,
    description: t.description,
    // MCP requires object schemas; a registry schema without `type` (any JSON) is offered as an open object.
    inputSchema: isObjectSchema(t.input_schema) ? withoutExamples(t.input_schema) : { type: "object" },
    ...(isObjectSchema(t.output_schema) ? { outputSchema: withoutExamples(t.output_schema) } : {}),
    ...withHints(annotationsOf(t)),
  };
}

/** find_tool; its decision-mode options only where a decider is configured (as on the REST surface). */
function findTool(decisionMode: boolean): McpTool {
  const schema = toSchema(FindToolInput);
  return {
    name: FIND_TOOL,
    title: "Find a tool",
    description:
      "Search every tool you may call by one capability, in words, and get the best matches (the top 3 with their input schemas; search a tool's exact name for its schema), plus the tools already pinned on your belt. " +
      "The first call opens a belt and returns its id as `belt`; pass it back on later find_tool and call_tool calls (it is the same id as a Toolbelt REST session). " +
      "Call a found tool with call_tool, by the `name` shown.",
    inputSchema: decisionMode ? schema : withoutDecisionOptions(schema).schema,
    ...withHints(differingHints({ readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: false })),
  };
}

/**
 * call_tool. Its `tool` argument is a plain string, not an enum of the granted names: an enum costs about
 * 5 tokens a name on every tools/list (1,500 at 6 KB of names) for names the model learns from find_tool
 * anyway, and the gateway checks every name (404 with the nearest names) and resolves either spelling.
 */
function callTool(): McpTool {
  const schema = toSchema(CallToolInput);
  schema.properties.tool = {
    ...schema.properties.tool,
    description: "The tool to call, by the `name` find_tool shows (`family_verb`; `family.verb` works too).",
  };
  return {
    name: CALL_TOOL,
    title: "Call a tool",
    description:
      "Call any tool you may call by name, with arguments checked against its input schema. Pass `belt` (from find_tool) so the tool is pinned: " +
      "pinned tools come back first in every find_tool result, and you may keep calling a tool by the same name without searching again.",
    inputSchema: schema,
    // No annotations: MCP's defaults (may write, may destroy, not idempotent, open world) are what call_tool is.
  };
}

/**
 * The tools a principal's list carries directly: always-loaded and brief-declared, granted, callable (as on the
 * REST belt: a tool without a backend is found, flagged, never listed), never a meta-tool.
 */
function directCatalogTools(tools: readonly CatalogTool[], caller: Caller, isAlwaysLoaded: (name: string) => boolean, brief?: BriefFile): CatalogTool[] {
  const isDeclared = brief ? declarationMatcher(brief.tools) : () => false;
  const meta = new Set(META_TOOLS);
  return tools.filter(
    (t) =>
      caller.granted(t.name) &&
      !meta.has(t.name) &&
      standingReason(t, isAlwaysLoaded, isDeclared) !== undefined &&
      // A catalog tool whose projection is a meta-tool's name stays reachable through call_tool only.
      modelNameOf(t) !== FIND_TOOL &&
      modelNameOf(t) !== CALL_TOOL,
  );
}

/** The capability manifest as the lines of MCP's instructions: one family a line, then the closing line. */
export function manifestText(manifest: Manifest): string {
  const lines = manifest.families.map((f) => `- ${f.name} (${f.tool_count} tools, such as ${f.examples.join(", ")}): ${f.description}`);
  return [...(lines.length ? ["Tool families you may search:", ...lines] : []), manifest.note.replaceAll("toolbelt.find", FIND_TOOL)].join("\n");
}

export type ToolLists = {
  /** `tools/list` for this principal and brief: find_tool, call_tool, then the direct tools by name. */
  list(caller: Caller, brief?: BriefFile): McpTool[];
  /** The catalog names of the direct tools on that list (their schemas are in the client's hands already). */
  listed(caller: Caller, brief?: BriefFile): ReadonlySet<string>;
};

export type ToolListOptions = {
  /** A decider is configured: find_tool advertises its decision-mode options. */
  decisionMode?: boolean;
};

/** Lists are computed once per principal and brief per cold start (callers are one object per principal). */
export function createToolLists(tools: readonly CatalogTool[], isAlwaysLoaded: (name: string) => boolean, options: ToolListOptions = {}): ToolLists {
  const cache = new WeakMap<Caller, Map<string, { list: McpTool[]; listed: Set<string> }>>();
  const meta = [findTool(options.decisionMode ?? false), callTool()];
  const entry = (caller: Caller, brief?: BriefFile) => {
    let byBrief = cache.get(caller);
    if (!byBrief) cache.set(caller, (byBrief = new Map()));
    const key = brief?.name ?? "";
    let e = byBrief.get(key);
    if (!e) {
      const direct = directCatalogTools(tools, caller, isAlwaysLoaded, brief);
      e = { list: [...meta, ...direct.map(directTool)], listed: new Set(direct.map((t) => t.name)) };
      byBrief.set(key, e);
    }
    return e;
  };
  return {
    list: (caller, brief) => entry(caller, brief).list,
    listed: (caller, brief) => entry(caller, brief).listed,
  };
}
