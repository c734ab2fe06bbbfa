// The Bedrock Converse adapter through the real SDK client (endpoint override) against a loopback
// server speaking Converse's REST-JSON protocol over HTTP/2 (the client's only transport): a prompt tool's structured output by forced tool
// use, find's decision mode with stated probabilities, and service errors as 502 / fallback_reason.
import type { IncomingHttpHeaders } from "node:http";
import { createServer, type Http2Server } from "node:http2";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CatalogTool } from "../../../registry/contract/artifact.js";
import { bedrockModel } from "../../../lambdas/models/bedrock.js";
import { createModels } from "../../../lambdas/models/index.js";
import { createCallModule } from "../../../lambdas/http/routes/call.js";
import { startTestApi, type TestApi } from "../../helpers/api.js";
import { defaultTestTools, testArtifactInput, testTool } from "../../helpers/artifact.js";

const MODEL = "anthropic.claude-test-v1:0";
const SCHEMA = { type: "object", required: ["category"], properties: { category: { type: "string", enum: ["billing", "bug", "other"] } } };

type Converse = { path: string; headers: IncomingHttpHeaders; body: Record<string, unknown> & { messages: { content: { text?: string }[] }[] } };
type Reply = { status: number; json: unknown; errorType?: string };
let script: (req: Converse) => Reply = () => ({ status: 500, json: { message: "no script" } });
const seen: Converse[] = [];

const toolUse = (name: string, input: unknown): Reply => ({
  status: 200,
  json: {
    output: { message: { role: "assistant", content: [{ toolUse: { toolUseId: "tooluse_1", name, input } }] } },
    stopReason: "tool_use",
    usage: { inputTokens: 210, outputTokens: 14, totalTokens: 224 },
    metrics: { latencyMs: 12 },
  },
});

let server: Http2Server;
let api: TestApi;
const saved = { ...process.env };

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = "";
    req.on("data", (c: Buffer) => (raw += c.toString()));
    req.on("end", () => {
      const request: Converse = { path: req.url ?? "", headers: req.headers as IncomingHttpHeaders, body: JSON.parse(raw) as Converse["body"] };
      seen.push(request);
      const reply = script(request);
      res.writeHead(reply.status, { "content-type": "application/json", ...(reply.errorType ? { "x-amzn-errortype": reply.errorType } : {}) });
      res.end(JSON.stringify(reply.json));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // What a Lambda role gives the client: credentials in the environment.
  Object.assign(process.env, { AWS_ACCESS_KEY_ID: "AKIDLOOPBACK", AWS_SECRET_ACCESS_KEY: "loopback-secret", AWS_REGION: "us-east-1" });
  delete process.env.AWS_SESSION_TOKEN;
  const role = { provider: "bedrock" as const, model: MODEL, region: "us-east-1", endpoint, timeout_ms: 5_000 };
  const models = createModels({ prompt: role, decider: role }, {}, { bedrock: bedrockModel });
  const tools: CatalogTool[] = [
    ...defaultTestTools(),
    testTool("support.classify", {
      kind: "prompt",
      description: "Classify a support message.",
      backend: { kind: "prompt", prompt: "Classify: {{input.text}}", model: "prompt" },
      output_schema: SCHEMA,
    }),
  ];
  api = await startTestApi({ input: testArtifactInput(tools), models, extraRoutes: [createCallModule({ env: {} })] });
}, 60_000);

afterAll(async () => {
  await api?.close();
  await new Promise<void>((r) => server?.close(() => r()));
  process.env = saved;
});

const reset = (fn: typeof script) => {
  script = fn;
  seen.length = 0;
};

describe("a prompt tool on Bedrock", () => {
  it("forces a tool whose input schema is the output schema, signs the request, and answers the tool's input", async () => {
    reset(() => toolUse("support_classify", { category: "billing" }));
    const res = await api.request("/v1/call", { json: { tool: "support.classify", args: { text: "I was charged twice" } } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      tool: "support.classify",
      result: { category: "billing" },
      metadata: { model: MODEL, role: "prompt", usage: { input_tokens: 210, output_tokens: 14 }, attempts: 1 },
    });
    const [sent] = seen;
    expect(decodeURIComponent(sent!.path)).toBe(`/model/${MODEL}/converse`);
    expect(sent!.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDLOOPBACK\/\d{8}\/us-east-1\/bedrock\/aws4_request/);
    expect(sent!.body).toMatchObject({
      toolConfig: {
        tools: [{ toolSpec: { name: "support_classify", inputSchema: { json: SCHEMA } } }],
        toolChoice: { tool: { name: "support_classify" } },
      },
      inferenceConfig: { temperature: 0 },
    });
    expect(sent!.body.messages).toEqual([{ role: "user", content: [{ text: "Classify: I was charged twice" }] }]);
    expect((sent!.body.system as { text: string }[])[0]!.text).toContain("You are the tool support.classify");
  });

  it("answers a service error as 502 UPSTREAM_ERROR with the status", async () => {
    reset(() => ({ status: 429, errorType: "ThrottlingException", json: { message: "Too many requests, please wait before trying again." } }));
    const res = await api.request("/v1/call", { json: { tool: "support.classify", args: { text: "hello" } } });
    expect(res.status).toBe(502);
    const { error } = (await res.json()) as { error: { code: string; message: string; details: unknown } };
    expect(error.code).toBe("UPSTREAM_ERROR");
    expect(error.message).toContain("ThrottlingException (HTTP 429)");
    expect(error.details).toMatchObject({ role: "prompt", reason: "http_error", status: 429 });
  });
});

describe("find's decision mode on Bedrock", () => {
  it("asks for stated probabilities through a forced tool and says so in the result", async () => {
    reset((req) => {
      const question = req.body.messages[0]!.content[0]!.text!;
      const label = /^(\d+)\. git\.log:/m.exec(question)![1];
      return toolUse("choose", {
        choices: [
          { option: Number(label), probability: 0.8 },
          { option: 0, probability: 0.1 },
        ],
      });
    });
    const res = await api.request("/v1/find", { json: { query: "what happened in the repository lately", mode: "decision" } });
    const body = (await res.json()) as { mode: string; tools: { name: string; score: number }[]; decision: unknown };
    expect(body.mode).toBe("decision");
    expect(body.tools.map((t) => [t.name, t.score])).toEqual([["git.log", 0.8]]);
    expect(body.decision).toMatchObject({ role: "decider", model: MODEL, probabilities: "stated", questions: 1 });
    expect(seen[0]!.body.toolConfig).toMatchObject({ toolChoice: { tool: { name: "choose" } } });
    expect(seen[0]!.body.messages[0]!.content[0]!.text).toContain("call the tool choose with the probability");
  });

  it("falls back to keyword ranking with the service error as fallback_reason", async () => {
    reset(() => ({ status: 400, errorType: "ValidationException", json: { message: "The model does not support tool use." } }));
    const res = await api.request("/v1/find", { json: { query: "list recent commits", mode: "decision" } });
    const body = (await res.json()) as { mode: string; tools: { name: string }[]; fallback_reason: string };
    expect(body.mode).toBe("keyword");
    expect(body.tools[0]!.name).toBe("git.log");
    expect(body.fallback_reason).toMatch(/^http_error: .*ValidationException \(HTTP 400\)/);
  });
});
