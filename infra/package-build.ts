// `npm run build:package`: the installable construct package (package.json `exports["./infra"]`), in
// dist/package: the construct and what the synth runs (the registry build, the leave-out step)
// compiled to JavaScript with declarations (tsconfig.package.json), the build's data files, and one
// prebuilt esbuild bundle per built-in handler, which the construct copies instead of bundling at
// synth (infra/lambda-code.ts). `buildPackage(root)` writes `root/dist/package`; the example-app test
// builds into a temp folder with it.
import { execFileSync } from "node:child_process";
import { cpSync, readdirSync, rmSync, statSync } from "node:fs";
import { basename, extname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { BUNDLE_FILE, esbuildOptions } from "./bundling.js";
import { ENDPOINT_GROUPS } from "./endpoint-groups.js";
import { PREBUILT_BUNDLES_DIR } from "./lambda-code.js";
import { PROJECT_ROOT } from "./staging.js";

/** Where the package's code goes, relative to the package root (package.json `exports` and `files` point here). */
export const PACKAGE_CODE_DIR = "dist/package";

/** Files of build/ the compiled build reads beside itself (import.meta.url): anything but TypeScript. */
const BUILD_DATA = (name: string) => extname(name) !== ".ts" || statSync(join(PROJECT_ROOT, "build", name)).isDirectory();

export type PackageBuild = { dir: string; bundles: Record<string, number> };

export async function buildPackage(root: string = PROJECT_ROOT): Promise<PackageBuild> {
  const dir = join(root, PACKAGE_CODE_DIR);
  rmSync(dir, { recursive: true, force: true });
  const tsc = join(PROJECT_ROOT, "node_modules/typescript/bin/tsc");
  execFileSync(process.execPath, [tsc, "-p", join(PROJECT_ROOT, "tsconfig.package.json"), "--outDir", dir], { cwd: PROJECT_ROOT, stdio: "inherit" });
  for (const name of readdirSync(join(PROJECT_ROOT, "build")).filter(BUILD_DATA)) {
    // Folders of build/ hold TypeScript (load/, validate/) or data (template/): copy only data.
    cpSync(join(PROJECT_ROOT, "build", name), join(dir, "build", name), { recursive: true, filter: (f) => extname(f) !== ".ts" });
  }
  const entries = [...new Set(Object.values(ENDPOINT_GROUPS).map((g) => g.entry))];
  const sizes = await Promise.all(
    entries.map(async (entry) => {
      const outfile = join(dir, PREBUILT_BUNDLES_DIR, basename(entry, extname(entry)), BUNDLE_FILE);
      const result = await build({ ...esbuildOptions(join(PROJECT_ROOT, entry), outfile), absWorkingDir: PROJECT_ROOT, write: true });
      return [basename(entry, extname(entry)), Object.values(result.metafile!.outputs)[0]!.bytes] as const;
    }),
  );
  return { dir, bundles: Object.fromEntries(sizes) };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const started = performance.now();
  const { dir, bundles } = await buildPackage();
  const sizes = Object.entries(bundles).map(([name, bytes]) => `${name} ${bytes.toLocaleString("en")} B`);
  process.stdout.write(`package code in ${dir} (bundles: ${sizes.join(", ")}) in ${Math.round(performance.now() - started)} ms\n`);
}
