// Shared bits of the call integration tests: catalog tools with real backends, a caller, a loopback server.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Backend, CatalogTool } from "../../../registry/contract/artifact.js";
import type { Caller } from "../../../lambdas/core/ports.js";
import { globMatcher } from "../../../registry/contract/globs.js";
import { startEverything as startUpstream, type Everything as Upstream } from "../../../lambdas/local/everything.js";
import { familyViews, type FamilyViews } from "../../../lambdas/backends/variables.js";

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

/** The three builtin meta-tools as the call tests declare them (find, call, reshape). */
export function metaTools(): CatalogTool[] {
  return [
    catalogTool(
      "toolbelt.find",
      { kind: "builtin", handler: "find" },
      {
        description: "Search the tool registry for tools that can do one capability.",
        input_schema: { type: "object", required: ["query"], properties: { query: { type: "string" } } },
      },
    ),
    catalogTool(
      "toolbelt.call",
      { kind: "builtin", handler: "call" },
      {
        description: "Call any tool you are allowed to use by its full name.",
        input_schema: { type: "object", required: ["tool"], properties: { tool: { type: "string" }, args: { type: "object", default: {} } } },
      },
    ),
    catalogTool(
      "toolbelt.reshape",
      { kind: "builtin", handler: "reshape" },
      {
        description: "Reshape JSON data with a mapping.",
        input_schema: { type: "object", required: ["data", "mapping"], properties: { data: {}, mapping: { type: "object" } } },
      },
    ),
  ];
}

export const callerFor = (principal: string, ...globs: string[]): Caller => ({ principal, admin: false, granted: globMatcher(globs) });

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

export type Everything = { url: string; stop(): Promise<void>; start(): Promise<void> };

/** server-everything that a test can kill (SIGKILL, as a crash) and start again on the same port. */
export async function startEverything(): Promise<Everything> {
  let child: Upstream | undefined = await startUpstream();
  const { port, url } = child;
  return {
    url,
    start: async () => {
      child = await startUpstream({ port });
    },
    stop: async () => {
      const proc = child;
      child = undefined;
      await proc?.close("SIGKILL");
    },
  };
}

/** Family views in which `family` declares every variable of `env` (those named in `secret` as secrets). */
export function declaredBy(family: string, env: Record<string, string | undefined>, secret: readonly string[] = []): FamilyViews {
  const variables = Object.fromEntries(Object.keys(env).map((name) => [name, { secret: secret.includes(name) }]));
  return familyViews([{ name: family, variables }], env);
}
