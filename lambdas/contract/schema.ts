// Helpers the contract's schemas share: descriptions as JSON Schema shows them, and the JSON Schema
// of a schema for each place it is published (OpenAPI 3.1 is 2020-12; MCP tool schemas are draft-07).
import type { JsonSchema } from "../../registry/contract/schema-types.js";
import * as z from "../core/zod-mini.js";

/** `description` (and `examples`) as the JSON Schema, the OpenAPI document and the meta-tools show them. */
export const described = <T extends z.ZodMiniType>(schema: T, description: string, examples?: unknown[]): T =>
  schema.check(z.meta({ description, ...(examples ? { examples } : {}) }));

export const int = () => z.number().check(z.int());

/** The model-safe twin of a tool name, as find results and surfaces show it. */
export const modelNameField = () =>
  described(z.string(), "The same tool's model-safe name (`^[a-zA-Z0-9_-]{1,64}$`, for function-calling APIs); call accepts it as the name");

/** Present, and false, only for a tool this gateway cannot run; such tools rank below every callable one. */
export const callableField = () =>
  described(
    z.optional(z.literal(false)),
    "false: this gateway cannot run the tool (imported from a catalog without a backend; a call answers 501). Absent: callable",
  );

/** A JSON object with any keys (tool schemas, tool arguments). */
export const anyObject = () => z.record(z.string(), z.unknown());

/**
 * The JSON Schema of a request (`io: "input"`: what a client may send, defaults optional) or of a
 * response (`io: "output"`: what the server sends, every object closed to unlisted fields).
 */
export function jsonSchema(schema: z.ZodMiniType, io: "input" | "output", target: "draft-2020-12" | "draft-7" = "draft-2020-12"): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, target, unrepresentable: "any" }) as JsonSchema;
  return tidy(rest) as JsonSchema;
}

/** Drops the keywords zod writes that say nothing (JSON keys are strings; `{}` allows anything), as a person would. */
function tidy(schema: unknown): unknown {
  if (schema === null || typeof schema !== "object" || Array.isArray(schema)) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === "propertyNames" && isStringType(value)) continue;
    if (key === "additionalProperties" && isEmpty(value)) continue;
    if (MAPS_OF_SCHEMAS.has(key) && value !== null && typeof value === "object") {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, tidy(sub)]));
    } else if (LISTS_OF_SCHEMAS.has(key) && Array.isArray(value)) out[key] = value.map(tidy);
    else if (SCHEMAS.has(key)) out[key] = tidy(value);
    else out[key] = value;
  }
  return out;
}

const MAPS_OF_SCHEMAS = new Set(["properties", "patternProperties", "$defs", "definitions"]);
const LISTS_OF_SCHEMAS = new Set(["anyOf", "oneOf", "allOf", "prefixItems"]);
const SCHEMAS = new Set(["items", "additionalProperties", "not", "contains"]);
const isEmpty = (v: unknown) => v !== null && typeof v === "object" && !Array.isArray(v) && Object.keys(v).length === 0;
const isStringType = (v: unknown) => v !== null && typeof v === "object" && Object.keys(v).length === 1 && (v as { type?: unknown }).type === "string";
