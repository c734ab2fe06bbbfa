// The example registry as the project's tests read it: `registry/` by its path, and only the families
// the project ships. A family someone adds to `registry/` in their copy is theirs: `registry:check`
// holds it to the rules (conventions included), these tests do not call it, count it or rank it.
import { fileURLToPath } from "node:url";
import { inject } from "vitest";
import { emitArtifact } from "../../build/artifact.js";
import { compileRegistry } from "../../build/build.js";
import type { Diagnostic } from "../../registry/contract/diagnostics.js";
import { artifactFromFiles, type Artifact } from "../../lambdas/artifact.js";

export const EXAMPLE_REGISTRY = fileURLToPath(new URL("../../registry", import.meta.url));

/** The families `registry/families.yaml` ships, in its order. */
export const EXAMPLE_FAMILIES: readonly string[] = [
  "toolbelt",
  "git",
  "files",
  "system",
  "notes",
  "text",
  "writing",
  "time",
  "convert",
  "math",
  "kv",
  "random",
  "everything",
  "diagnostics",
];
const shipped = new Set(EXAMPLE_FAMILIES);

export const isExampleFamily = (family: string): boolean => shipped.has(family);
export const isExampleTool = (name: string): boolean => shipped.has(name.slice(0, name.indexOf(".")));

/**
 * Whether a diagnostic is about the shipped example: its tool is one of theirs, or its file is not a
 * family's own (families.yaml entries of other families are left out by index).
 */
export function aboutExample(d: Diagnostic, familyOrder: readonly string[]): boolean {
  if (d.tool) return isExampleTool(d.tool);
  const entry = /^\$\.families\[(\d+)\]/.exec(d.path);
  if (d.file === "families.yaml" && entry) return isExampleFamily(familyOrder[Number(entry[1])] ?? "");
  return isExampleFile(d.file);
}

/** A registry file of a shipped family, or one of the registry's own (families.yaml, briefs, policy). */
export function isExampleFile(file: string): boolean {
  const own = /^(?:families\/([^/]+)\/|snapshots\/([^/]+)\.json$|catalogs\/([^/]+)\.jsonl$)/.exec(file);
  return own ? isExampleFamily(own[1] ?? own[2] ?? own[3] ?? "") : true;
}

export type ExampleBuilds = {
  /** The artifact of `registry/` as it stands (every family in it). */
  registry: Record<string, string>;
  /** The artifact of the shipped families only. */
  example: Record<string, string>;
};

declare module "vitest" {
  interface ProvidedContext {
    /** Built once per run by test/helpers/suite-setup.ts; absent when a test runs without it. */
    exampleBuilds?: ExampleBuilds;
  }
}

/** The example registry through the real build (never dist/): the whole of `registry/`, and its shipped families only. */
export async function buildExampleRegistry(): Promise<ExampleBuilds> {
  const built = await compileRegistry(EXAMPLE_REGISTRY);
  if (!built.files) throw new Error(`the example registry does not build: ${JSON.stringify(built.diagnostics)}`);
  const { catalog, alwaysLoaded, skippedFamilies } = built.registry;
  if (catalog.families.every((f) => isExampleFamily(f.name))) return { registry: built.files, example: built.files };
  const example = await emitArtifact({
    families: catalog.families.filter((f) => isExampleFamily(f.name)),
    tools: catalog.tools.filter((t) => isExampleFamily(t.family)),
    always_loaded: alwaysLoaded,
    skipped_families: skippedFamilies,
  });
  return { registry: built.files, example };
}

// The build takes seconds on a busy machine: the suite does it once, a file run on its own does it here.
let builds: Promise<ExampleBuilds> | undefined;
const exampleBuilds = (): Promise<ExampleBuilds> => {
  const provided = inject("exampleBuilds");
  builds ??= provided ? Promise.resolve(provided) : buildExampleRegistry();
  return builds;
};

/** The example registry built with the shipped families only. */
export async function exampleArtifact(): Promise<Artifact> {
  return artifactFromFiles((await exampleBuilds()).example);
}

/** `registry/` built as it stands, every family in it included. */
export async function registryArtifact(): Promise<Artifact> {
  return artifactFromFiles((await exampleBuilds()).registry);
}
