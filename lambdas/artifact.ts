// Load the artifact once per cold start and check its contract (format version).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  ARTIFACT_FILES,
  ARTIFACT_FORMAT_VERSION,
  type Catalog,
  type CatalogTool,
  type Manifest,
  type NamesFile,
  type StoredCatalog,
} from "../registry/contract/artifact.js";
import type { Artifact } from "./core/ports.js";

export type { Artifact };

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
  const stored = read(ARTIFACT_FILES.catalog) as StoredCatalog;
  stored.tools.forEach((t, i) => lazySchemas(t, stored.schemas[2 * i], stored.schemas[2 * i + 1]));
  const catalog: Catalog = { families: stored.families, tools: stored.tools as CatalogTool[] };
  attachModelNames(catalog.tools, read(ARTIFACT_FILES.names) as NamesFile, dir);
  return {
    ...catalog,
    manifest,
    index: read(ARTIFACT_FILES.index),
    byName: new Map(catalog.tools.map((t) => [t.name, t])),
  };
}

// The schemas stay JSON text until something reads them (find shows ≤ 10 tools, a call needs one):
// parsing every schema into objects was most of the import time. Each tool gets `input_schema` (and
// `output_schema` when it has one) as enumerable accessors (spread, JSON.stringify and equality
// still see objects) that parse once and then turn into plain data properties. The getters are
// shared by all tools and the text kept aside, so the tools keep one shape.
const rawSchemas = { input_schema: new WeakMap<object, string>(), output_schema: new WeakMap<object, string>() };

function schemaAccessor(key: "input_schema" | "output_schema"): PropertyDescriptor {
  const settle = (tool: object, value: unknown) => Object.defineProperty(tool, key, { value, writable: true, enumerable: true, configurable: true });
  return {
    enumerable: true,
    configurable: true,
    get(this: object) {
      const text = rawSchemas[key].get(this);
      const value = text === undefined ? undefined : (JSON.parse(text) as unknown);
      settle(this, value);
      return value;
    },
    set(this: object, value: unknown) {
      settle(this, value);
    },
  };
}

const INPUT = schemaAccessor("input_schema");
const OUTPUT = schemaAccessor("output_schema");

function lazySchemas(t: object, input: string | null | undefined, output: string | null | undefined): void {
  if (typeof input !== "string") throw new Error(`artifact catalog has no input schema for tool ${(t as { name?: string }).name}`);
  rawSchemas.input_schema.set(t, input);
  Object.defineProperty(t, "input_schema", INPUT);
  if (typeof output === "string") {
    rawSchemas.output_schema.set(t, output);
    Object.defineProperty(t, "output_schema", OUTPUT);
  }
}

/**
 * Each tool's model-safe name from names.json, the names the build checked for collisions (the
 * runtime never projects a second time): set on the tool as `model_name`.
 */
function attachModelNames(tools: CatalogTool[], file: NamesFile, dir: string): void {
  const { names, model_names: models } = file ?? ({} as Partial<NamesFile>);
  if (!Array.isArray(names) || !Array.isArray(models) || names.length !== tools.length || models.length !== tools.length) {
    throw new Error(`artifact in ${dir}: names.json does not list the catalog's ${tools.length} tools: rebuild it with npm run build:artifact`);
  }
  tools.forEach((t, i) => {
    const model = models[i];
    if (names[i] !== t.name || typeof model !== "string") {
      throw new Error(`artifact in ${dir}: names.json entry ${i} is not ${t.name}: rebuild it with npm run build:artifact`);
    }
    t.model_name = model;
  });
}
