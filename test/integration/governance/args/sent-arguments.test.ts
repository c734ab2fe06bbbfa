// Regression (issue 28): only what the caller sent goes upstream. The call path fills schema defaults
// (ajv useDefaults), and an OpenAPI `default` describes what the *server* assumes: ReadMe's partial
// PATCH called with {title, state} sent `allow_crawlers` and `type` too, resetting them on the server.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Server as McpServer } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHttpBackend } from "../../../../lambdas/backends/http.js";
import { createMcpBackend, type McpBackend } from "../../../../lambdas/backends/mcp.js";
import { familyViews } from "../../../../lambdas/backends/variables.js";
import { createCallGateway, type CallGateway } from "../../../../lambdas/core/call/gateway.js";
import { callerFor, catalogTool, startLoopback, toolMap, type Loopback } from "../../call/helpers.js";

const caller = callerFor("agent", "*");
type Seen = { method: string; url: string; headers: Record<string, string | string[] | undefined>; body: string };
const seen: Seen[] = [];
const mcpSeen: unknown[] = [];
let http: Loopback;
let mcpServer: Server;
let mcp: McpBackend;
let gateway: CallGateway;

const guide = {
  type: "object",
  additionalProperties: false,
  required: ["slug"],
  properties: {
    slug: { type: "string" },
    title: { type: "string" },
    state: { type: "string", enum: ["current", "archived"], default: "current" },
    allow_crawlers: { type: "string", enum: ["enabled", "disabled"], default: "enabled" },
    type: { type: "string", enum: ["basic", "link"], default: "basic" },
    page: { type: "integer", default: 1 },
    mode: { type: "string", default: "fast" },
  },
};

/** A stateless MCP server that answers every call with the arguments it received. */
async function startRecordingMcp(): Promise<Server> {
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const mcpServer = new McpServer({ name: "recorder", version: "1.0.0" }, { capabilities: { tools: {} } });
    mcpServer.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [{ name: "record", inputSchema: { type: "object" } }] }));
    mcpServer.setRequestHandler(CallToolRequestSchema, async (r) => {
      mcpSeen.push(r.params.arguments);
      return { content: [{ type: "text", text: "ok" }] };
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await mcpServer.connect(transport);
    await transport.handleRequest(req, res, JSON.parse(Buffer.concat(chunks).toString("utf8") || "null"));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return server;
}

beforeAll(async () => {
  http = await startLoopback((req, res, body) => {
    seen.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
    res.setHeader("content-type", "application/json");
    res.end("{}");
  });
  mcpServer = await startRecordingMcp();
  const mcpUrl = `http://127.0.0.1:${(mcpServer.address() as AddressInfo).port}/mcp`;
  const patch = { kind: "http" as const, method: "PATCH", url: "${BASE}/guides/{{input.slug}}", output: "json" as const };
  const templated = {
    ...patch,
    query: { page: "{{input.page}}" },
    headers: { "x-mode": "{{input.mode}}" },
    body: { title: "{{input.title}}", state: "{{input.state}}", allow_crawlers: "{{input.allow_crawlers}}", type: "{{input.type}}" },
  };
  const tools = [
    catalogTool("api.update_guide", templated, { input_schema: guide }),
    // A template that truly needs a value says so: `defaults` fills only where the caller sent nothing.
    catalogTool("api.update_guide_declared", { ...templated, defaults: { page: 1, type: "link" } }, { input_schema: guide }),
    catalogTool("up.record", { kind: "mcp", url: mcpUrl, tool: "record" }, { input_schema: guide }),
  ];
  const views = familyViews(
    [
      { name: "api", variables: { BASE: { secret: false } } },
      { name: "up", variables: {} },
    ],
    { BASE: http.url },
  );
  mcp = createMcpBackend({ views });
  gateway = createCallGateway({ tools: toolMap(tools), backends: { http: createHttpBackend({ views }), mcp } });
});

afterAll(async () => {
  await mcp.close();
  await http.close();
  mcpServer.closeAllConnections();
  await new Promise((resolve) => mcpServer.close(resolve));
});

describe("only what the caller sent goes upstream", () => {
  it("http: a PATCH with {title, state} sends exactly that: no schema default in the body, query or headers", async () => {
    seen.length = 0;
    await gateway.call({ tool: "api.update_guide", args: { slug: "intro", title: "Hello", state: "current" } }, caller);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.method).toBe("PATCH");
    expect(seen[0]!.url).toBe("/guides/intro");
    expect(JSON.parse(seen[0]!.body)).toEqual({ title: "Hello", state: "current" });
    expect(seen[0]!.headers["x-mode"]).toBeUndefined();
  });

  it("http: values the tool declares in `defaults` fill only what the caller left out", async () => {
    seen.length = 0;
    await gateway.call({ tool: "api.update_guide_declared", args: { slug: "intro", title: "Hello", type: "basic" } }, caller);
    expect(seen[0]!.url).toBe("/guides/intro?page=1");
    expect(JSON.parse(seen[0]!.body)).toEqual({ title: "Hello", type: "basic" });
  });

  it("mcp: the upstream receives the caller's arguments, without the schema's defaults", async () => {
    mcpSeen.length = 0;
    await gateway.call({ tool: "up.record", args: { slug: "intro", title: "Hello" } }, caller);
    expect(mcpSeen).toEqual([{ slug: "intro", title: "Hello" }]);
  });
});
