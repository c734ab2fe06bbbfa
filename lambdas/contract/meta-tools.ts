// The builtin meta-tools as every entry point shows them: description and input schema. The registry
// declares them in registry/families/toolbelt/tools.yaml; a test holds that file to these.
import type { CatalogTool } from "../../registry/contract/artifact.js";
import { modelName } from "../../registry/contract/names.js";
import type { JsonSchema } from "../../registry/contract/schema-types.js";
import type * as z from "../core/zod-mini.js";
import { CallInput, ReshapeInput } from "./call.js";
import { FindInput } from "./find.js";
import { jsonSchema } from "./schema.js";

type MetaTool = { description: string; input: z.ZodMiniType };

export const META_TOOL_CONTRACTS = {
  "toolbelt.find": {
    description: "Find tools for one capability, best first, with their input schemas.",
    input: FindInput,
  },
  "toolbelt.call": {
    description: "Call a tool by name.",
    input: CallInput,
  },
  "toolbelt.reshape": {
    description: "Reshape a JSON value into a smaller object by picking fields with paths, to keep only what the next step needs.",
    input: ReshapeInput,
  },
} as const satisfies Record<string, MetaTool>;

export type MetaToolName = keyof typeof META_TOOL_CONTRACTS;

const definitions = new Map<MetaToolName, { description: string; input_schema: JsonSchema }>();

/** A meta-tool's description and the JSON Schema of its input (what tools.yaml declares); generated on first use. */
export function metaToolDefinition(name: MetaToolName): { description: string; input_schema: JsonSchema } {
  let def = definitions.get(name);
  if (!def) {
    const { description, input } = META_TOOL_CONTRACTS[name];
    definitions.set(name, (def = { description, input_schema: jsonSchema(input, "input") }));
  }
  return def;
}

export const isMetaToolName = (name: string): name is MetaToolName => Object.hasOwn(META_TOOL_CONTRACTS, name);

/** What registry/families/toolbelt/tools.yaml declares of find and call beyond their contracts (a unit test holds the two equal). */
export const META_TOOL_SETTINGS = {
  "toolbelt.find": { handler: "find", governance: { read_only: true, idempotent: true }, timeout_ms: 10_000 },
  "toolbelt.call": { handler: "call", governance: {}, timeout_ms: 60_000 },
} as const;

/**
 * The catalog with find and call added where its registry does not declare them (a registry started by
 * registry:init has no toolbelt family): every surface shows them and every principal may call them, so
 * `POST /v1/call {"tool": "toolbelt.find"}` must not answer that no such tool exists.
 */
export function withMetaTools(byName: ReadonlyMap<string, CatalogTool>): ReadonlyMap<string, CatalogTool> {
  const missing = (Object.keys(META_TOOL_SETTINGS) as (keyof typeof META_TOOL_SETTINGS)[]).filter((name) => !byName.has(name));
  if (missing.length === 0) return byName;
  const tools = new Map(byName);
  for (const name of missing) {
    const { handler, governance, timeout_ms } = META_TOOL_SETTINGS[name];
    tools.set(name, {
      name,
      model_name: modelName(name),
      family: "toolbelt",
      kind: "builtin",
      ...metaToolDefinition(name),
      governance: { ...governance },
      timeout_ms,
      backend: { kind: "builtin", handler },
      source: "(the gateway)",
    });
  }
  return tools;
}

/**
 * toolbelt.find's options that only decision mode reads (lambdas/core/find/decision.ts). A surface
 * advertises them only where a decider is configured: elsewhere they cost every surface about 134
 * tokens for a mode that answers by keywords anyway. A call may still send them (validated as before).
 */
export const DECISION_OPTIONS = ["mode", "min_probability", "chunk_size", "model"] as const;

/**
 * toolbelt.find's options for tuning a search (a score bar, which words matched): for people and programs,
 * not a model choosing a tool. Surfaces and MCP's find_tool leave them out (41 tokens on each), a call may
 * still send them, and POST /v1/find's OpenAPI document describes them.
 */
export const TUNING_OPTIONS = ["min_score", "explain"] as const;

/** o200k tokens each group of options adds to toolbelt.find's surface entry (a unit test counts them). */
export const DECISION_OPTIONS_TOKENS = 134;
export const TUNING_OPTIONS_TOKENS = 41;

/** toolbelt.find's input schema as surfaces advertise it, and the o200k tokens that leaves off the registry's entry. */
export function advertisedFindSchema(schema: JsonSchema, decisionMode: boolean): { schema: JsonSchema; savedTokens: number } {
  const props = schema.properties as Record<string, unknown> | undefined;
  const groups: [readonly string[], number][] = [[TUNING_OPTIONS, TUNING_OPTIONS_TOKENS]];
  if (!decisionMode) groups.push([DECISION_OPTIONS, DECISION_OPTIONS_TOKENS]);
  const present = groups.filter(([names]) => props && names.some((k) => Object.hasOwn(props, k)));
  if (!props || present.length === 0) return { schema, savedTokens: 0 };
  const hidden = new Set(present.flatMap(([names]) => names));
  const kept = Object.fromEntries(Object.entries(props).filter(([k]) => !hidden.has(k)));
  return { schema: { ...schema, properties: kept }, savedTokens: present.reduce((n, [, tokens]) => n + tokens, 0) };
}
