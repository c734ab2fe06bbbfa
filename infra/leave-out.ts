// Re-emits an artifact without some families: the construct leaves out an optional family whose declared
// upstream settings a deployment does not provide (upstream-settings.ts). A child process of the synth,
// because emitting is asynchronous and a construct is built synchronously.
//   node --import tsx infra/leave-out.ts IN_DIR OUT_DIR FAMILY...
import { pathToFileURL } from "node:url";
import { emitArtifact, writeArtifact } from "../build/artifact.js";
import type { CatalogTool } from "../registry/contract/artifact.js";
import { loadArtifact } from "../lambdas/artifact.js";

export async function leaveOutFamilies(inDir: string, outDir: string, families: readonly string[]): Promise<void> {
  const artifact = loadArtifact(inDir);
  const out = new Set(families);
  // The stored tools carry build-time fields the emitter derives again.
  const tools = artifact.tools
    .filter((t) => !out.has(t.family))
    .map(
      ({ tokens: _t, model_name: _m, ...t }): CatalogTool => ({
        ...t,
        input_schema: t.input_schema,
        ...(t.output_schema ? { output_schema: t.output_schema } : {}),
      }),
    );
  const files = await emitArtifact({
    families: artifact.families.filter((f) => !out.has(f.name)).map(({ tokens: _t, ...f }) => f),
    tools,
    always_loaded: artifact.manifest.always_loaded,
    skipped_families: [...artifact.manifest.skipped_families, ...families],
  });
  await writeArtifact(outDir, files);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [inDir, outDir, ...families] = process.argv.slice(2);
  if (!inDir || !outDir || families.length === 0) throw new Error("usage: leave-out IN_DIR OUT_DIR FAMILY...");
  await leaveOutFamilies(inDir, outDir, families);
}
