// How a tool and a family appear on a surface, in one place: the build counts their tokens in this
// exact shape (stored in the artifact), and the runtime serves and measures the same shape.
import type { CatalogTool, FamilyInfo } from "./artifact.js";
import { isCallable } from "./callable.js";
import { modelNameOf, verbOf } from "./names.js";
import type { JsonSchema } from "./schema-types.js";

/** The tokenizer the build counts with (stored counts are in its tokens). */
export const TOKENIZER = "o200k_base";

export type SurfaceEntry = {
  name: string;
  model_name: string;
  description: string;
  input_schema: JsonSchema;
  output_schema?: JsonSchema;
  /** Present (false) only for a tool this gateway cannot run: an imported catalog entry without a backend. */
  callable?: false;
};

// Where a schema holds schemas: one schema, a list of them, or a map of them by name (property names are data, never dropped).
const ONE = new Set([
  "items",
  "additionalProperties",
  "additionalItems",
  "unevaluatedProperties",
  "unevaluatedItems",
  "contains",
  "propertyNames",
  "not",
  "if",
  "then",
  "else",
  "contentSchema",
]);
const MANY = new Set(["allOf", "anyOf", "oneOf", "prefixItems"]);
const MAP = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"]);
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The schema without its `examples` annotations (the only keyword a surface may leave out: validation
 * and the model's reading of types, enums, defaults and descriptions are unchanged). Examples are
 * about a tenth of a tool's tokens; find's schemas and the call gateway keep them.
 */
export function withoutExamples<T>(schema: T): T {
  if (!isRecord(schema)) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === "examples") continue;
    if (ONE.has(key)) out[key] = Array.isArray(value) ? value.map(withoutExamples) : withoutExamples(value);
    else if (MANY.has(key) && Array.isArray(value)) out[key] = value.map(withoutExamples);
    else if (MAP.has(key) && isRecord(value)) out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withoutExamples(v)]));
    else out[key] = value;
  }
  return out as T;
}

export function surfaceEntry(
  t: Pick<CatalogTool, "name" | "model_name" | "description" | "input_schema" | "output_schema"> & Partial<Pick<CatalogTool, "backend">>,
): SurfaceEntry {
  return {
    name: t.name,
    model_name: modelNameOf(t),
    description: t.description,
    input_schema: withoutExamples(t.input_schema),
    ...(t.output_schema ? { output_schema: withoutExamples(t.output_schema) } : {}),
    ...(isCallable(t) ? {} : { callable: false as const }),
  };
}

export const EXAMPLES_PER_FAMILY = 3;
/** A manifest entry's description: the family's first sentence, cut at a word to at most this many characters. */
export const MANIFEST_DESCRIPTION_CHARS = 100;

export type ManifestEntry = { name: string; description: string; tool_count: number; examples: string[] };

/** The first sentence, at most `max` characters (cut at a word, marked with an ellipsis). */
export function shortDescription(text: string, max = MANIFEST_DESCRIPTION_CHARS): string {
  const flat = text.replace(/\s+/g, " ").trim();
  const end = flat.search(/[.!?](\s|$)/);
  const sentence = end >= 0 ? flat.slice(0, end + 1) : flat;
  if (sentence.length <= max) return sentence;
  const cut = sentence.slice(0, max - 1);
  const space = cut.lastIndexOf(" ");
  return `${(space > max / 2 ? cut.slice(0, space) : cut).replace(/[,;:]$/, "")}…`;
}

/** A family's manifest entry for the granted tools of that family (all of them at build time): compact, a first sentence and three verbs. */
export function manifestEntry(f: Pick<FamilyInfo, "name" | "description" | "examples">, toolNames: readonly string[]): ManifestEntry {
  const grantedVerbs = new Set(toolNames.map(verbOf));
  // The registry's chosen examples first (only granted ones), then the rest in name order.
  const examples = [...f.examples.filter((v) => grantedVerbs.has(v)), ...[...grantedVerbs].sort()];
  return {
    name: f.name,
    description: shortDescription(f.description),
    tool_count: toolNames.length,
    examples: [...new Set(examples)].slice(0, EXAMPLES_PER_FAMILY),
  };
}
