// Pinned upstream definitions: each tool's digest (registry/contract/tool-digest.ts), set by the build
// before the artifact is emitted. MCP tools are pinned from their snapshot entries in full (the catalog
// keeps only a description's first sentence), every other tool from its catalog definition.
import type { CatalogTool } from "../registry/contract/artifact.js";
import { SnapshotFile } from "../registry/contract/snapshot.js";
import { definitionDigest, upstreamDigest, type ToolDigest } from "../registry/contract/tool-digest.js";
import { readFamiliesFile } from "./load/families-file.js";
import type { RegistryFs } from "./registry-fs.js";

/** The tools with their digests; a loaded registry's snapshots have been read and checked already. */
export async function pinTools(fs: RegistryFs, tools: readonly CatalogTool[]): Promise<CatalogTool[]> {
  const read = await readFamiliesFile(fs, []);
  const pins = new Map<string, Map<string, ToolDigest>>();
  for (const { def } of read?.defs ?? []) {
    if (!("mcp" in def.source)) continue;
    const { snapshot, drift } = def.source.mcp;
    const parsed = SnapshotFile.safeParse(JSON.parse(await fs.readText(snapshot)));
    if (!parsed.success) continue;
    pins.set(def.name, new Map(parsed.data.tools.map((t) => [t.name, { ...upstreamDigest(t), ...(drift === "warn" ? { drift: "warn" as const } : {}) }])));
  }
  return tools.map((t) => {
    const upstream = t.backend.kind === "mcp" ? pins.get(t.family)?.get(t.backend.tool) : undefined;
    return { ...t, digest: upstream ?? definitionDigest(t) };
  });
}
