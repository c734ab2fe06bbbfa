// Whose artifact is in a directory. A build writes `built-from.json` beside the artifact (not part of
// it: nothing deploys or hashes it) naming the registry it came from, so `npm start` and
// `build:artifact` rebuild only their own artifacts and never overwrite one built from another
// registry, or a directory that holds something else. The record is a path relative to the artifact
// directory, so a checkout that is moved, renamed or restored from a CI cache elsewhere still owns its build.
import { existsSync, readdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { isAbsolute, join, relative, resolve } from "node:path";
import { ARTIFACT_FILES } from "../registry/contract/artifact.js";

export const BUILT_FROM_FILE = "built-from.json";

export type ArtifactDirState =
  /** Missing or empty: free to build into. */
  | { kind: "empty" }
  /** An artifact built from this registry: rebuild it when the registry changed. */
  | { kind: "ours" }
  /** An artifact built from another registry, or with no record of where from (built elsewhere, copied). */
  | { kind: "foreign"; builtFrom?: string }
  /** Files that are not an artifact. */
  | { kind: "other" };

const canonical = (dir: string) => {
  const abs = resolve(dir);
  return existsSync(abs) ? realpathSync(abs) : abs;
};

/** The registry an artifact directory was built from, as an absolute path (records before relative ones were absolute). */
export function builtFrom(outDir: string): string | undefined {
  try {
    const recorded = (JSON.parse(readFileSync(join(outDir, BUILT_FROM_FILE), "utf8")) as { registry?: unknown }).registry;
    if (typeof recorded !== "string") return undefined;
    return isAbsolute(recorded) ? recorded : canonical(resolve(canonical(outDir), recorded));
  } catch {
    return undefined;
  }
}

export function inspectArtifactDir(outDir: string, registryDir: string): ArtifactDirState {
  if (!existsSync(outDir) || readdirSync(outDir).length === 0) return { kind: "empty" };
  if (!existsSync(join(outDir, ARTIFACT_FILES.manifest))) return { kind: "other" };
  const from = builtFrom(outDir);
  if (from !== undefined && from === canonical(registryDir)) return { kind: "ours" };
  return from === undefined ? { kind: "foreign" } : { kind: "foreign", builtFrom: from };
}

/** Why `registryDir` may not be built into `outDir`, or undefined when it may. */
export function refuseOverwrite(outDir: string, registryDir: string): string | undefined {
  const state = inspectArtifactDir(outDir, registryDir);
  if (state.kind === "other") return `${outDir} is not empty and holds no artifact: it is not overwritten; choose another output directory`;
  if (state.kind === "foreign") {
    const whose = state.builtFrom ? `built from ${state.builtFrom}` : "not built from this registry (no record of where it came from)";
    return `${outDir} holds an artifact ${whose}: it is not overwritten; choose another output directory, remove it, or rebuild it from this registry with npm run build:artifact -- --force`;
  }
  return undefined;
}

export function writeBuiltFrom(outDir: string, registryDir: string): void {
  writeFileSync(join(outDir, BUILT_FROM_FILE), `${JSON.stringify({ registry: relative(canonical(outDir), canonical(registryDir)) || "." })}\n`);
}
