// Re-emits an artifact without some families: the construct leaves out an optional family whose declared
// upstream settings a deployment does not provide (upstream-settings.ts). A child process of the synth,
// because emitting is asynchronous and a construct is built synchronously.
//   node --import tsx infra/leave-out.ts IN_DIR OUT_DIR FAMILY...
import { pathToFileURL } from "node:url";
import { emitWithoutFamilies, writeArtifact } from "../build/artifact.js";
import { loadArtifact } from "../lambdas/artifact.js";

export async function leaveOutFamilies(inDir: string, outDir: string, families: readonly string[]): Promise<void> {
  await writeArtifact(outDir, await emitWithoutFamilies(loadArtifact(inDir), families));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [inDir, outDir, ...families] = process.argv.slice(2);
  if (!inDir || !outDir || families.length === 0) throw new Error("usage: leave-out IN_DIR OUT_DIR FAMILY...");
  await leaveOutFamilies(inDir, outDir, families);
}
