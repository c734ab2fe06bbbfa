// Template injection into every http tool of the example registry: hostile values go into each string
// argument that reaches the URL (path or query), straight into the http backend (the input schema may
// refuse some of them first; the backend must hold on its own). A real loopback server stands for the
// tools' upstream and records every request; a second one stands for everywhere else and must see none.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBackends } from "../../lambdas/backends/index.js";
import type { BackendContext, ToolBackend } from "../../lambdas/core/call/types.js";
import { ToolbeltError } from "../../lambdas/core/errors.js";
import type { CatalogTool } from "../../registry/contract/artifact.js";
import { splitUrlTemplate } from "../../registry/contract/egress.js";
import { exampleArtifact } from "../helpers/example-registry.js";
import { startLoopback, type Loopback } from "./call/helpers.js";

/** The tools' base URL has a path of its own: climbing out of a tool's path is visible even at `/`. */
const BASE_PATH = "/svc";

type Seen = { url: string; host: string | undefined; headers: Record<string, unknown> };
type Schema = { properties?: Record<string, { type?: string | string[]; examples?: unknown[] }> };

let upstream: Loopback;
let elsewhere: Loopback;
let http: ToolBackend;
let tools: CatalogTool[] = [];
const seen: Seen[] = [];
const seenElsewhere: Seen[] = [];

const hostile = () => [
  "..",
  "../..",
  "../../..",
  ".",
  "%2e%2e",
  "%2E%2e/%2e%2e",
  "..%2f..",
  "..\\..",
  `http://127.0.0.1:${new URL(elsewhere.url).port}/`,
  `//127.0.0.1:${new URL(elsewhere.url).port}/x`,
  `@127.0.0.1:${new URL(elsewhere.url).port}`,
  "@evil.example",
  "a/b",
  "a?admin=1#x",
  "a&limit=1000000",
  "x\r\nx-injected: 1",
  "x\r\n\r\nGET /admin HTTP/1.1",
];

/** Undo every layer of percent-encoding a server might apply (lenient, byte-wise). */
function fullyDecoded(text: string): string {
  let v = text;
  for (let i = 0; i < 16; i++) {
    const next = v.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    if (next === v) return v;
    v = next;
  }
  return v;
}

/** String properties a tool's URL or query templates read. */
function urlArguments(t: CatalogTool): string[] {
  const b = t.backend;
  if (b.kind !== "http") return [];
  const text = [b.url, ...Object.values(b.query ?? {})].join(" ");
  const props = (t.input_schema as Schema).properties ?? {};
  return Object.keys(props).filter((name) => {
    const type = props[name]?.type;
    const stringy = type === undefined || type === "string" || (Array.isArray(type) && type.includes("string"));
    return stringy && new RegExp(`\\{\\{\\s*input\\.${name}\\s*\\}\\}`).test(text);
  });
}

/** The path every request of the tool must stay under: the base path plus the template's literal path up to its first placeholder. */
function pathPrefix(t: CatalogTool): string {
  const b = t.backend;
  if (b.kind !== "http") throw new Error(`${t.name} is not http`);
  const literal = splitUrlTemplate(b.url).path.split("{{")[0]!;
  return BASE_PATH + literal;
}

const exampleArgs = (t: CatalogTool): Record<string, unknown> => {
  const args: Record<string, unknown> = {};
  for (const [k, p] of Object.entries((t.input_schema as Schema).properties ?? {})) if (p.examples?.length) args[k] = p.examples[0];
  return args;
};

const record = (into: Seen[]) => (req: { url?: string; headers: Record<string, unknown> }) =>
  into.push({ url: req.url ?? "", host: req.headers.host as string | undefined, headers: req.headers });

beforeAll(async () => {
  upstream = await startLoopback((req, res) => {
    record(seen)(req);
    res.writeHead(200, { "content-type": "application/json" });
    res.end("{}");
  });
  elsewhere = await startLoopback((req, res) => {
    record(seenElsewhere)(req);
    res.end("{}");
  });
  const artifact = await exampleArtifact();
  tools = artifact.tools.filter((t) => t.backend.kind === "http");
  const env = { DEMO_SERVICE_URL: `${upstream.url}${BASE_PATH}`, DEMO_SERVICE_TOKEN: "sweep-token-7f6e5d" };
  http = createBackends({ env, families: artifact.families }).backends.http!;
});

afterAll(async () => {
  await Promise.all([upstream.close(), elsewhere.close()]);
});

const ctx = (): BackendContext => ({
  signal: AbortSignal.timeout(5_000),
  timeoutMs: 5_000,
  caller: { principal: "sweep", admin: false, granted: () => true },
  depth: 0,
  call: () => Promise.reject(new Error("no nested calls in the sweep")),
});

describe("template injection sweep over the example registry's http tools", () => {
  it("finds the tools and the arguments that reach their URLs", () => {
    expect(tools.length).toBeGreaterThan(40);
    const targets = tools.flatMap((t) => urlArguments(t).map((a) => `${t.name}.${a}`));
    // Path parameters are the dangerous ones; the sweep must cover each of them.
    expect(targets).toEqual(expect.arrayContaining(["notes.get.id", "notes.tag.id", "notes.delete.id", "kv.get.key", "kv.set.key", "kv.increment.key"]));
  });

  it("keeps every request on the declared origin and under the tool's path, whatever the arguments", async () => {
    const upstreamHost = new URL(upstream.url).host;
    let calls = 0;
    let refused = 0;
    for (const tool of tools) {
      const b = tool.backend;
      if (b.kind !== "http") continue;
      const prefix = pathPrefix(tool);
      const pathArgs = new Set(urlArguments(tool).filter((a) => splitUrlTemplate(b.url).path.includes(`input.${a}`)));
      const queryKeys = new Set([...Object.keys(b.query ?? {}), ...new URLSearchParams(splitUrlTemplate(b.url).tail.split("#")[0]).keys()]);
      for (const arg of urlArguments(tool)) {
        for (const value of hostile()) {
          const before = seen.length;
          calls++;
          const outcome = await http.invoke(tool, { ...exampleArgs(tool), [arg]: value }, ctx()).then(
            () => "sent",
            (e: unknown) => e,
          );
          const where = `${tool.name} ${arg}=${JSON.stringify(value)}`;
          if (outcome !== "sent") {
            // Refused before anything was sent: a 4xx that names the argument, never a 5xx or a crash.
            expect(outcome, where).toBeInstanceOf(ToolbeltError);
            expect((outcome as ToolbeltError).status, where).toBe(422);
            expect((outcome as ToolbeltError).details.argument, where).toBe(arg);
            expect(seen.length, where).toBe(before);
            refused++;
            continue;
          }
          const requests = seen.slice(before);
          expect(requests, where).toHaveLength(1);
          for (const r of requests) {
            expect(r.host, where).toBe(upstreamHost);
            expect(r.headers["x-injected"], where).toBeUndefined();
            const [rawPath, query = ""] = r.url.split("?");
            // A server that percent-decodes (any number of times) before resolving dot segments stays under the prefix too.
            expect(new URL(fullyDecoded(rawPath!), "http://x").pathname.startsWith(prefix), `${where}: ${r.url}`).toBe(true);
            expect(rawPath!.startsWith(prefix), `${where}: ${r.url}`).toBe(true);
            const keys = [...new URLSearchParams(query).keys()];
            expect(
              keys.filter((k) => !queryKeys.has(k)),
              `${where}: ${r.url}`,
            ).toEqual([]);
            if (!pathArgs.has(arg))
              expect(new URLSearchParams(query).getAll(Object.keys(b.query ?? {}).find((k) => b.query![k]!.includes(`input.${arg}`)) ?? "")).toContain(value);
          }
          // A value that would climb is never sent as a path segment.
          if (pathArgs.has(arg)) expect(/(^|[\\/])\.\.?($|[\\/])/.test(fullyDecoded(value)), `${where} was sent`).toBe(false);
        }
      }
    }
    expect(seenElsewhere).toEqual([]);
    // Every path argument's climbing values were refused; the rest went out, encoded, to the one upstream.
    expect(calls).toBeGreaterThan(300);
    expect(refused).toBeGreaterThan(0);
  });
});
