// The console's assets: the committed module (lambdas/console/assets.ts) is what console/build.ts makes
// of console/src today, they weigh at most 150 KB gzipped, and no handler but the console's carries them.
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { gzipSync } from "node:zlib";
import { readFile } from "node:fs/promises";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";
import { ASSETS_MODULE, assetsModule, buildConsoleAssets } from "../../console/build.js";
import { CONSOLE_ASSETS } from "../../lambdas/console/assets.js";
import { PROJECT_ROOT } from "../../infra/toolbelt-gateway.js";

const MAX_GZIPPED_BYTES = 150 * 1024;

describe("console assets", () => {
  it("lambdas/console/assets.ts is current: npm run console:build after changing console/src", async () => {
    const built = await buildConsoleAssets();
    expect(await readFile(ASSETS_MODULE, "utf8")).toBe(assetsModule(built));
  });

  it("the UI's sources type-check against the contract types they read (tsc -p console; the root tsconfig leaves console/ out)", async () => {
    const tsc = join(PROJECT_ROOT, "node_modules/.bin/tsc");
    const run = await promisify(execFile)(tsc, ["-p", "console", "--noEmit"], { cwd: PROJECT_ROOT }).then(
      () => "",
      (e: { stdout?: string }) => e.stdout ?? String(e),
    );
    expect(run).toBe("");
  });

  it("weigh at most 150 KB gzipped, script and style together", () => {
    const gzipped = [CONSOLE_ASSETS.script, CONSOLE_ASSETS.style].reduce((n, a) => n + gzipSync(a.body, { level: 9 }).length, 0);
    // 2026-12-07: 17,279 bytes (Preact, htm and six views).
    expect(gzipped).toBeLessThanOrEqual(MAX_GZIPPED_BYTES);
    expect(gzipped).toBeGreaterThan(1024);
  });

  it("are in no handler's bundle but the console's: the api, call and MCP Lambdas import nothing of console/ or lambdas/console/", async () => {
    const inputs = async (entry: string) => {
      // Our own modules only (packages stay external): which files a handler's bundle would carry.
      const { metafile } = await build({
        entryPoints: [entry],
        absWorkingDir: PROJECT_ROOT,
        bundle: true,
        write: false,
        metafile: true,
        platform: "node",
        format: "esm",
        packages: "external",
        logLevel: "silent",
      });
      return Object.keys(metafile.inputs);
    };
    const ofConsole = (files: string[]) => files.filter((f) => /^(lambdas\/)?console\//.test(f));
    for (const handler of ["api", "call", "mcp"]) {
      expect([handler, ofConsole(await inputs(`lambdas/handlers/${handler}.ts`))]).toEqual([handler, []]);
    }
    // The check sees the assets where they are: npm start's app carries them.
    expect(ofConsole(await inputs("lambdas/local/local-app.ts"))).toContain("lambdas/console/assets.ts");
  });
});
