// Where each function's code comes from. The installed package ships a prebuilt esbuild bundle of each
// built-in handler (`npm run build:package`), so a user's synth copies it and needs neither esbuild nor
// the TypeScript sources; in a clone (and for a user's own entry) esbuild bundles the entry at synth
// with the same settings. Either way the staged artifact, policy and briefs are copied beside it.
import { copyFileSync, existsSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, extname, isAbsolute, join } from "node:path";
import { AssetHashType, DockerImage } from "aws-cdk-lib";
import * as lambda from "aws-cdk-lib/aws-lambda";
import { BUNDLE_FILE, copyIntoBundle, esbuildOptions } from "./bundling.js";
import { PROJECT_ROOT, type Staged } from "./staging.js";

/** The package's prebuilt bundles, one folder per handler entry's base name (`bundles/api/index.mjs`). */
export const PREBUILT_BUNDLES_DIR = "bundles";

/** The prebuilt bundle of a handler entry (relative to the project root), when this copy of the code ships one. */
export function prebuiltBundle(entry: string): string | undefined {
  const file = join(PROJECT_ROOT, PREBUILT_BUNDLES_DIR, basename(entry, extname(entry)), BUNDLE_FILE);
  return existsSync(file) ? file : undefined;
}

/** `entry` is relative to the project root (the built-in handlers) or absolute (a user's own). */
export function lambdaCode(entry: string, staged: Staged): lambda.Code {
  const prebuilt = isAbsolute(entry) ? undefined : prebuiltBundle(entry);
  const source = isAbsolute(entry) ? entry : join(PROJECT_ROOT, entry);
  const local = {
    // CDK hands out one staged asset per set of asset options that serialize alike, and tryBundle serializes
    // to nothing: without these two, every handler of one folder (lambdas/handlers/) got the first one's bundle.
    entry: prebuilt ?? source,
    staging: staged.dir,
    tryBundle(outputDir: string): boolean {
      const outfile = join(outputDir, BUNDLE_FILE);
      if (prebuilt) {
        copyFileSync(prebuilt, outfile);
      } else {
        // Loaded only here: the installed package needs no esbuild unless a user's own entry is bundled.
        const esbuild = createRequire(import.meta.url)("esbuild") as typeof import("esbuild");
        esbuild.buildSync({ ...esbuildOptions(source, outfile), absWorkingDir: PROJECT_ROOT, metafile: false });
      }
      copyIntoBundle(outputDir, staged);
      return true;
    },
  };
  return lambda.Code.fromAsset(dirname(prebuilt ?? source), {
    // The asset is what was bundled: the code and the deployment files beside it.
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      // Never pulled: local bundling always succeeds, so synth needs no Docker.
      image: DockerImage.fromRegistry("toolbelt-bundles-locally"),
      local,
    },
  });
}
