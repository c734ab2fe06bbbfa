// Every call leaves one audit record, from REST and MCP alike: a JSON log line that is also an EMF
// metrics document, with the request and correlation ids, and no argument values unless the tool opts in.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { digestOf } from "../../../lambdas/core/call/audit.js";
import { readableLine } from "../../../lambdas/http/logger.js";
import { createCallModule, type CallModule } from "../../../lambdas/http/routes/call.js";
import { createMcpModule, type McpModule } from "../../../lambdas/http/routes/mcp.js";
import { METRICS_NAMESPACE } from "../../../lambdas/http/telemetry.js";
import { startTestApi, type TestApi } from "../../helpers/api.js";
import { testArtifactInput } from "../../helpers/artifact.js";
import { catalogTool, type Loopback, metaTools, startLoopback } from "./helpers.js";

let upstream: Loopback;
let api: TestApi;
let calls: CallModule;
let mcp: McpModule;

const to = { type: "object", properties: { to: { type: "string" }, body: { type: "string" } }, required: ["to"] };

beforeAll(async () => {
  upstream = await startLoopback((req, res) => {
    res.writeHead(req.url === "/fail" ? 503 : 201, { "content-type": "application/json" });
    res.end('{"queued":true}');
  });
  const http = (path: string) => ({
    kind: "http" as const,
    method: "POST",
    url: `${upstream.url}${path}`,
    body: { to: "{{input.to}}" },
    output: "json" as const,
  });
  calls = createCallModule({ env: {} });
  mcp = createMcpModule({ env: {} });
  api = await startTestApi({
    input: testArtifactInput([
      ...metaTools(),
      catalogTool("mail.send", http("/send"), {
        description: "Send a mail to someone.",
        input_schema: to,
        governance: { consequential: true, affects: "to", impact: 0.3 },
      }),
      catalogTool("mail.bounce", http("/fail"), { description: "Bounce a mail back.", input_schema: to }),
      catalogTool("mail.trace", http("/send"), { description: "Trace a mail route.", input_schema: to, governance: { read_only: true, audit_args: true } }),
    ]),
    extraRoutes: [calls, mcp],
  });
});

afterAll(async () => {
  await api.close();
  await calls.close();
  await mcp.close();
  await upstream.close();
});

const records = () => api.logger.entries.filter((e) => e.message === "call").map((e) => e.fields);
const lastRecord = () => records().at(-1)!;

describe("audit record", () => {
  it("records a REST call with the request and correlation ids, the tool's governance and a digest in place of its arguments", async () => {
    const args = { to: "ada@example.com", body: "the secret plans" };
    const res = await api.request("/v1/call", { json: { tool: "mail.send", args }, headers: { "x-correlation-id": "trace-7f3a" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-correlation-id")).toBe("trace-7f3a");
    const r = lastRecord();
    expect(r).toMatchObject({
      request_id: res.headers.get("x-request-id"),
      correlation_id: "trace-7f3a",
      via: "rest",
      principal: "alice",
      tool: "mail.send",
      family: "mail",
      outcome: "OK",
      status: 200,
      upstream_status: 201,
      args_digest: digestOf(args),
      affects: "to",
      affected_digest: digestOf("ada@example.com"),
      impact: 0.3,
      consequential: true,
    });
    expect(typeof r.latency_ms).toBe("number");
    expect(JSON.stringify(api.logger.entries)).not.toContain("ada@example.com");
    expect(JSON.stringify(api.logger.entries)).not.toContain("secret plans");
  });

  it("is a CloudWatch EMF document: calls and latency by family, errors by code, faults", async () => {
    const res = await api.request("/v1/call", { json: { tool: "mail.bounce", args: { to: "x" } } });
    expect(res.status).toBe(502);
    const r = lastRecord() as Record<string, unknown> & { _aws: { Timestamp: number; CloudWatchMetrics: unknown[] } };
    expect(r).toMatchObject({ outcome: "UPSTREAM_ERROR", status: 502, upstream_status: 503, Family: "mail", Code: "UPSTREAM_ERROR" });
    expect(r.Calls).toBe(1);
    expect(r.CallErrors).toBe(1);
    expect(r.CallFaults).toBe(1);
    expect(r._aws.CloudWatchMetrics).toEqual([
      {
        Namespace: METRICS_NAMESPACE,
        Dimensions: [[], ["Family"]],
        Metrics: [
          { Name: "Calls", Unit: "Count" },
          { Name: "CallLatency", Unit: "Milliseconds" },
        ],
      },
      { Namespace: METRICS_NAMESPACE, Dimensions: [[], ["Code"]], Metrics: [{ Name: "CallErrors", Unit: "Count" }] },
      { Namespace: METRICS_NAMESPACE, Dimensions: [[]], Metrics: [{ Name: "CallFaults", Unit: "Count" }] },
    ]);
  });

  it("records the caller's mistakes too: an unknown tool, invalid arguments", async () => {
    await api.request("/v1/call", { json: { tool: "mail.nope", args: {} } });
    expect(lastRecord()).toMatchObject({ tool: "mail.nope", outcome: "TOOL_NOT_FOUND", status: 404, Family: "none" });
    await api.request("/v1/call", { json: { tool: "mail.send", args: { to: 7 } } });
    expect(lastRecord()).toMatchObject({ tool: "mail.send", outcome: "INVALID_ARGUMENTS", status: 422 });
  });

  it("carries argument values for a tool that opts in (audit_args)", async () => {
    await api.request("/v1/call", { json: { tool: "mail.trace", args: { to: "ops@example.com" } } });
    expect(lastRecord()).toMatchObject({ tool: "mail.trace", args: { to: "ops@example.com" } });
  });

  it("records MCP calls (call_tool and a direct tool) with via mcp and the correlation id", async () => {
    const rpc = (id: number, name: string, args: Record<string, unknown>) =>
      api.request("/mcp", {
        json: { jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } },
        headers: { accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25", "x-correlation-id": "mcp-run-1" },
      });
    const before = records().length;
    expect((await rpc(1, "call_tool", { tool: "mail_send", args: { to: "bob@example.com" } })).status).toBe(200);
    expect((await rpc(2, "toolbelt_reshape", { data: { a: 1 }, mapping: { x: "a" } })).status).toBe(200);
    expect(
      records()
        .slice(before)
        .map(({ via, tool, resolved_from, outcome, correlation_id }) => ({ via, tool, resolved_from, outcome, correlation_id })),
    ).toEqual([
      { via: "mcp", tool: "mail.send", resolved_from: "mail_send", outcome: "OK", correlation_id: "mcp-run-1" },
      { via: "mcp", tool: "toolbelt.reshape", resolved_from: "toolbelt_reshape", outcome: "OK", correlation_id: "mcp-run-1" },
    ]);
  });

  it("refuses a correlation id that is not 1 to 128 printable ASCII characters with 400", async () => {
    for (const bad of ["has space", "x".repeat(129), "ünïcode"]) {
      const res = await api.request("/v1/call", { json: { tool: "toolbelt.reshape", args: {} }, headers: { "x-correlation-id": bad } });
      expect(res.status, bad).toBe(400);
      expect(await res.json()).toMatchObject({ error: { code: "INVALID_REQUEST", details: { header: "X-Correlation-Id" } } });
    }
  });

  it("counts finds and finds with no match (the none-rate's two terms)", async () => {
    await api.request("/v1/find", { json: { query: "send a mail" } });
    await api.request("/v1/find", { json: { query: "zzqx wvvk" } });
    const finds = api.logger.entries
      .filter((e) => e.message === "find")
      .map((e) => ({ verdict: e.fields.verdict, Finds: e.fields.Finds, FindNone: e.fields.FindNone }));
    expect(finds).toEqual([
      { verdict: "match", Finds: 1, FindNone: 0 },
      { verdict: "none", Finds: 1, FindNone: 1 },
    ]);
  });

  it("reads as one line per call under npm start, without the metrics block", () => {
    const line = readableLine("info", "call", lastCallOf("mail.send"), new Date("2026-12-01T12:00:00.000Z"));
    expect(line).toMatch(/^12:00:00\.000 call OK 200 mail\.send .*ms principal=alice .*correlation_id=trace-7f3a upstream_status=201 affects=to$/);
    expect(line).not.toContain("_aws");
    expect(readableLine("info", "find", { verdict: "none", Finds: 1, _aws: {} }, new Date("2026-12-01T12:00:00.000Z"))).toBe("12:00:00.000 find none - top=-");
  });
});

const lastCallOf = (tool: string) => records().find((r) => r.tool === tool && r.via === "rest" && r.outcome === "OK")!;
