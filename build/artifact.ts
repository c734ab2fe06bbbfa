// Emit the artifact: catalog, search index, manifest and name list, byte-identical for identical input.
import { createHash } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  ARTIFACT_FILES,
  ARTIFACT_FORMAT_VERSION,
  type Catalog,
  type CatalogTool,
  type FamilyInfo,
  type Manifest,
} from "../registry/contract/artifact.js";
import { buildSearchIndex } from "./search-index.js";

export type ArtifactInput = {
  families: FamilyInfo[];
  tools: CatalogTool[];
  always_loaded: string[];
  skipped_families?: string[];
};

export type ArtifactFiles = Record<(typeof ARTIFACT_FILES)[keyof typeof ARTIFACT_FILES], string>;

const byName = <T extends { name: string }>(a: T, b: T) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

export async function emitArtifact(input: ArtifactInput): Promise<ArtifactFiles> {
  const tools = [...input.tools].sort(byName);
  const families = [...input.families].sort(byName);
  const catalog: Catalog = { families, tools };
  const catalogJson = JSON.stringify(catalog);
  const indexJson = JSON.stringify(await buildSearchIndex(catalog));
  const manifest: Manifest = {
    format_version: ARTIFACT_FORMAT_VERSION,
    registry_hash: createHash("sha256").update(catalogJson).update(JSON.stringify(input.always_loaded)).digest("hex"),
    counts: { families: families.length, tools: tools.length },
    always_loaded: [...input.always_loaded],
    skipped_families: [...(input.skipped_families ?? [])].sort(),
  };
  return {
    [ARTIFACT_FILES.manifest]: JSON.stringify(manifest, null, 2) + "\n",
    [ARTIFACT_FILES.catalog]: catalogJson,
    [ARTIFACT_FILES.names]: JSON.stringify(tools.map((t) => t.name)),
    [ARTIFACT_FILES.index]: indexJson,
  } as ArtifactFiles;
}

export async function writeArtifact(dir: string, files: ArtifactFiles): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
}
