// POST /v1/call with Object.prototype names as parameter names, template paths and reshape keys,
// through the whole REST app and a real loopback upstream. Before the fixes: a tool with an optional
// `constructor` parameter answered 422 ("got function") whenever it was omitted, and its URL template
// rendered Object's constructor; reshape turned an output key `__proto__` into the result's prototype;
// an `__proto__` key in `args` was dropped silently by the body parser (#7 sandbox, finding 6). Now
// `__proto__`, `constructor` and `prototype` keys anywhere in `args` are a 422 naming each path.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CatalogTool } from "../../../registry/contract/artifact.js";
import { createCallModule, type CallModule } from "../../../lambdas/http/routes/call.js";
import { DynamoMissStore } from "../../../lambdas/stores/misses.js";
import { startTestApi, type TestApi } from "../../helpers/api.js";
import { testArtifactInput } from "../../helpers/artifact.js";
import { startDynalite, type TestDynamo } from "../../helpers/dynalite.js";
import { catalogTool, startLoopback, type Loopback } from "./helpers.js";

const hits: string[] = [];
let upstream: Loopback;
let dynamo: TestDynamo;
let api: TestApi;
let calls: CallModule;

function tools(base: string): CatalogTool[] {
  return [
    catalogTool(
      "toolbelt.reshape",
      { kind: "builtin", handler: "reshape" },
      {
        description: "Reshape JSON data with a mapping.",
        input_schema: { type: "object", required: ["data", "mapping"], properties: { data: {}, mapping: { type: "object" } } },
      },
    ),
    catalogTool(
      "widgets.build",
      {
        kind: "http",
        method: "POST",
        url: `${base}/build?by={{input.constructor}}`,
        body: { label: "{{input.toString}}", name: "{{input.name}}" },
        output: "json",
      },
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
    hits.push(req.url ?? "");
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

const post = (body: string) => api.request("/v1/call", { as: "alice", method: "POST", headers: { "content-type": "application/json" }, body });

type Refusal = { error: { code: string; message: string; details: { tool: string; problems: { path: string; keyword: string }[] } } };

/** A 422 INVALID_ARGUMENTS naming exactly these reserved-key paths, with nothing sent upstream. */
async function expectReserved(res: Response, tool: string, paths: string[]) {
  expect(res.status).toBe(422);
  const body = (await res.json()) as Refusal;
  expect(body.error.code).toBe("INVALID_ARGUMENTS");
  expect(body.error.details.tool).toBe(tool);
  expect(body.error.details.problems.map((p) => [p.path, p.keyword])).toEqual(paths.map((p) => [p, "reserved_key"]));
  for (const p of paths) expect(body.error.message).toContain(p);
  expect(hits).toEqual([]);
}

describe("POST /v1/call with prototype-named parameters", () => {
  it("calls a tool whose optional `constructor` and `toString` parameters are omitted", async () => {
    const res = await call({ tool: "widgets.build", args: { name: "w1" } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { result: unknown }).result).toEqual({ path: "/build?by=", received: { name: "w1" } });
  });

  it("renders a prototype-named parameter that is not reserved (`toString`) when it is sent", async () => {
    const res = await call({ tool: "widgets.build", args: { name: "w2", toString: "blue" } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { result: unknown }).result).toEqual({ path: "/build?by=", received: { label: "blue", name: "w2" } });
  });
});

describe("POST /v1/call with reserved keys in args (regression: `__proto__` dropped silently)", () => {
  it("answers a top-level `__proto__` with 422 and its path (the body parser used to drop it and call the tool)", async () => {
    hits.length = 0;
    await expectReserved(await post('{"tool":"widgets.build","args":{"name":"w3","__proto__":{"isAdmin":true}}}'), "widgets.build", ["$.__proto__"]);
  });

  it("answers a `constructor` parameter with 422, even where the tool's schema declares one", async () => {
    hits.length = 0;
    await expectReserved(await call({ tool: "widgets.build", args: { name: "w4", constructor: "ann" } }), "widgets.build", ["$.constructor"]);
  });

  it("answers reserved keys nested in objects and arrays with every path", async () => {
    hits.length = 0;
    const body =
      '{"tool":"toolbelt.reshape","args":{"data":{"rows":[{"ok":1},{"constructor":{"prototype":{"polluted":1}}}],"x":{"__proto__":{}}},"mapping":{"a":"rows"}}}';
    await expectReserved(await post(body), "toolbelt.reshape", ["$.data.rows[1].constructor", "$.data.rows[1].constructor.prototype", "$.data.x.__proto__"]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("answers a reshape mapping whose output key is `__proto__` with 422", async () => {
    hits.length = 0;
    const body = '{"tool":"toolbelt.reshape","args":{"data":{"evil":{"polluted":"yes"}},"mapping":{"__proto__":"evil","c":"constructor"}}}';
    await expectReserved(await post(body), "toolbelt.reshape", ["$.mapping.__proto__"]);
  });

  it("still maps `constructor` and `__proto__` paths given as values (data without them gives null)", async () => {
    const res = await post('{"tool":"toolbelt.reshape","args":{"data":{"a":1},"mapping":{"c":"constructor","p":"__proto__.polluted"}}}');
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('{"tool":"toolbelt.reshape","result":{"c":null,"p":null}}');
  });

  it("answers an unknown tool before looking at its arguments (404, not 422)", async () => {
    const res = await post('{"tool":"widgets.nothing","args":{"__proto__":{}}}');
    expect(res.status).toBe(404);
  });
});
