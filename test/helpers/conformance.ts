// The official MCP conformance suite against a real gateway: the example registry served as `npm start`
// wires it (dynalite, the Host and Origin checks of a loopback server), a proxy that adds the bearer key
// the suite cannot send, and the suite's CLI run on the Node 24 it needs (this machine's is 20).
import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { serve } from "@hono/node-server";
import { loadConfig } from "../../lambdas/config.js";
import { localPolicyFile } from "../../lambdas/core/auth.js";
import { memoryLogger } from "../../lambdas/http/logger.js";
import { localHosts, localOrigins } from "../../lambdas/http/origin.js";
import { createLocalApp } from "../../lambdas/local/local-app.js";
import { freePort } from "../../lambdas/local/ports.js";
import { startDynalite } from "./dynalite.js";
import { exampleArtifact } from "./example-registry.js";
import { lambdaNode } from "./lambda-node.js";

const _root = fileURLToPath(new URL("../..", import.meta.url));
/**
 * The released suite (2025-11-25 scenarios) and the 0.2 alpha with the 2026-07-28 requirement set, pinned.
 * Fetched by `npm exec` like the Node that runs them, not devDependencies: they declare Node >= 22 and
 * would make `npm ci` warn (EBADENGINE) on the machine's Node 20.
 */
export const CONFORMANCE = {
  stable: "@modelcontextprotocol/conformance@0.1.16",
  next: "@modelcontextprotocol/conformance@0.2.0-alpha.12",
};

/** The CLI file of a pinned conformance package (npm's cache keeps it after the first fetch). */
export function conformanceCli(spec: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const args = ["exec", "--yes", `--package=${spec}`, "--", "sh", "-c", 'readlink -f "$(command -v conformance)"'];
    execFile("npm", args, { cwd: tmpdir(), timeout: 180_000 }, (error, stdout) => (error ? reject(error) : resolve(stdout.trim().split("\n").at(-1) ?? "")));
  });
}

type Closable = { url: string; close(): Promise<void> };

function listen(server: Server): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
  });
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((done) => server.close(() => done()));
}

/** The upstreams' settings point at a closed port: the suite calls only the gateway's own tools, never an upstream. */
const NO_UPSTREAM = { DEMO_SERVICE_URL: "http://127.0.0.1:9", DEMO_SERVICE_TOKEN: "unused", EVERYTHING_MCP_URL: "http://127.0.0.1:9/mcp" };

/** The example registry's gateway on 127.0.0.1: npm start's app (lambdas/local/local-app.ts). */
export async function startExampleGateway(key: string): Promise<Closable> {
  const port = await freePort();
  const dynamo = await startDynalite({ table: "toolbelt-conformance" });
  const artifact = await exampleArtifact();
  const config = loadConfig({ TOOLBELT_TABLE: dynamo.table });
  const local = createLocalApp({
    config,
    env: NO_UPSTREAM,
    client: dynamo.client,
    artifact,
    policy: localPolicyFile(key),
    briefs: [],
    logger: memoryLogger(),
    models: {},
    defaultFileRoots: [],
    internalPaths: [],
    port,
  });
  const server = serve({ fetch: local.app.fetch, hostname: "127.0.0.1", port }) as Server;
  await new Promise<void>((done, fail) => {
    if (server.listening) return done();
    server.once("listening", () => done());
    server.once("error", fail);
  });
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      await closeServer(server);
      await local.close();
      await dynamo.close();
    },
  };
}

/**
 * A loopback proxy that adds `Authorization: Bearer <key>` and forwards to `target`. It stands in for the
 * gateway: a Host or Origin naming the proxy becomes the same name of the target; any other passes as
 * sent, so the gateway's own checks judge it.
 */
export async function startAuthProxy(target: string, key: string): Promise<Closable> {
  const to = new URL(target);
  const renamed = new Map<string, string>();
  const server = createServer((req, res) => {
    const headers = { ...req.headers, authorization: `Bearer ${key}` };
    for (const name of ["host", "origin"] as const) {
      const value = req.headers[name];
      if (value !== undefined) headers[name] = renamed.get(value) ?? value;
    }
    const out = httpRequest({ hostname: to.hostname, port: to.port, method: req.method, path: req.url, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    out.on("error", (e) => res.destroy(e));
    req.pipe(out);
  });
  const url = await listen(server);
  const [mine, theirs] = [Number(new URL(url).port), Number(to.port)];
  const names = [...localHosts(theirs), ...localOrigins(theirs)];
  [...localHosts(mine), ...localOrigins(mine)].forEach((name, i) => renamed.set(name, names[i] ?? name));
  return { url, close: () => closeServer(server) };
}

export type Check = { id: string; status: string; errorMessage?: string; details?: unknown };
export type ScenarioResult = { scenario: string; checks: Check[] };

/** The suite needs Node >= 22: the Lambda runtime's Node (test/helpers/lambda-node.ts). */
export const node24 = lambdaNode;

/** Run the suite's server scenarios against `url` (extra CLI arguments pick the set); the checks of each scenario. */
export async function runConformance(
  node: string,
  cli: string,
  url: string,
  args: string[],
  timeoutMs: number,
): Promise<{ results: ScenarioResult[]; output: string }> {
  const dir = await mkdtemp(join(tmpdir(), "toolbelt-conformance-"));
  try {
    const output = await new Promise<string>((resolve) => {
      // The CLI exits non-zero when a check fails: the checks, not its exit code, are what the test reads.
      execFile(node, [cli, "server", "--url", url, "-o", dir, ...args], { timeout: timeoutMs, maxBuffer: 16 << 20 }, (_e, stdout, stderr) =>
        resolve(`${stdout}${stderr}`),
      );
    });
    return { results: await readResults(dir), output };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The suite writes one folder per scenario, `server-<scenario>-<time>`, each with a checks.json. */
async function readResults(dir: string): Promise<ScenarioResult[]> {
  const results: ScenarioResult[] = [];
  for (const entry of await readdir(dir, { recursive: true })) {
    if (!entry.endsWith("checks.json")) continue;
    const checks = JSON.parse(await readFile(join(dir, entry), "utf8")) as Check[];
    const folder = entry.split("/")[0] ?? entry;
    results.push({ scenario: folder.replace(/^server-/, "").replace(/-\d{4}-\d\d-\d\dT[\d-]+Z$/, ""), checks });
  }
  return results;
}

/** The server scenarios a `conformance list` prints: its server section, and the unscored ones tagged [server]. */
export async function listServerScenarios(node: string, cli: string, args: string[]): Promise<string[]> {
  const listing = await new Promise<string>((resolve, reject) =>
    execFile(node, [cli, "list", ...args], (error, stdout) => (error ? reject(error) : resolve(stdout))),
  );
  let section = "";
  const names: string[] = [];
  for (const line of listing.split("\n")) {
    const heading = /^(\w+) scenarios/.exec(line);
    if (heading) section = heading[1] ?? "";
    else if (!line.startsWith(" ")) section = "";
    const item = /^\s+- (\S+)(?: \[([^\]]+)\])?$/.exec(line);
    if (item?.[1] && (section === "Server" || item[2] === "server")) names.push(item[1]);
  }
  return names;
}
