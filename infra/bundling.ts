// The esbuild settings every Lambda bundle is built with. The construct (esbuild at synth), the
// package build (prebuilt bundles), the bundle tests and the cold-start bench all read them from here,
// so what is tested is what ships.
import { copyFileSync, mkdirSync } from "node:fs";
import { extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { BuildOptions } from "esbuild";
import { ARTIFACT_FILES } from "../registry/contract/artifact.js";

/** Node 20 is the project's runtime; esbuild targets the same language level. */
export const NODE_TARGET = "node20";

/**
 * ESM bundles that pull CommonJS dependencies (the AWS SDK, hono's helpers) call `require` for
 * Node built-ins; an ESM module has none, so the banner gives it one (TOOLCHAIN.md gotcha).
 */
export const ESM_REQUIRE_BANNER = "import { createRequire as __tbCreateRequire } from 'node:module'; const require = __tbCreateRequire(import.meta.url);";

/**
 * Credential providers of the SDK's default chain that read ~/.aws files, SSO caches, a
 * credential_process or a web-identity token file. None of those sources exists in a Lambda
 * function (its role credentials are in the environment, the chain's first link, or behind the
 * container endpoint, a later link that stays bundled), yet together with the STS and SSO clients
 * they load they were 123 KB of every bundle. Each is aliased to a stand-in whose link says "try the
 * next one", as the real provider does when its source is missing.
 */
export const CREDENTIAL_PROVIDER_STAND_IN = fileURLToPath(
  // `.ts` in a clone, `.js` in the compiled package (where it bundles a user's own entry).
  new URL(`../lambdas/stores/aws-credential-links${extname(fileURLToPath(import.meta.url))}`, import.meta.url),
);
export const BUNDLE_ALIASES: Readonly<Record<string, string>> = Object.fromEntries([
  ...["ini", "sso", "process", "web-identity"].map((p) => [`@aws-sdk/credential-provider-${p}`, CREDENTIAL_PROVIDER_STAND_IN]),
  // The Bedrock client's bearer-token providers (Bedrock API keys, SSO token caches with their OIDC client).
  ["@aws-sdk/token-providers", CREDENTIAL_PROVIDER_STAND_IN],
]);

/**
 * Shared settings.
 * - ESM: top-level await lets a handler finish cold-start work (artifact, secrets) before the
 *   first event, and `module` entry points of dependencies tree-shake better than `main`.
 * - minify + keepNames: smaller bundles parse faster at cold start; kept names keep stack traces
 *   readable without a source map.
 * - No source map: a map roughly doubles the asset and `--enable-source-maps` slows every
 *   `Error.stack` and the cold start; a 500 only carries a request id anyway, and the same code
 *   runs unminified under `npm start` for debugging.
 * - No externals, AWS SDK included: the Node 20 runtime ships an SDK v3 of its own choosing and
 *   changes it without notice; bundling pins the version the tests ran (3.1169.0), ships only the
 *   clients a function imports, and one minified file loads faster than the runtime's copy.
 */
export const BUNDLE_SETTINGS = {
  format: "esm",
  platform: "node",
  target: NODE_TARGET,
  minify: true,
  keepNames: true,
  sourcemap: false,
  mainFields: ["module", "main"],
  externals: [] as string[],
  banner: ESM_REQUIRE_BANNER,
  alias: BUNDLE_ALIASES,
} as const;

/** Options for an esbuild build of one entry file (the construct, the package build, bundle tests, bench). */
export function esbuildOptions(entry: string, outfile: string): BuildOptions {
  return {
    entryPoints: [entry],
    outfile,
    bundle: true,
    format: BUNDLE_SETTINGS.format,
    platform: BUNDLE_SETTINGS.platform,
    target: BUNDLE_SETTINGS.target,
    minify: BUNDLE_SETTINGS.minify,
    keepNames: BUNDLE_SETTINGS.keepNames,
    sourcemap: BUNDLE_SETTINGS.sourcemap,
    mainFields: [...BUNDLE_SETTINGS.mainFields],
    external: [...BUNDLE_SETTINGS.externals],
    banner: { js: BUNDLE_SETTINGS.banner },
    alias: { ...BUNDLE_SETTINGS.alias },
    metafile: true,
    logLevel: "warning",
  };
}

/** Where the artifact sits inside every bundle, relative to the bundle root (/var/task). */
export const BUNDLED_ARTIFACT_DIR = "artifact";
/** The deployment policy (digests only) inside every bundle. */
export const BUNDLED_POLICY_FILE = "policy.json";
/** Declared briefs inside every bundle, when the deployment has any. */
export const BUNDLED_BRIEFS_FILE = "briefs.json";
/** The Lambda runtime unpacks the bundle here. */
export const LAMBDA_TASK_ROOT = "/var/task";

/** The bundle's file name: the handler is `index.handler`. */
export const BUNDLE_FILE = "index.mjs";

/**
 * Copies the staged deployment files (the artifact's four files, the policy, the briefs) next to a
 * bundle. Only the named artifact files are copied: whatever else sits in the artifact folder stays
 * out of the Lambda.
 */
export function copyIntoBundle(outputDir: string, staged: { artifactDir: string; policyFile?: string; briefsFile?: string }): void {
  const artifactOut = join(outputDir, BUNDLED_ARTIFACT_DIR);
  mkdirSync(artifactOut, { recursive: true });
  for (const file of Object.values(ARTIFACT_FILES)) copyFileSync(join(staged.artifactDir, file), join(artifactOut, file));
  if (staged.policyFile) copyFileSync(staged.policyFile, join(outputDir, BUNDLED_POLICY_FILE));
  if (staged.briefsFile) copyFileSync(staged.briefsFile, join(outputDir, BUNDLED_BRIEFS_FILE));
}
