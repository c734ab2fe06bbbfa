// `npm start` as a user runs it: builds the example registry, starts dynalite, the demo service and
// server-everything on loopback, serves the app, answers find and calls, and stops cleanly on SIGTERM.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENDPOINT_GROUPS } from "../../../infra/endpoint-groups.js";
import { portOpen } from "../../../lambdas/local/ports.js";

let child: ChildProcess;
let url = "";
let output = "";
const KEY = "local-start-test-key";

beforeAll(async () => {
  const artifactDir = join(await mkdtemp(join(tmpdir(), "toolbelt-start-")), "artifact");
  child = spawn(process.execPath, ["--import", "tsx", "lambdas/local/start.ts"], {
    env: { ...process.env, PORT: "0", TOOLBELT_ARTIFACT_DIR: artifactDir, TOOLBELT_API_KEY: KEY, TOOLBELT_POLICY: "", TOOLBELT_DATA_DIR: "" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  url = await new Promise<string>((resolve, reject) => {
    const onData = (d: Buffer) => {
      output += d.toString();
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (m?.[1]) resolve(m[1]);
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (code) => reject(new Error(`npm start exited with ${code}:\n${output}`)));
  });
}, 90_000);

afterAll(() => {
  if (child && child.exitCode === null) child.kill("SIGKILL");
});

const call = (path: string, body?: unknown, key = KEY) =>
  fetch(url + path, {
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
