// Browser safety (lambdas/http/origin.ts) through a real listening server, on REST and /mcp alike.
// Regression: /mcp answered `Access-Control-Allow-Origin: *` and checked neither Origin nor Host, so a
// page on any site could drive a developer's local gateway (and DNS rebinding reached it by name).
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMcpModule, type McpModule } from "../../../lambdas/http/routes/mcp.js";
import { freePort } from "../../../lambdas/local/ports.js";
import { startTestApi, TEST_KEYS, type TestApi } from "../../helpers/api.js";

const CONSOLE = "https://console.example.org";
let api: TestApi;
let mcp: McpModule;
let host: string;

beforeAll(async () => {
  mcp = createMcpModule({ env: {}, exec: false });
  // The port first, as npm start does: the Host rule names it.
  const port = await freePort();
  host = `127.0.0.1:${port}`;
  const origins = { own: ["http://127.0.0.1:1"], allowed: [CONSOLE], hosts: [host, "localhost:1"] };
  api = await startTestApi({ extraRoutes: [mcp], config: { origins }, port });
});

afterAll(async () => {
  await api.close();
  await mcp.close();
});

const find = (headers: Record<string, string>) =>
  fetch(`${api.url}/v1/find`, {
    method: "POST",
    headers: { authorization: `Bearer ${TEST_KEYS.alice}`, "content-type": "application/json", ...headers },
    body: JSON.stringify({ query: "show the diff" }),
  });
const list = (headers: Record<string, string>) =>
  fetch(`${api.url}/mcp`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${TEST_KEYS.alice}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-11-25",
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  });

/** A POST with a chosen Host header (fetch sets Host itself). */
function rawPost(path: string, hostHeader: string): Promise<{ status: number; body: string }> {
  return new Promise((done, fail) => {
    const req = request(
      `${api.url}${path}`,
      {
        method: "POST",
        headers: {
          host: hostHeader,
          authorization: `Bearer ${TEST_KEYS.alice}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
      },
      (res) => {
        let body = "";
        res.on("data", (c: Buffer) => {
          body += c.toString();
        });
        res.on("end", () => done({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on("error", fail);
    req.end(JSON.stringify({ query: "diff", jsonrpc: "2.0", id: 1, method: "tools/list" }));
  });
}

describe.each([
  ["REST /v1/find", find],
  ["MCP /mcp", list],
])("%s", (_door, send) => {
  it("serves a request without Origin (SDK clients, curl)", async () => {
    expect((await send({})).status).toBe(200);
  });

  it("refuses a page from a foreign origin with 403, before the key is checked, and lets it read nothing", async () => {
    const res = await send({ origin: "https://evil.example.com" });
    expect(res.status).toBe(403);
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
    const body = (await res.json()) as { error: { code: string; details: Record<string, unknown> } };
    expect(body.error.code).toBe("FORBIDDEN");
    expect(body.error.details).toEqual({ header: "Origin" });
    // `null` (a sandboxed frame, a file: page) is no origin of ours either.
    expect((await send({ origin: "null" })).status).toBe(403);
  });

  it("serves the gateway's own origin and a listed one, and names that origin (never *) in the answer", async () => {
    for (const origin of ["http://127.0.0.1:1", CONSOLE]) {
      const res = await send({ origin });
      expect(res.status, origin).toBe(200);
      expect(res.headers.get("access-control-allow-origin")).toBe(origin);
      expect(res.headers.get("vary")).toContain("Origin");
    }
  });

  it("refuses a Host that is not the server's own (DNS rebinding) with 403", async () => {
    const path = send === find ? "/v1/find" : "/mcp";
    const refused = await rawPost(path, "evil.example.com");
    expect(refused.status).toBe(403);
    expect((JSON.parse(refused.body) as { error: { details: { header: string } } }).error.details.header).toBe("Host");
    expect((await rawPost(path, "localhost:1")).status).not.toBe(403);
  });
});

describe("preflight", () => {
  const preflight = (origin: string) =>
    fetch(`${api.url}/mcp`, {
      method: "OPTIONS",
      headers: { origin, host, "access-control-request-method": "POST", "access-control-request-headers": "authorization" },
    });

  it("answers a listed origin's preflight with the headers it may send", async () => {
    const res = await preflight(CONSOLE);
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe(CONSOLE);
    expect(res.headers.get("access-control-allow-headers")?.toLowerCase()).toContain("authorization");
  });

  it("refuses a foreign origin's preflight", async () => {
    const res = await preflight("https://evil.example.com");
    expect(res.status).toBe(403);
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
  });
});
