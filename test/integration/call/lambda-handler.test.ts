// lambdas/handlers/call.ts invoked as API Gateway HTTP API (payload v2) invokes it, against dynalite,
// and its esbuild bundle: the call code (ajv, backends) must stay out of the api bundle.
import type { APIGatewayProxyResultV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { build, type Metafile } from "esbuild";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { ScanCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_KEYS, testPolicy } from "../../helpers/api.js";
import { buildTestArtifact, testArtifactInput } from "../../helpers/artifact.js";
import { startDynalite, type TestDynamo } from "../../helpers/dynalite.js";
import { httpApiV2Event, lambdaContext } from "../../helpers/lambda-events.js";
import { catalogTool, startLoopback, type Loopback } from "./helpers.js";

type Handler = (event: unknown, context: unknown) => Promise<APIGatewayProxyResultV2>;

const TOKEN = "lambda-token-1f2e3d4c";
let dynamo: TestDynamo;
let upstream: Loopback;
let handler: Handler;
const seenAuth: string[] = [];
const saved = { ...process.env };

beforeAll(async () => {
  dynamo = await startDynalite({ table: "toolbelt-call-lambda" });
  upstream = await startLoopback((req, res) => {
    if (req.url === "/hold") return; // never answers: only a timeout ends the call
    seenAuth.push(req.headers.authorization ?? "");
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ status: "clean", auth: req.headers.authorization }));
  });
  const tools = [
    catalogTool("toolbelt.reshape", { kind: "builtin", handler: "reshape" }, { description: "Reshape JSON data with a mapping." }),
    catalogTool(
      "git.status",
      { kind: "http", method: "GET", url: `${upstream.url}/status`, headers: { authorization: "Bearer ${STATUS_TOKEN}" }, output: "json" },
      { description: "Show the working tree status." },
    ),
    catalogTool(
      "git.fetch",
      { kind: "http", method: "GET", url: `${upstream.url}/hold`, output: "json" },
      { description: "Fetch from a remote.", timeout_ms: 600_000 },
    ),
  ];
  const { dir } = await buildTestArtifact(undefined, testArtifactInput(tools, { variables: { git: { STATUS_TOKEN: { secret: true } } } }));
  Object.assign(process.env, {
    TOOLBELT_ARTIFACT_DIR: dir,
    TOOLBELT_TABLE: dynamo.table,
    DYNAMODB_ENDPOINT: dynamo.endpoint,
    TOOLBELT_POLICY: JSON.stringify(testPolicy()),
    STATUS_TOKEN: TOKEN,
  });
  ({ handler } = (await import("../../../lambdas/handlers/call.js")) as unknown as { handler: Handler });
});

afterAll(async () => {
  process.env = saved;
  await upstream?.close();
  await dynamo?.close();
});

async function invoke(h: Handler, method: string, path: string, as: keyof typeof TEST_KEYS, body?: unknown) {
  const out = (await h(
    httpApiV2Event({ method, path, headers: { authorization: `Bearer ${TEST_KEYS[as]}` }, ...(body !== undefined ? { body } : {}) }),
    lambdaContext(),
  )) as APIGatewayProxyStructuredResultV2;
  const text = out.isBase64Encoded ? Buffer.from(out.body ?? "", "base64").toString("utf8") : (out.body ?? "");
  // biome-ignore lint/suspicious/noExplicitAny: response JSON, read loosely by the assertions.
  return { status: out.statusCode, body: JSON.parse(text) as Record<string, any> };
}

describe("the call Lambda handler", () => {
  it("gives up on a tool before the invocation runs out of time (504, not a killed Lambda)", async () => {
    const ctx = { ...lambdaContext("toolbelt-call"), getRemainingTimeInMillis: () => 1300 };
    const out = (await handler(
      httpApiV2Event({ method: "POST", path: "/v1/call", headers: { authorization: `Bearer ${TEST_KEYS.bob}` }, body: { tool: "git.fetch", args: {} } }),
      ctx,
    )) as APIGatewayProxyStructuredResultV2;
    expect(out.statusCode).toBe(504);
    expect(JSON.parse(out.body ?? "{}")).toMatchObject({ error: { code: "UPSTREAM_TIMEOUT", details: { tool: "git.fetch", timeout_ms: 300 } } });
  });

  it("calls a builtin tool", async () => {
    const res = await invoke(handler, "POST", "/v1/call", "alice", { tool: "toolbelt.reshape", args: { data: { a: { b: 1 } }, mapping: { x: "a.b" } } });
    expect(res).toEqual({ status: 200, body: { tool: "toolbelt.reshape", result: { x: 1 } } });
  });

  it("calls an http tool with its secret from the function's environment, never echoing it", async () => {
    const res = await invoke(handler, "POST", "/v1/call", "bob", { tool: "git.status", args: {} });
    expect(res).toEqual({ status: 200, body: { tool: "git.status", result: { status: "clean", auth: "Bearer [redacted]" } } });
    expect(seenAuth.at(-1)).toBe(`Bearer ${TOKEN}`);
  });

  it("answers only after the call's audit record is in the table (regression: Lambda froze with the write pending)", async () => {
    const audited = async () =>
      (
        await dynamo.client.send(
          new ScanCommand({
            TableName: dynamo.table,
            FilterExpression: "#type = :audit AND tool = :tool",
            ExpressionAttributeNames: { "#type": "type" },
            ExpressionAttributeValues: { ":audit": "audit", ":tool": "toolbelt.reshape" },
          }),
        )
      ).Items ?? [];
    const before = (await audited()).length;
    const res = await invoke(handler, "POST", "/v1/call", "alice", { tool: "toolbelt.reshape", args: { data: { a: 2 }, mapping: { x: "a" } } });
    expect(res.status).toBe(200);
    expect(await audited()).toHaveLength(before + 1);
  });

  it("records misses in the table and lists them to admins", async () => {
    expect((await invoke(handler, "POST", "/v1/call", "bob", { tool: "GIT_STATUS", args: {} })).body).toMatchObject({ resolved_from: "GIT_STATUS" });
    const misses = await invoke(handler, "GET", "/v1/admin/misses", "carol");
    expect(misses.status).toBe(200);
    expect(misses.body.misses).toEqual([expect.objectContaining({ canonical: "git_status", count: 1, resolved_to: "git.status" })]);
    expect((await invoke(handler, "GET", "/v1/admin/misses", "bob")).status).toBe(403);
  });
});

async function bundle(entry: string): Promise<{ file: string; inputs: string[] }> {
  const file = join(await mkdtemp(join(tmpdir(), "toolbelt-bundle-")), "index.mjs");
  const { metafile } = await build({
    entryPoints: [entry],
    bundle: true,
    platform: "node",
    target: "node20",
    format: "esm",
    outfile: file,
    metafile: true,
    logLevel: "silent",
    banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
  });
  return { file, inputs: Object.keys((metafile as Metafile).inputs) };
}

describe("bundles", () => {
  it("keep ajv, the backends and the MCP client out of the api bundle", async () => {
    const { inputs } = await bundle("lambdas/handlers/api.ts");
    for (const banned of ["node_modules/ajv/", "lambdas/backends/", "lambdas/core/call/", "@modelcontextprotocol/sdk/dist/esm/client"]) {
      expect(
        inputs.filter((i) => i.includes(banned)),
        banned,
      ).toEqual([]);
    }
  });

  it("bundle the call handler, which answers the same events", async () => {
    const { file, inputs } = await bundle("lambdas/handlers/call.ts");
    expect(inputs.some((i) => i.includes("node_modules/ajv/"))).toBe(true);
    for (const banned of ["dynalite", "build/artifact.ts", "node_modules/yaml/", "server-everything"]) {
      expect(
        inputs.filter((i) => i.includes(banned)),
        banned,
      ).toEqual([]);
    }
    const bundled = (await import(pathToFileURL(file).href)) as { handler: Handler };
    const res = await invoke(bundled.handler, "POST", "/v1/call", "alice", { tool: "toolbelt.reshape", args: { data: [1, 2], mapping: { second: "[1]" } } });
    expect(res).toEqual({ status: 200, body: { tool: "toolbelt.reshape", result: { second: 2 } } });
  });
});
