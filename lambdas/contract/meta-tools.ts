// The builtin meta-tools as every entry point shows them: description and input schema. The registry
// declares them in registry/families/toolbelt/tools.yaml; a test holds that file to these.
import type { JsonSchema } from "../../registry/contract/schema-types.js";
import type * as z from "../core/zod-mini.js";
import { CallInput, ReshapeInput } from "./call.js";
import { FindInput } from "./find.js";
import { jsonSchema } from "./schema.js";

type MetaTool = { description: string; input: z.ZodMiniType };

export const META_TOOL_CONTRACTS = {
  "toolbelt.find": {
    description: "Search the tool registry for the tools that can do one capability, best match first, with their input schemas.",
    input: FindInput,
  },
  "toolbelt.call": {
    description: "Call any tool you may use by name, with its arguments checked against its input schema.",
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

/**
 * toolbelt.find's options that only decision mode reads (lambdas/core/find/decision.ts). A surface
 * advertises them only where a decider is configured: elsewhere they cost every surface about 175
 * tokens for a mode that answers by keywords anyway. A call may still send them (validated as before).
 */
export const DECISION_OPTIONS = ["mode", "min_probability", "chunk_size", "model"] as const;

/** o200k_base tokens the decision options add to toolbelt.find's surface entry (a unit test counts them). */
export const DECISION_OPTIONS_TOKENS = 134;

/** A find input schema without the decision options, and whether it had any. */
export function withoutDecisionOptions(schema: JsonSchema): { schema: JsonSchema; removed: boolean } {
  const props = schema.properties as Record<string, unknown> | undefined;
  if (!props || !DECISION_OPTIONS.some((k) => Object.hasOwn(props, k))) return { schema, removed: false };
  const kept = Object.fromEntries(Object.entries(props).filter(([k]) => !(DECISION_OPTIONS as readonly string[]).includes(k)));
  return { schema: { ...schema, properties: kept }, removed: true };
}
