// Shared bits of the call integration tests: catalog tools with real backends, a caller, a loopback server.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Backend, CatalogTool } from "../../../registry/contract/artifact.js";
import type { Caller } from "../../../lambdas/core/call/types.js";
import { globMatcher } from "../../../lambdas/core/globs.js";

export function catalogTool(name: string, backend: Backend, over: Partial<CatalogTool> = {}): CatalogTool {
  return {
    name,
    family: name.slice(0, name.indexOf(".")),
    kind: backend.kind,
    description: `Test tool ${name}.`,
    input_schema: { type: "object" },
    governance: {},
    timeout_ms: 10_000,
    backend,
    source: "test",
    ...over,
  };
}

export const callerFor = (principal: string, ...globs: string[]): Caller => ({ principal, granted: globMatcher(globs) });

export const toolMap = (tools: CatalogTool[]) => new Map(tools.map((t) => [t.name, t]));

export type Loopback = { url: string; close(): Promise<void> };

/** A real HTTP server on 127.0.0.1 port 0. */
export async function startLoopback(handler: (req: IncomingMessage, res: ServerResponse, body: string) => void): Promise<Loopback> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => handler(req, res, Buffer.concat(chunks).toString("utf8")));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A promise with its resolve exposed, to hold a request open until the test says so. */
export function latch(): { promise: Promise<void>; release(): void } {
  let release!: () => void;
  const promise = new Promise<void>((r) => (release = r));
  return { promise, release };
}

import { spawn, type ChildProcess } from "node:child_process";
import { createServer as createNetServer } from "node:net";

async function freePort(): Promise<number> {
  const s = createNetServer();
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

export type Everything = { url: string; stop(): Promise<void>; start(): Promise<void> };

/** @modelcontextprotocol/server-everything over Streamable HTTP, as a child process on a free port. */
export async function startEverything(): Promise<Everything> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    const proc = spawn(process.execPath, ["node_modules/@modelcontextprotocol/server-everything/dist/index.js", "streamableHttp"], {
      env: { ...process.env, PORT: String(port) },
      stdio: ["ignore", "ignore", "pipe"],
    });
    child = proc;
    await new Promise<void>((resolve, reject) => {
      let err = "";
      proc.stderr!.on("data", (d: Buffer) => {
        err += d.toString();
        if (/listening on port/i.test(err)) resolve();
      });
      proc.once("exit", (code) => reject(new Error(`server-everything exited (${code}): ${err}`)));
    });
  };
  const stop = async () => {
    const proc = child;
    child = undefined;
    if (!proc || proc.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      proc.once("exit", () => resolve());
      proc.kill("SIGKILL");
    });
  };
  await start();
  return { url: `http://127.0.0.1:${port}/mcp`, start, stop };
}
