// Server-side request forgery through an MCP upstream: server-everything's gzip tool fetches the URL a
// caller names. The upstream `npm start` and the tests run (lambdas/local/everything.ts) fetches nothing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMcpBackend, type McpBackend } from "../../../lambdas/backends/mcp.js";
import { createCallGateway, type CallGateway } from "../../../lambdas/core/call/gateway.js";
import { startEverything, type Everything } from "../../../lambdas/local/everything.js";
import { callerFor, catalogTool, declaredBy, startLoopback, toolMap, type Loopback } from "./helpers.js";

const caller = callerFor("agent", "everything.*");
let upstream: Everything;
let target: Loopback;
let backend: McpBackend;
let gateway: CallGateway;
const requested: string[] = [];

beforeAll(async () => {
  // Stands for anything on loopback: the gateway itself, another tool's backend, a metadata service.
  target = await startLoopback((req, res) => {
    requested.push(req.url ?? "");
    res.end("internal page");
  });
  upstream = await startEverything();
  const tools = [catalogTool("everything.gzip-file-as-resource", { kind: "mcp", url: "${EVERYTHING_MCP_URL}", tool: "gzip-file-as-resource" })];
  backend = createMcpBackend({ views: declaredBy("everything", { EVERYTHING_MCP_URL: upstream.url }) });
  gateway = createCallGateway({ tools: toolMap(tools), backends: { mcp: backend } });
});

afterAll(async () => {
  await backend.close();
  await upstream.close();
  await target.close();
});

const gzip = (data: string) => gateway.call({ tool: "everything.gzip-file-as-resource", args: { data, outputType: "resource" } }, caller);

describe("MCP upstream egress", () => {
  it("regression (finding 4): everything.gzip-file-as-resource no longer fetches a loopback URL for the caller", async () => {
    for (const data of [`${target.url}/admin`, `http://localhost:${new URL(target.url).port}/`, `http://[::1]:${new URL(target.url).port}/`]) {
      const err = await gzip(data).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: "UPSTREAM_ERROR", details: { is_error: true } });
      expect((err as Error).message).toMatch(/is not in the allowed domains list/);
    }
    expect(requested).toEqual([]);
  });

  it("still compresses data the caller sends inline (a data: URI fetches nothing)", async () => {
    const { result } = await gzip("data:text/plain;base64,aGVsbG8=");
    expect(JSON.stringify(result)).toContain("application/gzip");
  });
});
