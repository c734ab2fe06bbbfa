import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { run } from "../../../build/cli.js";

export const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

export type CliResult = { code: number; stdout: string; stderr: string };

/**
 * Run the registry CLI in this process: `run(argv, io)` is what `build/cli.ts` does after parsing
 * process.argv, so its exit code and output are the CLI's (relative paths resolve against the
 * repository root, vitest's working folder). `spawnCli` below covers the process itself.
 */
export async function cli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  let stdout = "";
  let stderr = "";
  const code = await run(args, {
    out: (s) => (stdout += s),
    err: (s) => (stderr += s),
    env: { ...process.env, ...env },
  });
  return { code, stdout, stderr };
}

/** Run `build/cli.ts` as the npm scripts do (through tsx, a child process), from the repository root. */
export function spawnCli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--import", "tsx", "build/cli.ts", ...args],
      { cwd: ROOT, env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024 },
      (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, stdout, stderr }),
    );
  });
}
