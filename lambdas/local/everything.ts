// @modelcontextprotocol/server-everything over Streamable HTTP as a child process on loopback: the
// upstream of the example mcp family in `npm start`, and the real MCP server of the tests.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { freePort, waitForPort } from "./ports.js";

const ENTRY = resolve(import.meta.dirname, "../../node_modules/@modelcontextprotocol/server-everything/dist/index.js");

export type Everything = {
  /** `http://127.0.0.1:<port>/mcp` */
  url: string;
  port: number;
  /** Stops the child and waits for it to exit (SIGKILL plays a crashed upstream). */
  close(signal?: NodeJS.Signals): Promise<void>;
};

/** Whether the package (a dev dependency) is installed. */
export const everythingInstalled = (): boolean => existsSync(ENTRY);

/**
 * Its gzip tool fetches any URL a caller names (an empty allow-list means every domain): allowing only
 * the reserved `.invalid` domain, which never resolves (RFC 6761), leaves it `data:` URIs alone.
 */
const EVERYTHING_FETCHES_NOTHING = { GZIP_ALLOWED_DOMAINS: "invalid" } as const;

/**
 * Starts server-everything and resolves once it accepts connections. Its environment is minimal on
 * purpose: its get-env tool echoes whatever it was given, so it must never inherit our tokens or keys,
 * and it fetches nothing for callers (the gateway's own routes and other upstreams are on loopback).
 * `env` adds variables a test wants it to see; `port` reuses a port (to restart a stopped upstream).
 */
export async function startEverything(opts: { env?: Record<string, string>; port?: number } = {}): Promise<Everything> {
  if (!everythingInstalled()) throw new Error(`server-everything is not installed (${ENTRY})`);
  const port = opts.port ?? (await freePort());
  const child = spawn(process.execPath, [ENTRY, "streamableHttp"], {
    env: { PATH: process.env.PATH ?? "", NODE_ENV: "production", ...opts.env, ...EVERYTHING_FETCHES_NOTHING, PORT: String(port), HOST: "127.0.0.1" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (d: Buffer) => {
    if (stderr.length < 4096) stderr += d.toString();
  });
  const exited = new Promise<void>((done) => child.once("exit", () => done()));
  const close = async (signal: NodeJS.Signals = "SIGTERM") => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  try {
    await waitForPort(port, {
      what: "server-everything",
      gone: () => (child.exitCode !== null || child.signalCode !== null ? `exited (${child.exitCode ?? child.signalCode}): ${stderr.trim()}` : undefined),
    });
  } catch (err) {
    await close("SIGKILL");
    throw err;
  }
  return { url: `http://127.0.0.1:${port}/mcp`, port, close };
}
