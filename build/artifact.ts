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
  type NamesFile,
  type StoredCatalog,
  type StoredCatalogTool,
} from "../registry/contract/artifact.js";
import { modelName } from "../registry/contract/names.js";
import { buildSearchIndex } from "./search-index.js";
import { withTokenCounts } from "./tokens.js";

export type ArtifactInput = {
  families: FamilyInfo[];
  tools: CatalogTool[];
  always_loaded: string[];
  skipped_families?: string[];
};

export type ArtifactFiles = Record<(typeof ARTIFACT_FILES)[keyof typeof ARTIFACT_FILES], string>;

const byName = <T extends { name: string }>(a: T, b: T) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

export type EmitOptions = {
  /** Store each tool's and family's o200k_base token count (default true; tests of other things skip the tokenizer's load). */
  countTokens?: boolean;
};

export async function emitArtifact(input: ArtifactInput, opts: EmitOptions = {}): Promise<ArtifactFiles> {
  const sortedTools = [...input.tools].sort(byName);
  const sortedFamilies = [...input.families].sort(byName);
  // The hash covers the catalog as objects (the registry's content), not its storage form or token counts.
  const catalogJson = JSON.stringify({ families: sortedFamilies, tools: sortedTools } satisfies Catalog);
  const { families, tools } = opts.countTokens === false ? { families: sortedFamilies, tools: sortedTools } : withTokenCounts(sortedFamilies, sortedTools);
  const catalog: Catalog = { families, tools };
  const stored: StoredCatalog = {
    families,
    tools: tools.map(({ input_schema: _i, output_schema: _o, model_name: _m, ...rest }): StoredCatalogTool => rest),
    // Apart from the tools, so that the runtime adds them as new properties (the tools keep one fast shape).
    schemas: tools.flatMap((t) => [JSON.stringify(t.input_schema), t.output_schema === undefined ? null : JSON.stringify(t.output_schema)]),
  };
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
    [ARTIFACT_FILES.catalog]: asciiJson(JSON.stringify(stored)),
    [ARTIFACT_FILES.names]: JSON.stringify({ names: tools.map((t) => t.name), model_names: tools.map((t) => modelName(t.name)) } satisfies NamesFile),
    [ARTIFACT_FILES.index]: indexJson,
  } as ArtifactFiles;
}

/** A built artifact as loaded: what emitWithoutFamilies re-emits. */
export type BuiltArtifact = { families: readonly FamilyInfo[]; tools: readonly CatalogTool[]; manifest: Manifest };

/**
 * The artifact without some families (optional ones whose declared settings are unset: `npm start`
 * and the construct's synth), re-emitted from the loaded catalog with each tool's token count as built.
 */
export function emitWithoutFamilies(artifact: BuiltArtifact, families: Iterable<string>): Promise<ArtifactFiles> {
  const out = new Set(families);
  return emitArtifact(
    {
      families: artifact.families.filter((f) => !out.has(f.name)),
      tools: artifact.tools.filter((t) => !out.has(t.family)),
      always_loaded: artifact.manifest.always_loaded,
      skipped_families: [...new Set([...artifact.manifest.skipped_families, ...out])],
    },
    { countTokens: false },
  );
}

/**
 * Non-ASCII characters as \u escapes (the same JSON value): an all-ASCII file decodes to a one-byte
 * string at import, where one Chinese description or curly quote would make the whole catalog a
 * two-byte string, slower to read and to parse.
 */
const asciiJson = (json: string) => json.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);

export async function writeArtifact(dir: string, files: ArtifactFiles): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
}
