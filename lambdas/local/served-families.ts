// What `npm start` serves given the settings in its environment (registry/contract/upstream-settings.ts):
// a required family lacking a declared setting stops the start, naming family and setting; an optional
// one is left out of the catalog, the search index and every surface, as if its source had not loaded.
import { describeUnset, settingsVerdict, type UnsetFamily } from "../../registry/contract/upstream-settings.js";
import { artifactFromFiles, type Artifact } from "../artifact.js";

export type Served = { artifact: Artifact; leftOut: UnsetFamily[] };

export async function servedArtifact(artifact: Artifact, provided: ReadonlySet<string>): Promise<Served> {
  const { failing, leftOut } = settingsVerdict(artifact.families, provided);
  if (failing.length > 0) {
    throw new Error(
      `the registry declares settings this environment does not provide (its tools would answer 503):\n${failing.map((u) => `  ${describeUnset(u)}`).join("\n")}\n` +
        "set them in the environment of npm start, or mark the family `required: false` in families.yaml to serve the rest without it",
    );
  }
  if (leftOut.length === 0) return { artifact, leftOut };
  // The emitter is loaded only then (it brings the index builder).
  const { emitWithoutFamilies } = await import("../../build/artifact.js");
  const files = await emitWithoutFamilies(
    artifact,
    leftOut.map((u) => u.family),
  );
  return { artifact: artifactFromFiles(files), leftOut };
}
