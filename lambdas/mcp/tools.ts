// What the MCP endpoint advertises: one fixed `tools/list` per principal and brief (2026-07-28 forbids
// per-connection lists, and major clients ignore list_changed), built from the same catalog, grants,
// always-loaded list and briefs as the REST surface. Pins never change the list; they travel as the
// `belt` handle in find_tool/call_tool arguments and results.
import { deprecationOf } from "../core/deprecated.js";
import type { CatalogTool } from "../../registry/contract/artifact.js";
import type { BriefFile } from "../../registry/contract/brief.js";
import { META_TOOLS, modelNameOf } from "../../registry/contract/names.js";
import type { JsonSchema } from "../../registry/contract/schema-types.js";
import { withoutExamples } from "../../registry/contract/surface-entry.js";
import type { Caller } from "../core/ports.js";
import { CallInput, ContinuationToken, IdempotencyKey } from "../contract/call.js";
import { FindInput } from "../contract/find.js";
import { described, jsonSchema } from "../contract/schema.js";
import { SESSION_ID_RE, type Manifest } from "../contract/sessions.js";
import { costOf, declarationMatcher, metaEntry, standingReason } from "../core/surface.js";
import * as z from "../core/zod-mini.js";

export const FIND_TOOL = "find_tool";
export const CALL_TOOL = "call_tool";

// A session id under MCP's name for it, refused in those words (not REST's "as returned by POST /v1/sessions").
const belt = described(z.optional(z.string().check(z.regex(SESSION_ID_RE, "a belt id as find_tool returns it"))), "The belt id find_tool returned.");

/** What MCP adds to the meta-tools' registry entries, on the list: the belt handle. */
const EXTRAS = { belt };

export const FindToolInput = z.extend(FindInput, EXTRAS);
export type FindToolInput = z.infer<typeof FindToolInput>;

/**
 * call_tool also takes `idempotency_key` (REST's Idempotency-Key header; README "Idempotent calls"), left off
 * its listed schema: about 65 tokens on every tools/list for a key that programs retrying a call send (unlisted
 * arguments are accepted all the same), rarely a model.
 */
export const CallToolInput = z.extend(CallInput, {
  ...EXTRAS,
  idempotency_key: z.optional(IdempotencyKey),
  // Unlisted too: the note beside a cut answer tells the model to send it.
  continuation: z.optional(ContinuationToken),
});
export type CallToolInput = z.infer<typeof CallToolInput>;

export type McpToolAnnotations = { readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean };

/** MCP's value for a hint a tool does not send. */
const HINT_DEFAULTS: Required<McpToolAnnotations> = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true };

/**
 * Only the hints that say something: those that differ from MCP's defaults, and for a read-only tool not
 * destructiveHint or idempotentHint (MCP: meaningful only when readOnlyHint is false). The rest cost
 * tokens on every tools/list (about 12 a read-only tool) and say nothing.
 */
function differingHints(hints: Required<McpToolAnnotations>): McpToolAnnotations {
  const meaningless = (k: string) => hints.readOnlyHint && (k === "destructiveHint" || k === "idempotentHint");
  return Object.fromEntries(Object.entries(hints).filter(([k, v]) => HINT_DEFAULTS[k as keyof McpToolAnnotations] !== v && !meaningless(k)));
}

// No `title`: it is display-only, and a dotted name on every listed tool cost about 6 tokens each.
export type McpTool = {
  name: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  annotations?: McpToolAnnotations;
};

const withHints = (hints: McpToolAnnotations) => (Object.keys(hints).length > 0 ? { annotations: hints } : {});

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
    description: t.description,
    // MCP requires object schemas; a registry schema without `type` (any JSON) is offered as an open object.
    inputSchema: isObjectSchema(t.input_schema) ? withoutExamples(t.input_schema) : { type: "object" },
    // Kept: a client may check results against it, and server.ts answers such tools with matching structuredContent.
    ...(isObjectSchema(t.output_schema) ? { outputSchema: withoutExamples(t.output_schema) } : {}),
    ...withHints(annotationsOf(t)),
  };
}

/**
 * find_tool and call_tool: the meta-tool's entry as the REST surface advertises it (the registry's, so one
 * source: no examples, find's tuning options never and its decision-mode options only where a decider is
 * configured; call's `tool` a plain string, not an enum of granted names at about 5 tokens a name on every
 * list), under its MCP name, plus `belt` (its JSON Schema from the contract above, draft-07 like every MCP schema).
 */
const LISTED_EXTRAS = jsonSchema(z.object(EXTRAS), "input", "draft-7").properties as Record<string, JsonSchema>;

const META = [
  // Read-only and closed-world for the hints: it searches the catalog (opening a belt is bookkeeping).
  { name: FIND_TOOL, registry: "toolbelt.find", hints: { readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: false } },
  // No hints: MCP's defaults (may write, may destroy, not idempotent, open world) are what call_tool is.
  { name: CALL_TOOL, registry: "toolbelt.call", hints: HINT_DEFAULTS },
] as const;

/** The registry name of the meta-tool MCP lists as `name` (find_tool → toolbelt.find), if it is one. */
export const metaRegistryName = (name: string): string | undefined => META.find((m) => m.name === name)?.registry;

function metaTool(m: (typeof META)[number], catalog: CatalogTool | undefined, decisionMode: boolean): McpTool {
  const { entry } = metaEntry(catalog, m.registry, decisionMode);
  const schema = entry.input_schema as JsonSchema & { properties?: Record<string, JsonSchema> };
  return {
    name: m.name,
    description: entry.description,
    inputSchema: { ...schema, properties: { ...schema.properties, ...LISTED_EXTRAS } },
    ...withHints(differingHints(m.hints)),
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
      // Retired tools are listed nowhere (surfaces drop them too).
      !deprecationOf(t) &&
      standingReason(t, isAlwaysLoaded, isDeclared) !== undefined &&
      // A catalog tool whose projection is a meta-tool's name stays reachable through call_tool only.
      modelNameOf(t) !== FIND_TOOL &&
      modelNameOf(t) !== CALL_TOOL,
  );
}

/** The instructions' own words, before the manifest. */
const GUIDE = "Find tools with find_tool and run them with call_tool; pass the `belt` id find_tool returns on every later call.";

/** The capability manifest as the lines of MCP's instructions: one family a line, then the closing line. */
export function manifestText(manifest: Manifest): string {
  const lines = manifest.families.map(
    (f) => `- ${f.name} (${f.tool_count} ${f.tool_count === 1 ? "tool" : "tools"}, such as ${f.examples.join(", ")}): ${f.description}`,
  );
  return [...(lines.length ? ["Tool families you may search:", ...lines] : []), manifest.note.replaceAll("toolbelt.find", FIND_TOOL)].join("\n");
}

/** The server's instructions: the guide, then the capability manifest. */
const instructionsText = (manifest: Manifest): string => `${GUIDE}\n\n${manifestText(manifest)}`;

/** Tokens of the instructions' words around the manifest (the guide and the heading), counted as bytes / 4 (ASCII English: overstates). */
const GUIDE_TOKENS = costOf(undefined, `${GUIDE}\n\nTool families you may search:`);

export type ToolLists = {
  /** `tools/list` for this principal and brief: find_tool, call_tool, then the direct tools by name. */
  list(caller: Caller, brief?: BriefFile): McpTool[];
  /** The catalog names of the direct tools on that list (their schemas are in the client's hands already). */
  listed(caller: Caller, brief?: BriefFile): ReadonlySet<string>;
  /**
   * The server's instructions for this principal and brief. `manifest` fits the capability manifest into what
   * the list and the instructions' own words leave of the surface budget (`usedTokens`, by the build's counts,
   * bytes / 4 where there are none), so list + instructions keep to it; asked once per principal and brief.
   */
  instructions(caller: Caller, brief: BriefFile | undefined, manifest: (usedTokens: number) => Manifest): string;
};

export type ToolListOptions = {
  /** A decider is configured: find_tool advertises its decision-mode options. */
  decisionMode?: boolean;
};

/**
 * What a listed tool costs: a catalog tool's build count (of its surface entry, which names it twice where
 * MCP names it once) plus its hints, else bytes / 4 of it; and a separator.
 */
const listedCost = (tool: McpTool, t?: CatalogTool) =>
  (t?.tokens === undefined ? costOf(undefined, tool) : t.tokens + (tool.annotations ? costOf(undefined, tool.annotations) + 3 : 0)) + 1;

/** Lists are computed once per principal and brief per cold start (callers are one object per principal). */
export function createToolLists(tools: readonly CatalogTool[], isAlwaysLoaded: (name: string) => boolean, options: ToolListOptions = {}): ToolLists {
  const cache = new WeakMap<Caller, Map<string, { list: McpTool[]; listed: Set<string>; used: number; instructions?: string }>>();
  const decisionMode = options.decisionMode ?? false;
  const meta = META.map((m) =>
    metaTool(
      m,
      tools.find((t) => t.name === m.registry),
      decisionMode,
    ),
  );
  const metaCost = meta.reduce((n, m) => n + listedCost(m), 0);
  const entry = (caller: Caller, brief?: BriefFile) => {
    let byBrief = cache.get(caller);
    if (!byBrief) cache.set(caller, (byBrief = new Map()));
    const key = brief?.name ?? "";
    let e = byBrief.get(key);
    if (!e) {
      const direct = directCatalogTools(tools, caller, isAlwaysLoaded, brief);
      const listedTools = direct.map(directTool);
      const used = listedTools.reduce((n, tool, i) => n + listedCost(tool, direct[i]), metaCost + GUIDE_TOKENS);
      e = { list: [...meta, ...listedTools], listed: new Set(direct.map((t) => t.name)), used };
      byBrief.set(key, e);
    }
    return e;
  };
  return {
    list: (caller, brief) => entry(caller, brief).list,
    listed: (caller, brief) => entry(caller, brief).listed,
    instructions: (caller, brief, manifest) => {
      const e = entry(caller, brief);
      e.instructions ??= instructionsText(manifest(e.used));
      return e.instructions;
    },
  };
}
