// esbuild bundles of the same handler shared by every test file of a run (and the next run): a bundle is
// reused only while every input file its metafile lists still has the content it was built from.
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { version as esbuildVersion, type Metafile } from "esbuild";

const sha = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");

type Entry = { metafile: Metafile; inputs: Record<string, string> };

/** The cache folder for this checkout (tmpdir, so no test writes into the repository). */
export const BUNDLE_CACHE_DIR = join(tmpdir(), `toolbelt-bundles-${sha(resolve(".")).slice(0, 12)}`);

/** A key for a build: esbuild's version and the options without the output path, which does not change the bundle's bytes. */
export function bundleKey(options: object): string {
  const { outfile: _outfile, ...rest } = options as { outfile?: string };
  return sha(JSON.stringify({ esbuildVersion, ...rest })).slice(0, 24);
}

function inputHashes(metafile: Metafile, workingDir: string): Record<string, string> | undefined {
  const hashes: Record<string, string> = {};
  for (const input of Object.keys(metafile.inputs)) {
    const file = join(workingDir, input);
    if (!existsSync(file)) return undefined;
    hashes[input] = sha(readFileSync(file));
  }
  return hashes;
}

/** Copies a cached bundle to `outfile` and returns its metafile, or undefined when any input changed. */
export function fromCache(key: string, outfile: string, workingDir: string): Metafile | undefined {
  const dir = join(BUNDLE_CACHE_DIR, key);
  let entry: Entry;
  try {
    entry = JSON.parse(readFileSync(join(dir, "entry.json"), "utf8")) as Entry;
  } catch {
    return undefined;
  }
  const now = inputHashes(entry.metafile, workingDir);
  if (!now || Object.entries(entry.inputs).some(([input, hash]) => now[input] !== hash)) return undefined;
  copyFileSync(join(dir, "index.mjs"), outfile);
  return entry.metafile;
}

/** Stores a fresh bundle; written to a new name and renamed, so a reader in another worker never sees half of it. */
export function toCache(key: string, outfile: string, metafile: Metafile, workingDir: string): void {
  const inputs = inputHashes(metafile, workingDir);
  if (!inputs) return;
  const dir = join(BUNDLE_CACHE_DIR, key);
  mkdirSync(dir, { recursive: true });
  const tmp = `.${process.pid}-${Date.now()}`;
  copyFileSync(outfile, join(dir, `index.mjs${tmp}`));
  renameSync(join(dir, `index.mjs${tmp}`), join(dir, "index.mjs"));
  writeFileSync(join(dir, `entry.json${tmp}`), JSON.stringify({ metafile, inputs } satisfies Entry));
  renameSync(join(dir, `entry.json${tmp}`), join(dir, "entry.json"));
}
