// The same MCP flow against the bundled Lambda handler (esbuild with the construct's settings, the
// deployment files laid out as in /var/task): the official clients' HTTP requests become API Gateway
// v2 events and the handler's results become responses, against server-everything and dynalite.
import type { APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_KEYS, testPolicy } from "../../helpers/api.js";
import { buildTestArtifact } from "../../helpers/artifact.js";
import { startDynalite, type TestDynamo } from "../../helpers/dynalite.js";
import { lambdaFetch as lambdaFetchOf } from "../../helpers/lambda-events.js";
import { bundleHandler, copyDeploymentFiles } from "../../infra/bundle-harness.js";
import { startEverything, type Everything } from "../call/helpers.js";
import { connect, mcpTestBriefs, mcpTestInput, REVISIONS, type AnyClient } from "./fixture.js";

type Handler = (event: unknown, context: unknown) => Promise<APIGatewayProxyStructuredResultV2>;

let work: string;
let dynamo: TestDynamo;
let upstream: Everything;
let handler: Handler;
let bundleBytes = 0;
const saved = { ...process.env };
const URL_ = "https://api.example.test/mcp";

let lambdaFetch: typeof fetch;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "toolbelt-mcp-lambda-"));
  upstream = await startEverything();
  dynamo = await startDynalite({ table: "toolbelt-mcp-lambda" });
  const { dir: artifactDir } = await buildTestArtifact(join(work, "artifact-src"), mcpTestInput());
  const policyFile = join(work, "policy.json");
  const briefsFile = join(work, "briefs-input.json");
  await writeFile(policyFile, JSON.stringify(testPolicy()));
  await writeFile(briefsFile, JSON.stringify(mcpTestBriefs()));
  const bundle = await bundleHandler("lambdas/handlers/mcp.ts", join(work, "task"));
  bundleBytes = bundle.bytes;
  copyDeploymentFiles(bundle.dir, { artifactDir, policyFile, briefsFile });
  Object.assign(process.env, {
    TOOLBELT_ARTIFACT_DIR: join(bundle.dir, "artifact"),
    TOOLBELT_POLICY: join(bundle.dir, "policy.json"),
    TOOLBELT_TABLE: dynamo.table,
    DYNAMODB_ENDPOINT: dynamo.endpoint,
    AWS_REGION: "us-east-1",
    AWS_ACCESS_KEY_ID: "test",
    AWS_SECRET_ACCESS_KEY: "test",
    EVERYTHING_URL: upstream.url,
  });
  ({ handler } = (await import(pathToFileURL(bundle.file).href)) as { handler: Handler });
  lambdaFetch = lambdaFetchOf(handler, "toolbelt-mcp");
}, 120_000);

afterAll(async () => {
  process.env = saved;
  await upstream?.stop();
  await dynamo?.close();
  await rm(work, { recursive: true, force: true });
});

type ToolResult = { content: { type: string; text?: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean };
const call = async (c: AnyClient, name: string, args: Record<string, unknown>) => (await c.callTool({ name, arguments: args })) as ToolResult;
const errorCode = (r: ToolResult) => (JSON.parse(r.content[0]!.text!) as { error: { code: string } }).error.code;

describe("the bundled MCP Lambda handler", () => {
  it("is a bundle of its own, with the MCP server SDK", () => {
    expect(bundleBytes).toBeGreaterThan(0);
  });

  it.each(REVISIONS)("serves list, find_tool, call_tool and the belt across clients under %s", async (revision) => {
    const first = await connect(URL_, TEST_KEYS.alice, revision, lambdaFetch);
    expect(first.revision()).toBe(revision.slice(0, 10));
    expect((await first.listTools()).tools.map((t) => t.name)).toEqual(["find_tool", "call_tool", "toolbelt_reshape"]);
    const found = await call(first, "find_tool", { query: "add two numbers" });
    const { belt } = found.structuredContent as { belt: string };
    const sum = await call(first, "call_tool", { tool: "everything_get-sum", args: { a: 2, b: 3 }, belt });
    expect(sum.content[0]!.text).toContain("5");
    const bad = await call(first, "call_tool", { tool: "everything_get-sum", args: { a: "two" }, belt });
    expect(bad.isError).toBe(true);
    expect(errorCode(bad)).toBe("INVALID_ARGUMENTS");
    for (const name of ["admin.reset", "admin_reset", "Admin_Reset"]) {
      const refused = await call(first, "call_tool", { tool: name, args: {} });
      expect(refused.isError, name).toBe(true);
      expect(["TOOL_NOT_GRANTED", "TOOL_NOT_FOUND"]).toContain(errorCode(refused));
    }
    await first.close();

    // Another client, another invocation: the pin is read back from the table through the belt.
    const later = await connect(URL_, TEST_KEYS.alice, revision, lambdaFetch);
    const again = await call(later, "find_tool", { query: "echo", belt });
    expect((again.structuredContent as { pinned: { name: string }[] }).pinned.map((p) => p.name)).toEqual(["everything_get-sum"]);
    await later.close();
  });

  it("answers GET and DELETE with 405 and Allow: POST, a missing key with 401, and a modern request without Mcp-Method with 400", async () => {
    for (const method of ["GET", "DELETE"]) {
      const res = await lambdaFetch(URL_, { method, headers: { authorization: `Bearer ${TEST_KEYS.alice}` } });
      expect(res.status).toBe(405);
      expect(res.headers.get("allow")).toBe("POST");
    }
    const anonymous = await lambdaFetch(URL_, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toMatch(/^Bearer/);
    const res = await lambdaFetch(URL_, {
      method: "POST",
      headers: {
        authorization: `Bearer ${TEST_KEYS.alice}`,
        "content-type": "application/json",
        accept: "application/json",
        "mcp-protocol-version": "2026-07-28",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/list",
        params: {
          _meta: {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
            "io.modelcontextprotocol/clientCapabilities": {},
          },
        },
      }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: number } }).error.code).toBe(-32020);
  });
});
