// POST /v1/call with Object.prototype names as parameter names, template paths and reshape keys,
// through the whole REST app and a real loopback upstream. Before the fixes: a tool with an optional
// `constructor` parameter answered 422 ("got function") whenever it was omitted, and its URL template
// rendered Object's constructor; reshape turned an output key `__proto__` into the result's prototype.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CatalogTool } from "../../../registry/contract/artifact.js";
import { createCallModule, type CallModule } from "../../../lambdas/http/routes/call.js";
import { DynamoMissStore } from "../../../lambdas/stores/misses.js";
import { startTestApi, type TestApi } from "../../helpers/api.js";
import { testArtifactInput } from "../../helpers/artifact.js";
import { startDynalite, type TestDynamo } from "../../helpers/dynalite.js";
import { catalogTool, startLoopback, type Loopback } from "./helpers.js";

let upstream: Loopback;
let dynamo: TestDynamo;
let api: TestApi;
let calls: CallModule;

function tools(base: string): CatalogTool[] {
  return [
    catalogTool("toolbelt.reshape", { kind: "builtin", handler: "reshape" }, {
      description: "Reshape JSON data with a mapping.",
      input_schema: { type: "object", required: ["data", "mapping"], properties: { data: {}, mapping: { type: "object" } } },
    }),
    catalogTool(
      "widgets.build",
      { kind: "http", method: "POST", url: `${base}/build?by={{input.constructor}}`, body: { label: "{{input.toString}}", name: "{{input.name}}" }, output: "json" },
      {
        description: "Build a widget from its parts.",
        input_schema: {
          type: "object",
          required: ["name"],
          properties: { name: { type: "string" }, constructor: { type: "string" }, toString: { type: "string" } },
          additionalProperties: false,
        },
      },
    ),
  ];
}

beforeAll(async () => {
  upstream = await startLoopback((req, res, body) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ path: req.url, received: body ? JSON.parse(body) : null }));
  });
  dynamo = await startDynalite();
  calls = createCallModule({ env: {}, misses: new DynamoMissStore(dynamo.client, dynamo.table) });
  api = await startTestApi({ input: testArtifactInput(tools(upstream.url)), briefs: [], dynamo, extraRoutes: [calls] });
});

afterAll(async () => {
  await api?.close();
  await calls?.close();
  await dynamo?.close();
  await upstream?.close();
});

const call = (json: unknown) => api.request("/v1/call", { as: "alice", json });

describe("POST /v1/call with prototype-named parameters", () => {
  it("calls a tool whose optional `constructor` and `toString` parameters are omitted", async () => {
    const res = await call({ tool: "widgets.build", args: { name: "w1" } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { result: unknown }).result).toEqual({ path: "/build?by=", received: { name: "w1" } });
  });

  it("renders them when they are sent", async () => {
    const res = await call({ tool: "widgets.build", args: { name: "w2", constructor: "ann", toString: "blue" } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { result: unknown }).result).toEqual({ path: "/build?by=ann", received: { label: "blue", name: "w2" } });
  });
});

describe("POST /v1/call toolbelt.reshape with prototype-named keys", () => {
  it("keeps an output key `__proto__` and maps `constructor` paths of data without them to null", async () => {
    const res = await api.request("/v1/call", {
      as: "alice",
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"tool":"toolbelt.reshape","args":{"data":{"evil":{"polluted":"yes"}},"mapping":{"__proto__":"evil","c":"constructor","p":"__proto__.polluted"}}}',
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('{"tool":"toolbelt.reshape","result":{"__proto__":{"polluted":"yes"},"c":null,"p":null}}');
  });
});
