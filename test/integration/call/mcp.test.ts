// The mcp backend against a real @modelcontextprotocol/server-everything over Streamable HTTP.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMcpBackend, type McpBackend } from "../../../lambdas/backends/mcp.js";
import { familyViews } from "../../../lambdas/backends/variables.js";
import { createCallGateway, type CallGateway } from "../../../lambdas/core/call/gateway.js";
import { callerFor, catalogTool, startEverything, startLoopback, toolMap, type Everything, type Loopback } from "./helpers.js";

const caller = callerFor("agent", "everything.*");
let upstream: Everything;
let silent: Loopback;
let backend: McpBackend;
let gateway: CallGateway;

const weatherSchema = {
  type: "object",
  properties: { temperature: { type: "number" }, conditions: { type: "string" }, humidity: { type: "number" } },
  required: ["temperature", "conditions", "humidity"],
};

beforeAll(async () => {
  upstream = await startEverything();
  // Accepts connections and requests, answers nothing: an MCP handshake that never completes.
  silent = await startLoopback(() => undefined);
  const mcp = (tool: string) => ({ kind: "mcp" as const, url: "${EVERYTHING_URL}", tool });
  const tools = [
    catalogTool("everything.echo", mcp("echo"), {
      input_schema: { type: "object", properties: { message: { type: "string" } }, required: ["message"] },
    }),
    catalogTool("everything.get-sum", mcp("get-sum"), {
      input_schema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
    }),
    catalogTool("everything.weather", mcp("get-structured-content"), { output_schema: weatherSchema }),
    catalogTool("everything.weather_misdeclared", mcp("get-structured-content"), {
      output_schema: { ...weatherSchema, properties: { ...weatherSchema.properties, temperature: { type: "string" } } },
    }),
    // Declares no input schema of its own, so bad arguments reach the upstream and fail there.
    catalogTool("everything.echo_unchecked", mcp("echo")),
    catalogTool("everything.long", mcp("trigger-long-running-operation"), { timeout_ms: 300 }),
    catalogTool("silent.echo", { kind: "mcp", url: "${SILENT_URL}/mcp", tool: "echo" }, { timeout_ms: 200 }),
  ];
  const views = familyViews(
    [
      { name: "everything", variables: { EVERYTHING_URL: { secret: false } } },
      { name: "silent", variables: { SILENT_URL: { secret: false } } },
    ],
    { EVERYTHING_URL: upstream.url, SILENT_URL: silent.url },
  );
  backend = createMcpBackend({ views });
  gateway = createCallGateway({ tools: toolMap(tools), backends: { mcp: backend } });
});

afterAll(async () => {
  await backend.close();
  await silent.close();
  await upstream.stop();
});

describe("mcp backend", () => {
  it("forwards tools/call and returns the upstream's content as is", async () => {
    await expect(gateway.call({ tool: "everything.echo", args: { message: "hello" } }, caller)).resolves.toEqual({
      tool: "everything.echo",
      result: { content: [{ type: "text", text: "Echo: hello" }] },
    });
    const sum = await gateway.call({ tool: "everything.get-sum", args: { a: 2, b: 3 } }, caller);
    expect(JSON.stringify(sum.result)).toContain("5");
  });

  it("reuses one connected client per upstream across calls", async () => {
    for (let i = 0; i < 3; i++) await gateway.call({ tool: "everything.echo", args: { message: `m${i}` } }, caller);
    expect(backend.size).toBe(1);
  });

  it("serves concurrent calls over the pooled client, each with its own answer", async () => {
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => gateway.call({ tool: "everything.get-sum", args: { a: i, b: 1000 } }, caller)));
    results.forEach((r, i) => expect(JSON.stringify(r.result)).toContain(String(i + 1000)));
    expect(backend.size).toBe(1);
  });

  it("checks structuredContent against output_schema", async () => {
    const ok = await gateway.call({ tool: "everything.weather", args: { location: "Chicago" } }, caller);
    expect((ok.result as { structuredContent: unknown }).structuredContent).toMatchObject({ conditions: expect.any(String) });
    await expect(gateway.call({ tool: "everything.weather_misdeclared", args: { location: "Chicago" } }, caller)).rejects.toMatchObject({
      code: "OUTPUT_SCHEMA_MISMATCH",
      status: 502,
      details: { problems: [{ path: "$.temperature", keyword: "type" }] },
    });
  });

  it("turns an upstream tool error into a structured 502", async () => {
    const err = await gateway.call({ tool: "everything.echo_unchecked", args: { message: 42 } }, caller).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "UPSTREAM_ERROR", status: 502, details: { tool: "everything.echo_unchecked", is_error: true } });
    expect((err as Error).message).toMatch(/message|string|invalid/i);
  });

  it("answers 504 past the tool's timeout, and the connection keeps serving", async () => {
    await expect(gateway.call({ tool: "everything.long", args: { duration: 5, steps: 5 } }, caller)).rejects.toMatchObject({
      code: "UPSTREAM_TIMEOUT",
      status: 504,
    });
    await expect(gateway.call({ tool: "everything.echo", args: { message: "after" } }, caller)).resolves.toMatchObject({
      result: { content: [{ type: "text", text: "Echo: after" }] },
    });
  });

  it("answers 504 when the upstream never completes the handshake, and does not keep that connection", async () => {
    const before = backend.size;
    await expect(gateway.call({ tool: "silent.echo", args: {} }, callerFor("agent", "silent.*"))).rejects.toMatchObject({ code: "UPSTREAM_TIMEOUT" });
    expect(backend.size).toBe(before);
  });

  it("reconnects when the upstream restarts (its session is gone)", async () => {
    await gateway.call({ tool: "everything.echo", args: { message: "before" } }, caller);
    await upstream.stop();
    await expect(gateway.call({ tool: "everything.echo", args: { message: "down" } }, caller)).rejects.toMatchObject({ code: "UPSTREAM_ERROR" });
    await upstream.start();
    await expect(gateway.call({ tool: "everything.echo", args: { message: "back" } }, caller)).resolves.toMatchObject({
      result: { content: [{ type: "text", text: "Echo: back" }] },
    });
  });

  it("reconnects a stale pooled session without the caller noticing", async () => {
    await gateway.call({ tool: "everything.echo", args: { message: "warm" } }, caller);
    // Restart between calls: the pooled client's session id is unknown to the new process.
    await upstream.stop();
    await upstream.start();
    await expect(gateway.call({ tool: "everything.echo", args: { message: "fresh" } }, caller)).resolves.toMatchObject({
      result: { content: [{ type: "text", text: "Echo: fresh" }] },
    });
    expect(backend.size).toBe(1);
  });
});
