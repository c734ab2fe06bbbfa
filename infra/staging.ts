// Synth-time staging of the files every bundle carries: the artifact, the deployment policy and the
// briefs, validated and written to a folder of the cloud assembly for the bundling hooks to copy.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, extname, isAbsolute, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Names, Stage } from "aws-cdk-lib";
import type { Construct } from "constructs";
import { parse as parseYaml } from "yaml";
import { ARTIFACT_FILES } from "../registry/contract/artifact.js";
import type { BriefFile } from "../registry/contract/brief.js";
import { type Identity, PolicyFile } from "../registry/contract/policy.js";
import { parseBrief, parseBriefs } from "../lambdas/core/deployment-files.js";
import { describeIssues } from "../lambdas/core/issues.js";
import { BUNDLED_ARTIFACT_DIR, BUNDLED_BRIEFS_FILE, BUNDLED_POLICY_FILE } from "./bundling.js";

/**
 * The folder holding infra/, build/ and lambdas/: the project root in a clone, `dist/package` in the
 * installed package. Handler entries and the scripts the synth runs are resolved from here.
 */
export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** Compiled JavaScript (the installed package) or the TypeScript sources (a clone, run with tsx). */
const COMPILED = extname(fileURLToPath(import.meta.url)) === ".js";

/** The gateway props staging reads (see ToolbeltGatewayProps for each). */
export type StagingProps = {
  artifactDir?: string;
  registryDir?: string;
  policy: string | PolicyFile;
  briefs?: string | unknown[];
  /** The construct's external issuer, merged into the policy so the one staged file says whose tokens count. */
  identity?: Identity;
};

/** Where the staged files are; the bundling hooks copy them into every bundle. */
export type Staged = { dir: string; artifactDir: string; policyFile: string; briefsFile?: string; policy: PolicyFile };

/**
 * Runs one of the project's entry files (`build/cli.ts`, relative to the project root) in a child
 * process: its compiled `.js` in the package, the source with tsx in a clone. `what` names it in the
 * error, which carries the child's output.
 */
function runScript(file: string, args: string[], what: string): void {
  const script = COMPILED ? [join(PROJECT_ROOT, file.replace(/\.ts$/, ".js"))] : ["--import", "tsx", join(PROJECT_ROOT, file)];
  try {
    execFileSync(process.execPath, [...script, ...args], {
      cwd: PROJECT_ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      encoding: "utf8",
    });
  } catch (err) {
    const { stdout = "", stderr = "" } = err as { stdout?: string; stderr?: string };
    throw new Error(`${what}:\n${`${stdout}${stderr}`.trim()}`);
  }
}

/** A copy of the staged artifact without `families` (optional ones whose settings are unset). */
export function leaveOut(staged: Staged, families: readonly string[]): Staged {
  const artifactDir = join(staged.dir, "artifact-deployed");
  runScript("infra/leave-out.ts", [staged.artifactDir, artifactDir, ...families], `leaving out ${families.join(", ")} failed`);
  return { ...staged, artifactDir };
}

/**
 * Puts the artifact (built from the registry when one is given), the policy and the briefs where
 * the bundling hooks copy them from, each validated: a bad file fails the synth, not a cold start.
 */
export function stageDeploymentFiles(scope: Construct, props: StagingProps): Staged {
  // The CDK CLI hands the app a relative outdir (cdk.out); resolved here, against the app's working
  // directory, because the build child below runs in the package's folder.
  const dir = resolve(Stage.of(scope)?.outdir ?? PROJECT_ROOT, "toolbelt-staging", Names.uniqueId(scope));
  mkdirSync(dir, { recursive: true });

  let artifactDir: string;
  if (props.artifactDir) {
    artifactDir = resolve(props.artifactDir);
  } else if (props.registryDir) {
    artifactDir = join(dir, BUNDLED_ARTIFACT_DIR);
    // The same build as `npm run build:artifact`; an invalid registry fails the synth with its report.
    runScript("build/cli.ts", ["build", "--registry", resolve(props.registryDir), "--out", artifactDir], `the registry in ${props.registryDir} does not build`);
  } else {
    throw new Error("ToolbeltGateway needs `artifactDir` (a prebuilt artifact) or `registryDir` (built at synth)");
  }
  const missing = Object.values(ARTIFACT_FILES).filter((f) => !existsSync(join(artifactDir, f)));
  if (missing.length > 0) {
    throw new Error(`artifact in ${artifactDir} lacks ${missing.join(", ")}: run npm run build:artifact`);
  }

  const policy = PolicyFile.safeParse(withIdentity(typeof props.policy === "string" ? readStructured(props.policy) : props.policy, props.identity));
  if (!policy.success) throw new Error(`invalid Toolbelt policy: ${describeIssues(policy.error.issues)}`);
  const policyFile = join(dir, BUNDLED_POLICY_FILE);
  writeFileSync(policyFile, JSON.stringify(policy.data));

  let briefsFile: string | undefined;
  if (props.briefs !== undefined) {
    briefsFile = join(dir, BUNDLED_BRIEFS_FILE);
    writeFileSync(briefsFile, JSON.stringify(readBriefs(props.briefs)));
  }
  return { dir, artifactDir, policyFile, policy: policy.data, ...(briefsFile ? { briefsFile } : {}) };
}

/** The policy with the construct's identity in it; one given in both places is refused rather than one silently winning. */
function withIdentity(policy: unknown, identity: Identity | undefined): unknown {
  if (!identity) return policy;
  if (policy !== null && typeof policy === "object" && "identity" in policy && policy.identity !== undefined) {
    throw new Error("the policy names an identity and so does the construct's `identity` prop: keep one");
  }
  return { ...(policy as object), identity };
}

/** Briefs from a folder of brief files, one JSON/YAML file holding a list, or the list, through the Lambdas' reader. */
function readBriefs(source: string | unknown[]): BriefFile[] {
  if (typeof source !== "string") return parseBriefs(source);
  if (!statSync(source).isDirectory()) return parseBriefs(readStructured(source), source);
  return readdirSync(source)
    .filter((f) => /\.(ya?ml|json)$/.test(f))
    .sort()
    .map((f) => parseBrief(readStructured(join(source, f)), join(source, f)));
}

function readStructured(path: string): unknown {
  const file = isAbsolute(path) ? path : resolve(path);
  const text = readFileSync(file, "utf8");
  return [".yaml", ".yml"].includes(extname(file)) ? parseYaml(text) : (JSON.parse(text) as unknown);
}
