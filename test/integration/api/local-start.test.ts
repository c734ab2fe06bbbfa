// `npm start` as a user runs it: builds the example registry, starts dynalite, the demo service and
// server-everything on loopback, serves the app, answers find and calls, and stops cleanly on SIGTERM.
import { spawn, type ChildProcess } from "node:child_process";
import { appendFileSync, cpSync, mkdirSync, writeFileSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENDPOINT_GROUPS } from "../../../infra/endpoint-groups.js";
import { portOpen } from "../../../lambdas/local/ports.js";

let child: ChildProcess;
let url = "";
let output = "";
let artifactDir = "";
const KEY = "local-start-test-key";

/** `npm start` with the test's key and extra environment; resolves with its URL once it listens. */
function startLocal(extra: Record<string, string>, args: string[] = []): { child: ChildProcess; url: Promise<string>; output: () => string } {
  let out = "";
  const proc = spawn(process.execPath, ["--import", "tsx", "lambdas/local/start.ts", ...args], {
    env: {
      ...process.env,
      PORT: "0",
      TOOLBELT_ARTIFACT_DIR: artifactDir,
      TOOLBELT_REGISTRY: "",
      TOOLBELT_API_KEY: KEY,
      TOOLBELT_POLICY: "",
      TOOLBELT_DATA_DIR: "",
      ...extra,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const listening = new Promise<string>((resolve, reject) => {
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m?.[1]) resolve(m[1]);
    };
    proc.stdout?.on("data", onData);
    proc.stderr?.on("data", onData);
    proc.once("exit", (code) => reject(new Error(`npm start exited with ${code}:\n${out}`)));
  });
  return { child: proc, url: listening, output: () => out };
}

beforeAll(async () => {
  artifactDir = join(await mkdtemp(join(tmpdir(), "toolbelt-start-")), "artifact");
  const started = startLocal({});
  child = started.child;
  url = await started.url;
  output = started.output();
}, 90_000);

// SIGTERM, so that npm start stops the demo service and server-everything it started (SIGKILL would leave them running).
afterAll(async () => {
  if (!child || child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
  await exited;
  clearTimeout(timer);
}, 20_000);

const call = (path: string, body?: unknown, key = KEY, base = url) =>
  fetch(base + path, {
    method: body === undefined ? "GET" : "POST",
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

describe("npm start", () => {
  it("serves the example registry with the key from TOOLBELT_API_KEY only", async () => {
    expect(output).not.toContain(KEY);
    const health = (await (await call("/v1/health")).json()) as { counts: { tools: number } };
    expect(health.counts.tools).toBeGreaterThan(20);
    expect((await call("/v1/find", { query: "x" }, "dev-key")).status).toBe(401);
    const found = (await (await call("/v1/find", { query: "convert celsius to fahrenheit", limit: 3 })).json()) as { tools: { name: string }[] };
    expect(found.tools.map((t) => t.name)).toContain("convert.temperature");
  });

  it("calls through to the loopback upstreams and pins what was used", async () => {
    const opened = (await (await call("/v1/sessions", {})).json()) as { session: { id: string } };
    const session = opened.session.id;
    const http = await call("/v1/call", { tool: "convert.temperature", args: { value: 100, from: "C", to: "F" }, session });
    expect(http.status).toBe(200);
    expect(((await http.json()) as { result: { result: number } }).result.result).toBe(212);
    const mcp = await call("/v1/call", { tool: "everything.echo", args: { message: "hello" }, session });
    expect(JSON.stringify(await mcp.json())).toContain("Echo: hello");
    const surface = (await (await call(`/v1/sessions/${session}/surface`)).json()) as { surface: { pins: { tools: { name: string }[] } } };
    expect(surface.surface.pins.tools.map((p) => p.name)).toEqual(["convert.temperature", "everything.echo"]);
  });

  it("answers find while slow demo calls run (finding: 16 math.factorize calls on a large prime blocked /v1/find for 6.4 s)", async () => {
    // 999999999999989 is prime: each call tries every divisor up to its square root, and the demo service
    // serves them one after another. Find must answer while they are in flight, however long they take.
    const settled: boolean[] = [];
    const slow = Array.from({ length: 3 }, (_, i) =>
      call("/v1/call", { tool: "math.factorize", args: { n: 999999999999989 } }).then(async (r) => {
        const body = (await r.json()) as { result?: { is_prime?: boolean }; error?: { code?: string } };
        settled[i] = true;
        return { status: r.status, prime: body.result?.is_prime, code: body.error?.code };
      }),
    );
    // Once the first has answered, the others are queued in the demo service, each a whole factorization away.
    await Promise.race(slow);
    const inFlightBefore = slow.length - settled.filter(Boolean).length;
    const found = await call("/v1/find", { query: "convert celsius to fahrenheit", limit: 3 });
    const inFlightAfter = slow.length - settled.filter(Boolean).length;
    expect(inFlightBefore).toBeGreaterThan(0);
    expect(found.status).toBe(200);
    expect(inFlightAfter).toBeGreaterThan(0);
    // Each slow call answers or, on a machine too busy to factor within the tool's 10 s, times out: never anything else.
    for (const r of await Promise.all(slow))
      expect([
        { status: 200, prime: true, code: undefined },
        { status: 504, prime: undefined, code: "UPSTREAM_TIMEOUT" },
      ]).toContainEqual(r);
  }, 120_000);

  it("documents the same routes as the deployed HTTP API", async () => {
    const doc = (await (await call("/v1/openapi.json")).json()) as { paths: Record<string, Record<string, unknown>> };
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
    const routed = Object.values(ENDPOINT_GROUPS).flatMap((g) => g.routes.map((r) => `${r.method} ${r.path}`));
    expect(documented.sort()).toEqual(routed.sort());
  });

  it("gives server-everything none of the gateway's secrets", async () => {
    const res = await call("/v1/call", { tool: "everything.get-env", args: {} });
    const text = JSON.stringify(await res.json());
    expect(res.status).toBe(200);
    expect(text).not.toContain(KEY);
    expect(text).not.toContain("DEMO_SERVICE_TOKEN");
  });

  it("confines file tools to the project directory by default (finding 1: files.read_head read /proc/self/environ)", async () => {
    const environ = await call("/v1/call", { tool: "files.read_head", args: { path: "/proc/self/environ" } });
    expect(environ.status).toBe(403);
    const body = JSON.stringify(await environ.json());
    expect(body).toContain("PATH_OUTSIDE_ROOTS");
    expect(body).not.toContain(KEY);
    expect((await call("/v1/call", { tool: "files.read_head", args: { path: "/etc/passwd" } })).status).toBe(403);
    expect((await call("/v1/call", { tool: "files.read_head", args: { path: "package.json", lines: 2 } })).status).toBe(200);
    expect((await call("/v1/call", { tool: "files.list", args: { path: "registry" } })).status).toBe(200);
  });

  it("honours TOOLBELT_EXEC=off: exec tools answer 501 (finding 3: npm start ignored it)", async () => {
    const off = startLocal({ TOOLBELT_EXEC: "off" });
    try {
      const base = await off.url;
      expect(off.output()).toContain("TOOLBELT_EXEC=off");
      const res = await call("/v1/call", { tool: "files.read_head", args: { path: "package.json" } }, KEY, base);
      expect(res.status).toBe(501);
      expect((await call("/v1/call", { tool: "convert.temperature", args: { value: 0, from: "C", to: "F" } }, KEY, base)).status).toBe(200);
    } finally {
      const exited = new Promise((r) => off.child.once("exit", r));
      off.child.kill("SIGTERM");
      await exited;
    }
  }, 90_000);

  it("serves your own registry: a copy of the example with a family added, named with --registry (issue #10)", async () => {
    const work = await mkdtemp(join(tmpdir(), "toolbelt-own-"));
    const mine = join(work, "my-registry");
    cpSync("registry", mine, { recursive: true });
    appendFileSync(
      join(mine, "families.yaml"),
      "  - name: host\n    description: Facts about the machine the gateway runs on.\n    source: { tools: families/host }\n",
    );
    mkdirSync(join(mine, "families/host"));
    writeFileSync(
      join(mine, "families/host/tools.yaml"),
      "tools:\n  - name: kernel\n    kind: exec\n    command: uname\n    args: [-s]\n    description: The name of this machine's operating system kernel.\n    read_only: true\n",
    );
    const own = startLocal({ TOOLBELT_ARTIFACT_DIR: join(work, "my-artifact") }, ["--registry", mine]);
    try {
      const base = await own.url;
      expect(own.output()).toContain(`registry ${mine}`);
      const found = (await (await call("/v1/find", { query: "operating system kernel name", limit: 3 }, KEY, base)).json()) as { tools: { name: string }[] };
      expect(found.tools[0]?.name).toBe("host.kernel");
      const res = await call("/v1/call", { tool: "host.kernel", args: {} }, KEY, base);
      expect(res.status).toBe(200);
      expect(JSON.stringify(await res.json())).toContain("Linux");
    } finally {
      const exited = new Promise((r) => own.child.once("exit", r));
      own.child.kill("SIGTERM");
      await exited;
    }
  }, 90_000);

  it("refuses a PORT that is not a port, or is taken, at once and saying so (regression: Node's 'Received type number (NaN)', EADDRINUSE after the build)", async () => {
    const refusal = async (port: string) => {
      const started = startLocal({ PORT: port });
      await expect(started.url).rejects.toThrow(/exited with 1/);
      return started.output();
    };
    expect(await refusal("abc")).toContain('PORT must be a port number from 0 to 65535 (0: any free port), got "abc"');
    const taken = await refusal(new URL(url).port);
    expect(taken).toContain(`port ${new URL(url).port} on 127.0.0.1 is in use (another npm start?)`);
    expect(taken).not.toContain("dynalite on");
  }, 60_000);

  it("stops everything it started on SIGTERM", async () => {
    const everything = /server-everything \(MCP\) on http:\/\/127\.0\.0\.1:(\d+)/.exec(output)?.[1];
    expect(everything).toBeDefined();
    const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(await portOpen(Number(new URL(url).port))).toBe(false);
    // The child process may take a moment to release its port after SIGTERM.
    let open = true;
    for (let i = 0; i < 50 && open; i++) {
      open = await portOpen(Number(everything));
      if (open) await new Promise((r) => setTimeout(r, 100));
    }
    expect(open).toBe(false);
  });
});
