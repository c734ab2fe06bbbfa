// How a tool and a family appear on a surface, in one place: the build counts their tokens in this
// exact shape (stored in the artifact), and the runtime serves and measures the same shape.
import type { CatalogTool, FamilyInfo } from "./artifact.js";
import { modelNameOf, verbOf } from "./names.js";
import type { JsonSchema } from "./schema-types.js";

/** The tokenizer the build counts with (stored counts are in its tokens). */
export const TOKENIZER = "o200k_base";

export type SurfaceEntry = { name: string; model_name: string; description: string; input_schema: JsonSchema; output_schema?: JsonSchema };

export function surfaceEntry(t: Pick<CatalogTool, "name" | "model_name" | "description" | "input_schema" | "output_schema">): SurfaceEntry {
  return {
    name: t.name,
    model_name: modelNameOf(t),
    description: t.description,
    input_schema: t.input_schema,
    ...(t.output_schema ? { output_schema: t.output_schema } : {}),
  };
}

export const EXAMPLES_PER_FAMILY = 4;

export type ManifestEntry = { name: string; description: string; tool_count: number; examples: string[] };

/** A family's manifest entry for the granted tools of that family (all of them at build time). */
export function manifestEntry(f: Pick<FamilyInfo, "name" | "description" | "examples">, toolNames: readonly string[]): ManifestEntry {
  const grantedVerbs = new Set(toolNames.map(verbOf));
  // The registry's chosen examples first (only granted ones), then the rest in name order.
  const examples = [...f.examples.filter((v) => grantedVerbs.has(v)), ...[...grantedVerbs].sort()];
  return { name: f.name, description: f.description, tool_count: toolNames.length, examples: [...new Set(examples)].slice(0, EXAMPLES_PER_FAMILY) };
}
