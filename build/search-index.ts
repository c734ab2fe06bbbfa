// Build-time half of search: the exported FlexSearch index plus the statistics the scorer needs.
// PLACEHOLDER until the find issue lands: it records nothing beyond the tool names.
import type { Catalog } from "../registry/contract/artifact.js";

export async function buildSearchIndex(catalog: Catalog): Promise<unknown> {
  return { placeholder: true, names: catalog.tools.map((t) => t.name) };
}
