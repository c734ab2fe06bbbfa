// Retired tools (registry `deprecated`): a call through REST or MCP is refused with 410 TOOL_DEPRECATED
// naming the replacement and never reaches the upstream; find shows the tool only to its exact name; no
// surface or tools/list carries it; a gateway set to warn runs it and says so.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CatalogTool } from "../../../../registry/contract/artifact.js";
import type { Deprecation } from "../../../../registry/contract/tool.js";
import { createBackends } from "../../../../lambdas/backends/index.js";
import { createCallGateway } from "../../../../lambdas/core/call/gateway.js";
import { createCallModule, type CallModule } from "../../../../lambdas/http/routes/call.js";
import { createMcpModule, type McpModule } from "../../../../lambdas/http/routes/mcp.js";
import { startTestApi, TEST_KEYS, type TestApi } from "../../../helpers/api.js";
import { testArtifactInput } from "../../../helpers/artifact.js";
import { callerFor, catalogTool, metaTools, startLoopback, toolMap, type Loopback } from "../../call/helpers.js";
import { connect, type AnyClient } from "../../mcp/fixture.js";

const RETIRED: Deprecation = { replaced_by: "weather.forecast", reason: "the v1 upstream API is shut down", since: "2026-11-01" };
let hits = 0;
let upstream: Loopback;
let api: TestApi;
let calls: CallModule;
let mcp: McpModule;

function tools(): CatalogTool[] {
  const get = (path: string) => ({ kind: "http" as const, method: "GET", url: `${upstream.url}${path}`, output: "json" as const });
  return [
    ...metaTools(),
    catalogTool("weather.forecast", get("/forecast"), { description: "Get the weather forecast for a city." }),
    // The field the registry's `deprecated` becomes in the catalog.
    catalogTool("weather.outlook", get("/outlook"), { description: "Get the weather outlook for a city.", deprecated: RETIRED } as Partial<CatalogTool>),
  ];
}

beforeAll(async () => {
  upstream = await startLoopback((req, res) => {
    hits += 1;
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ path: req.url }));
  });
  calls = createCallModule({ env: {} });
  mcp = createMcpModule({ env: {} });
  api = await startTestApi({
    input: testArtifactInput(tools()),
    briefs: [{ version: 1, name: "weather", description: "Weather", tools: ["weather.*"] }],
    extraRoutes: [calls, mcp],
  });
});

afterAll(async () => {
  await api.close();
  await calls.close();
  await mcp.close();
  await upstream.close();
});

const refusal = {
  code: "TOOL_DEPRECATED",
  details: { tool: "weather.outlook", replaced_by: "weather.forecast", reason: RETIRED.reason, since: RETIRED.since },
};

describe("a call to a retired tool", () => {
  it("REST: 410 TOOL_DEPRECATED naming the replacement, by any spelling; the upstream never hears of it", async () => {
    for (const tool of ["weather.outlook", "weather_outlook", "Weather.Outlook"]) {
      const res = await api.request("/v1/call", { json: { tool } });
      expect(res.status).toBe(410);
      const body = (await res.json()) as { error: { message: string } };
      expect(body.error).toMatchObject(refusal);
      expect(body.error.message).toContain("call weather.forecast instead");
    }
    expect(hits).toBe(0);
    expect((await api.request("/v1/call", { json: { tool: "weather.forecast" } })).status).toBe(200);
    expect(hits).toBe(1);
  });

  it("REST: toolbelt.call is refused the same way", async () => {
    const res = await api.request("/v1/call", { json: { tool: "toolbelt.call", args: { tool: "weather.outlook" } } });
    expect(res.status).toBe(410);
    expect(((await res.json()) as { error: unknown }).error).toMatchObject(refusal);
  });

  describe("MCP", () => {
    let client: AnyClient;
    beforeAll(async () => {
      client = await connect(`${api.url}/mcp/briefs/weather`, TEST_KEYS.alice, "2026-07-28");
    });
    afterAll(() => client.close());

    it("tools/list leaves it out, even from a brief that declares it", async () => {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toContain("weather_forecast");
      expect(names).not.toContain("weather_outlook");
    });

    it("call_tool and a direct tools/call answer a tool error with the code and the replacement", async () => {
      const before = hits;
      for (const r of [
        await client.callTool({ name: "call_tool", arguments: { tool: "weather_outlook" } }),
        await client.callTool({ name: "weather_outlook", arguments: {} }),
      ]) {
        expect(r.isError).toBe(true);
        const text = (r.content as { text: string }[]).map((c) => c.text).join("\n");
        expect(text).toContain("TOOL_DEPRECATED");
        expect(text).toContain("weather.forecast");
      }
      expect(hits).toBe(before);
    });
  });
});

describe("find and surfaces", () => {
  it("find leaves it out unless asked by its exact name", async () => {
    const find = async (query: string) => {
      const res = await api.request("/v1/find", { json: { query } });
      expect(res.status).toBe(200);
      return ((await res.json()) as { tools: { name: string }[] }).tools.map((t) => t.name);
    };
    const byWords = await find("weather outlook for a city");
    expect(byWords).toContain("weather.forecast");
    expect(byWords).not.toContain("weather.outlook");
    expect(await find("weather.outlook")).toContain("weather.outlook");
  });

  it("a session's surface drops it", async () => {
    const res = await api.request("/v1/sessions", { json: { brief: "weather" } });
    expect(res.status).toBe(201);
    const text = await res.text();
    expect(text).toContain("weather.forecast");
    expect(text).not.toContain("weather.outlook");
  });
});

describe("TOOLBELT_DEPRECATED_CALLS=warn", () => {
  it("runs the call and says in the answer that the tool is retired and what replaces it", async () => {
    const catalog = tools();
    const { backends } = createBackends({ env: {}, families: [], exec: false });
    const gateway = createCallGateway({ tools: toolMap(catalog), backends, deprecatedCalls: "warn" });
    const before = hits;
    const answer = await gateway.call({ tool: "weather.outlook", args: {} }, callerFor("alice", "*"));
    expect(answer).toEqual({ tool: "weather.outlook", result: { path: "/outlook" }, deprecated: RETIRED });
    expect(hits).toBe(before + 1);
  });
});
