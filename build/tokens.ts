// Real token counts (o200k_base), taken at build time only: the tokenizer's 2.4 MB of ranks stay out
// of the Lambda bundles, which add up the stored per-tool and per-family counts.
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import type { CatalogTool, FamilyInfo } from "../registry/contract/artifact.js";
import { manifestEntry, surfaceEntry } from "../registry/contract/surface-entry.js";

export { countTokens };

/** Tokens of a value as the surface serialises it (compact JSON). */
export const jsonTokens = (value: unknown): number => countTokens(JSON.stringify(value));

/** The tools and families with their `tokens` set (new objects; the input is left as it is). */
export function withTokenCounts(families: readonly FamilyInfo[], tools: readonly CatalogTool[]): { families: FamilyInfo[]; tools: CatalogTool[] } {
  const names = new Map<string, string[]>();
  for (const t of tools) {
    const list = names.get(t.family);
    if (list) list.push(t.name);
    else names.set(t.family, [t.name]);
  }
  return {
    families: families.map((f) => ({ ...f, tokens: jsonTokens(manifestEntry(f, names.get(f.name) ?? [])) })),
    tools: tools.map((t) => ({ ...t, tokens: jsonTokens(surfaceEntry(t)) })),
  };
}
