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
    description: "Call any tool you are allowed to use by its full name with its arguments, after its arguments are validated.",
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
