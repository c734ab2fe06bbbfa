// lambdas/handlers/api.ts invoked as API Gateway HTTP API (payload v2) invokes it, against dynalite.
// The handler reads its config from the environment at import, so the env is set before importing it.
import type { APIGatewayProxyResultV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { build } from "esbuild";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENDPOINT_GROUPS } from "../../../infra/endpoint-groups.js";
import { ARTIFACT_FORMAT_VERSION } from "../../../registry/contract/artifact.js";
import { testPolicy, testBriefs, TEST_KEYS } from "../../helpers/api.js";
import { buildTestArtifact } from "../../helpers/artifact.js";
import { startDynalite, type TestDynamo } from "../../helpers/dynalite.js";
import { httpApiV2Event, lambdaContext, type V2EventInput } from "../../helpers/lambda-events.js";

type Handler = (event: unknown, context: unknown) => Promise<APIGatewayProxyResultV2>;

let dynamo: TestDynamo;
let handler: Handler;
const saved = { ...process.env };

beforeAll(async () => {
  dynamo = await startDynalite({ table: "toolbelt-lambda" });
  const { dir } = await buildTestArtifact();
  // The policy as a file path (as the CDK stack ships it), the briefs inline.
  const policyFile = join(dir, "policy.json");
  await writeFile(policyFile, JSON.stringify(testPolicy()));
  Object.assign(process.env, {
    TOOLBELT_ARTIFACT_DIR: dir,
    TOOLBELT_TABLE: dynamo.table,
    DYNAMODB_ENDPOINT: dynamo.endpoint,
    TOOLBELT_POLICY: policyFile,
    TOOLBELT_BRIEFS: JSON.stringify({ briefs: testBriefs() }),
  });
  ({ handler } = (await import("../../../lambdas/handlers/api.js")) as unknown as { handler: Handler });
});
afterAll(async () => {
  process.env = saved;
  await dynamo?.close();
});

async function invoke(input: V2EventInput & { as?: keyof typeof TEST_KEYS | null }) {
  const { as = "alice", ...rest } = input;
  const headers = { ...(as ? { authorization: `Bearer ${TEST_KEYS[as]}` } : {}), ...rest.headers };
  const out = (await handler(httpApiV2Event({ ...rest, headers }), lambdaContext())) as APIGatewayProxyStructuredResultV2;
  const text = out.isBase64Encoded ? Buffer.from(out.body ?? "", "base64").toString("utf8") : (out.body ?? "");
  // biome-ignore lint/suspicious/noExplicitAny: response JSON, read loosely by the assertions.
  return { status: out.statusCode, headers: out.headers ?? {}, body: JSON.parse(text) as Record<string, any> };
}

describe("the api Lambda handler with API Gateway v2 events", () => {
  it("documents every route of the HTTP API in its OpenAPI, the call Lambda's included", async () => {
    const res = await invoke({ method: "GET", path: "/v1/openapi.json", as: null });
    expect(res.status).toBe(200);
    const documented = Object.entries(res.body.paths as Record<string, Record<string, unknown>>)
      .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`))
      .sort();
    const routed = Object.values(ENDPOINT_GROUPS)
      .flatMap((g) => g.routes.map((r) => `${r.method} ${r.path}`))
      .sort();
    expect(routed).toContain("POST /v1/call");
    expect(documented).toEqual(routed);
  });

  it("serves health without a key", async () => {
    const res = await invoke({ method: "GET", path: "/v1/health", as: null });
    expect(res.status).toBe(200);
    // The test tools' upstream is a port nothing listens on: health probes it and says so.
    expect(res.body).toMatchObject({ status: "degraded", format_version: ARTIFACT_FORMAT_VERSION, counts: { tools: 10 } });
    // Liveness is this function's too (the one that serves find), and probes nothing.
    const live = await invoke({ method: "GET", path: "/v1/health/live", as: null });
    expect([live.status, live.body]).toEqual([200, { status: "ok" }]);
  });

  it("opens a session with a brief, reads its surface, and keeps it from another principal", async () => {
    const opened = await invoke({ method: "POST", path: "/v1/sessions", body: { brief: "review" } });
    expect(opened.status).toBe(201);
    expect(opened.body.session.declared).toEqual(["git.blame", "git.diff"]);
    const id = opened.body.session.id as string;
    const stored = await dynamo.store.get(id);
    expect(stored?.principal).toBe("alice");

    const surface = await invoke({ method: "GET", path: `/v1/sessions/${id}/surface` });
    expect(surface.status).toBe(200);
    expect(surface.body.surface.tools[0].name).toBe("toolbelt.find");
    const other = await invoke({ method: "GET", path: `/v1/sessions/${id}/surface`, as: "bob" });
    expect(other).toMatchObject({ status: 404, body: { error: { code: "SESSION_NOT_FOUND" } } });
  });

  it("finds with a base64-encoded body, as API Gateway sends binary payloads", async () => {
    const res = await invoke({ method: "POST", path: "/v1/find", body: { query: "recent commits" }, base64: true });
    expect(res.status).toBe(200);
    expect(res.body.tools[0].name).toBe("git.log");
  });

  it("uses the Lambda request id and answers errors in the one shape", async () => {
    const ctx = lambdaContext();
    const out = (await handler(
      httpApiV2Event({
        method: "POST",
        path: "/v1/find",
        body: "{nope",
        headers: { "content-type": "application/json", authorization: `Bearer ${TEST_KEYS.alice}` },
      }),
      ctx,
    )) as APIGatewayProxyStructuredResultV2;
    expect(out.statusCode).toBe(400);
    expect(out.headers?.["x-request-id"]).toBe(ctx.awsRequestId);
    expect(JSON.parse(out.body ?? "")).toMatchObject({ error: { code: "BAD_JSON" } });

    expect(await invoke({ method: "POST", path: "/v1/find", body: { query: "x" }, as: null })).toMatchObject({ status: 401 });
    expect(await invoke({ method: "POST", path: "/v1/find", body: { query: "x", nope: 1 } })).toMatchObject({
      status: 400,
      body: { error: { code: "INVALID_REQUEST" } },
    });
    expect(
      await invoke({ method: "POST", path: "/v1/find", body: JSON.stringify({ query: "x".repeat(100_000) }), headers: { "content-type": "application/json" } }),
    ).toMatchObject({
      status: 413,
    });
    expect(await invoke({ method: "POST", path: `/v1/find?${"q=1&".repeat(2600)}`, body: { query: "x" } })).toMatchObject({
      status: 414,
      body: { error: { code: "URI_TOO_LONG" } },
    });
  });
});

describe("the esbuild bundle of the api handler", () => {
  it("bundles without build-time code and answers the same events", async () => {
    const out = join(await mkdtemp(join(tmpdir(), "toolbelt-bundle-")), "api.mjs");
    await build({
      entryPoints: ["lambdas/handlers/api.ts"],
      bundle: true,
      platform: "node",
      target: "node20",
      format: "esm",
      outfile: out,
      logLevel: "silent",
      // CommonJS dependencies (the AWS SDK) need `require` inside an ESM bundle.
      banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
    });
    const text = await readFile(out, "utf8");
    for (const banned of ["dynalite", "build/artifact.ts", "build/cli.ts", "node_modules/yaml/"]) expect(text).not.toContain(banned);
    const bundled = (await import(pathToFileURL(out).href)) as { handler: Handler };
    const res = (await bundled.handler(httpApiV2Event({ method: "GET", path: "/v1/health" }), lambdaContext())) as APIGatewayProxyStructuredResultV2;
    expect(res.statusCode).toBe(200);
    const opened = (await bundled.handler(
      httpApiV2Event({ method: "POST", path: "/v1/sessions", body: {}, headers: { authorization: `Bearer ${TEST_KEYS.bob}` } }),
      lambdaContext(),
    )) as APIGatewayProxyStructuredResultV2;
    expect(opened.statusCode).toBe(201);
    const id = (JSON.parse(opened.body ?? "{}") as { session: { id: string } }).session.id;
    // The bundle wrote to the same table the unbundled handler reads.
    const read = await invoke({ method: "GET", path: `/v1/sessions/${id}/surface`, as: "bob" });
    expect(read.status).toBe(200);
  });
});
