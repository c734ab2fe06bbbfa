// Which registry `npm start` serves and where its artifact lives. `--registry DIR` (or
// TOOLBELT_REGISTRY) serves any registry; without one, the example registry in `registry/`. An
// artifact is rebuilt only when it was built from the registry being served and that registry (or the build) changed;
// one built from another registry (a user's own artifact in TOOLBELT_ARTIFACT_DIR) is served as it
// is when no registry was named, and never overwritten.
import { createHash } from "node:crypto";
import { existsSync, readdirSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { builtFrom, inspectArtifactDir } from "../../build/artifact-dir.js";
import { ARTIFACT_FILES } from "../../registry/contract/artifact.js";

export type RegistryChoice = {
  /** The registry served, when known (its briefs and policy.yaml are read too). */
  registryDir?: string;
  artifactDir: string;
  /** Build (or rebuild) the artifact from `registryDir` before serving. */
  build: boolean;
  /** What `npm start` says about the choice. */
  note: string;
};

export type ChoiceInput = {
  argv: readonly string[];
  env: NodeJS.ProcessEnv;
  /** The project root: the example registry and the default artifact directory are under it. */
  root: string;
};

/** Reads `--registry` (also `--registry=DIR`); any other argument is a usage error, so a typo is not ignored. */
export function registryArg(argv: readonly string[]): string | undefined {
  const { values } = parseArgs({ args: [...argv], options: { registry: { type: "string" } }, strict: true, allowPositionals: false });
  return values.registry;
}

export function chooseRegistry({ argv, env, root }: ChoiceInput): RegistryChoice {
  const named = registryArg(argv) ?? (env.TOOLBELT_REGISTRY?.trim() || undefined);
  const example = join(root, "registry");
  const artifactEnv = env.TOOLBELT_ARTIFACT_DIR?.trim() || undefined;

  if (named === undefined && artifactEnv !== undefined) {
    // An artifact directory and no registry: serve what is there unless it is the example's own build.
    const artifactDir = resolve(root, artifactEnv);
    const state = inspectArtifactDir(artifactDir, example);
    if (state.kind === "foreign") {
      const from = builtFrom(artifactDir);
      const fromDir = from && existsSync(join(from, "families.yaml")) ? from : undefined;
      return {
        ...(fromDir ? { registryDir: fromDir } : {}),
        artifactDir,
        build: false,
        note: `serving the artifact in ${artifactDir} as it is (${from ? `built from ${from}` : "built elsewhere"}); name its registry with --registry to rebuild it`,
      };
    }
    if (state.kind === "other") throw new Error(`TOOLBELT_ARTIFACT_DIR ${artifactDir} is not empty and holds no artifact`);
    return { registryDir: example, artifactDir, build: stale(artifactDir, example, root), note: `the example registry, artifact in ${artifactDir}` };
  }

  const registryDir = resolve(named ?? example);
  if (!existsSync(join(registryDir, "families.yaml")))
    throw new Error(`${registryDir} is not a registry: it has no families.yaml (npm run registry:init -- --registry DIR starts one)`);
  const artifactDir = artifactEnv ? resolve(root, artifactEnv) : defaultArtifactDir(root, registryDir);
  const state = inspectArtifactDir(artifactDir, registryDir);
  if (state.kind === "foreign" || state.kind === "other") {
    const whose = state.kind === "other" ? "files that are not an artifact" : `an artifact built from ${state.builtFrom ?? "another registry"}`;
    throw new Error(
      `${artifactDir} holds ${whose}: it is not overwritten; set TOOLBELT_ARTIFACT_DIR to another directory, or rebuild it from this registry with npm run build:artifact -- --force${named ? ` --registry ${registryDir}` : ""}`,
    );
  }
  const which = named === undefined ? "the example registry" : `registry ${registryDir}`;
  return { registryDir, artifactDir, build: stale(artifactDir, registryDir, root), note: `${which}, artifact in ${artifactDir}` };
}

/** `dist/artifact` for the example registry; one directory per other registry, so none overwrites another's. */
export function defaultArtifactDir(root: string, registryDir: string): string {
  if (registryDir === resolve(root, "registry")) return join(root, "dist", "artifact");
  const tag = createHash("sha256").update(registryDir).digest("hex").slice(0, 8);
  return join(root, "dist", "artifacts", `${basename(registryDir)}-${tag}`);
}

/**
 * Missing, or older than any file of the registry or of the build (`build/` and `registry/contract/` under
 * the project root: their code and word data decide what a build emits, so a pull that changes them
 * rebuilds the artifact too).
 */
function stale(artifactDir: string, registryDir: string, root: string): boolean {
  const manifest = join(artifactDir, ARTIFACT_FILES.manifest);
  if (!existsSync(manifest)) return true;
  const built = statSync(manifest).mtimeMs;
  return [registryDir, join(root, "build"), join(root, "registry", "contract")].some((dir) => built < newestMtime(dir));
}

function newestMtime(dir: string): number {
  if (!existsSync(dir)) return 0;
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}
