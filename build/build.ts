// Registry → artifact, for the CLI and for the local server (which builds the artifact when it is missing).
import type { Manifest } from "../registry/contract/artifact.js";
import type { Diagnostic } from "../registry/contract/diagnostics.js";
import { ARTIFACT_FILES } from "../registry/contract/artifact.js";
import { refuseOverwrite, writeBuiltFrom } from "./artifact-dir.js";
import { emitArtifact, writeArtifact, type ArtifactFiles } from "./artifact.js";
import { loadRegistry, type LoadOptions, type LoadedRegistry } from "./load.js";
import { pinTools } from "./pins.js";
import { diskFs } from "./registry-fs.js";

export type BuildResult = {
  ok: boolean;
  diagnostics: Diagnostic[];
  /** Present when the registry had no errors and the artifact was emitted. */
  manifest?: Manifest;
  files?: ArtifactFiles;
  registry: LoadedRegistry;
  /** Why nothing was written: the output directory holds another registry's artifact or other files. */
  refused?: string;
};

/** Load, validate and emit in memory; nothing is emitted when the registry has errors. */
export async function compileRegistry(dir: string, opts: LoadOptions = {}): Promise<BuildResult> {
  const registry = await loadRegistry(dir, opts);
  if (!registry.ok) return { ok: false, diagnostics: registry.diagnostics, registry };
  const files = await emitArtifact({
    families: registry.catalog.families,
    // Each tool's definition pinned by digest: the gateway and `registry:pull --check` compare upstreams with it.
    tools: await pinTools(opts.fs ?? diskFs(dir), registry.catalog.tools),
    always_loaded: registry.alwaysLoaded,
    skipped_families: registry.skippedFamilies,
  });
  const manifest = JSON.parse(files[ARTIFACT_FILES.manifest]) as Manifest;
  return { ok: true, diagnostics: registry.diagnostics, manifest, files, registry };
}

/**
 * Compile and write the artifact directory; writes nothing when the registry has errors, or when
 * `outDir` holds an artifact built from another registry or files that are not an artifact (unless
 * `overwrite`). Records the registry beside the artifact (artifact-dir.ts).
 */
export async function buildRegistryArtifact(dir: string, outDir: string, opts: LoadOptions & { overwrite?: boolean } = {}): Promise<BuildResult> {
  const result = await compileRegistry(dir, opts);
  if (!result.ok || !result.files) return result;
  const refused = opts.overwrite ? undefined : refuseOverwrite(outDir, dir);
  if (refused) return { ...result, ok: false, refused };
  await writeArtifact(outDir, result.files);
  writeBuiltFrom(outDir, dir);
  return result;
}
