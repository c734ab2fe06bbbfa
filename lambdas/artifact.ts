// Load the artifact once per cold start and check its contract (format version).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  ARTIFACT_FILES,
  ARTIFACT_FORMAT_VERSION,
  type Catalog,
  type CatalogTool,
  type Manifest,
} from "../registry/contract/artifact.js";

export type Artifact = Catalog & {
  manifest: Manifest;
  /** Opaque to everyone but the find core. */
  index: unknown;
  byName: Map<string, CatalogTool>;
};

export function loadArtifact(dir: string): Artifact {
  return parseArtifact((f) => readFileSync(join(dir, f), "utf8"), dir);
}

/** The same load from the files' text (as `emitArtifact` returns it): evaluation and tests build in memory. */
export function artifactFromFiles(files: Record<string, string>): Artifact {
  return parseArtifact((f) => {
    const text = files[f];
    if (text === undefined) throw new Error(`artifact file ${f} is missing`);
    return text;
  }, "memory");
}

function parseArtifact(readText: (file: string) => string, dir: string): Artifact {
  const read = (f: string) => JSON.parse(readText(f)) as unknown;
  const manifest = read(ARTIFACT_FILES.manifest) as Manifest;
  if (manifest.format_version !== ARTIFACT_FORMAT_VERSION) {
    throw new Error(
      `artifact in ${dir} has format ${manifest.format_version}, this runtime reads ${ARTIFACT_FORMAT_VERSION}: rebuild it with npm run build:artifact`,
    );
  }
  const catalog = read(ARTIFACT_FILES.catalog) as Catalog;
  return {
    ...catalog,
    manifest,
    index: read(ARTIFACT_FILES.index),
    byName: new Map(catalog.tools.map((t) => [t.name, t])),
  };
}
