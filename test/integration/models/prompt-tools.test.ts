// Prompt tools through POST /v1/call against a loopback chat-completions server with scripted
// answers: the rendered prompt and structured-output request on the wire, a valid answer with its
// metadata, an invalid answer retried with its problems, refused after the retry (502), a model
// error (502), a timeout (504), and a gateway without models (503 naming the role and the setting).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CatalogTool } from "../../../registry/contract/artifact.js";
import { createModels } from "../../../lambdas/models/index.js";
import { createCallModule } from "../../../lambdas/http/routes/call.js";
import { startTestApi, type TestApi } from "../../helpers/api.js";
import { testArtifactInput, testTool } from "../../helpers/artifact.js";
import { chatReply, httpError, startChatServer, type ChatServer } from "../../helpers/chat-server.js";
import { startDynalite, type TestDynamo } from "../../helpers/dynalite.js";

const KEY = "sk-loopback-0123456789";
const SUMMARY_SCHEMA = {
  type: "object",
  additionalProperties: false,
  required: ["gist", "keywords"],
  properties: { gist: { type: "string" }, keywords: { type: "array", minItems: 3, maxItems: 3, items: { type: "string" } } },
};

const tools: CatalogTool[] = [
  testTool("toolbelt.reshape", { description: "Reshape JSON data with a mapping." }),
  testTool("writing.summarize", {
    kind: "prompt",
    description: "Summarize a text into a gist and three keywords.",
    backend: { kind: "prompt", prompt: "Summarize ${NOT_AN_ENV} into a gist and three keywords:\n\n{{input.text}}", model: "prompt" },
    output_schema: SUMMARY_SCHEMA,
    timeout_ms: 10_000,
  }),
  testTool("writing.reword", {
    kind: "prompt",
    description: "Reword a sentence more politely.",
    backend: { kind: "prompt", prompt: "Reword politely: {{input.text}}", model: "prompt" },
    timeout_ms: 10_000,
  }),
  testTool("writing.haiku", {
    kind: "prompt",
    description: "Write a haiku about a topic.",
    backend: { kind: "prompt", prompt: "A haiku about {{input.text}}", model: "poet" },
    timeout_ms: 10_000,
  }),
];

let chat: ChatServer;
let dynamo: TestDynamo;
let api: TestApi;
let bare: TestApi;
let slow: TestApi;

const call = (on: TestApi, tool: string, args: Record<string, unknown>) => on.request("/v1/call", { json: { tool, args } });
const openAi = (timeout_ms: number) => ({ provider: "openai" as const, url: chat.url, model: "test-model", key_env: "MODEL_KEY", timeout_ms });

beforeAll(async () => {
  chat = await startChatServer();
  dynamo = await startDynalite();
  const input = testArtifactInput(tools);
  const withModels = (timeout: number) => createModels({ prompt: openAi(timeout) }, { MODEL_KEY: KEY });
  api = await startTestApi({ input, dynamo, models: withModels(10_000), extraRoutes: [createCallModule({ env: {} })] });
  slow = await startTestApi({ input, dynamo, models: withModels(300), extraRoutes: [createCallModule({ env: {} })] });
  bare = await startTestApi({ input, dynamo, extraRoutes: [createCallModule({ env: {} })] });
}, 60_000);

afterAll(async () => {
  await Promise.all([api?.close(), bare?.close(), slow?.close()]);
  await chat?.close();
  await dynamo?.close();
});

describe("a prompt tool with an output schema", () => {
  it("sends the rendered prompt with a json_schema response format and answers the checked JSON with model and usage in metadata", async () => {
    chat.script(() =>
      chatReply(JSON.stringify({ gist: "Cats sleep a lot.", keywords: ["cats", "sleep", "naps"] }), { prompt_tokens: 90, completion_tokens: 20 }),
    );
    const res = await call(api, "writing.summarize", { text: "Cats sleep sixteen hours a day." });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      tool: "writing.summarize",
      result: { gist: "Cats sleep a lot.", keywords: ["cats", "sleep", "naps"] },
      metadata: { model: "test-model-2026", role: "prompt", usage: { input_tokens: 90, output_tokens: 20 }, attempts: 1 },
    });
    const [sent] = chat.requests;
    expect(sent!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(sent!.body.model).toBe("test-model");
    expect(sent!.body.response_format).toEqual({ type: "json_schema", json_schema: { name: "writing_summarize", schema: SUMMARY_SCHEMA, strict: false } });
    // {{input.*}} only: the `${...}` in the template is text, never an environment lookup.
    expect(sent!.body.messages.at(-1)).toEqual({
      role: "user",
      content: "Summarize ${NOT_AN_ENV} into a gist and three keywords:\n\nCats sleep sixteen hours a day.",
    });
    expect(sent!.body.messages[0]!.role).toBe("system");
    // The audit line carries the model id and the tokens.
    const audit = api.logger.entries.filter((e) => e.message === "call" && e.fields.tool === "writing.summarize").at(-1);
    expect(audit?.fields).toMatchObject({ outcome: "OK", model: "test-model-2026", usage: { input_tokens: 90, output_tokens: 20 } });
  });

  it("retries once with the validation problems when the first answer does not match, and answers the second", async () => {
    chat.script((_req, n) =>
      n === 1 ? chatReply(JSON.stringify({ gist: "Cats.", keywords: ["cats"] })) : chatReply(JSON.stringify({ gist: "Cats.", keywords: ["a", "b", "c"] })),
    );
    const res = await call(api, "writing.summarize", { text: "Cats." });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { result: unknown; metadata: { attempts: number; usage: { input_tokens: number } } };
    expect(body.result).toEqual({ gist: "Cats.", keywords: ["a", "b", "c"] });
    expect(body.metadata.attempts).toBe(2);
    expect(body.metadata.usage.input_tokens).toBe(240);
    const retry = chat.requests[1]!.body.messages;
    expect(retry.at(-2)).toEqual({ role: "assistant", content: JSON.stringify({ gist: "Cats.", keywords: ["cats"] }) });
    expect(retry.at(-1)!.content).toContain("$.keywords must NOT have fewer than 3 items");
  });

  it("answers 502 OUTPUT_SCHEMA_MISMATCH with the problems when the retry does not match either (a non-JSON answer counts)", async () => {
    chat.script((_req, n) => (n === 1 ? chatReply("Sure! Here is a summary: cats sleep.") : chatReply(JSON.stringify({ gist: 3, keywords: [] }))));
    const res = await call(api, "writing.summarize", { text: "Cats." });
    expect(res.status).toBe(502);
    const { error } = (await res.json()) as { error: { code: string; message: string; details: Record<string, unknown> } };
    expect(error.code).toBe("OUTPUT_SCHEMA_MISMATCH");
    expect(error.details).toMatchObject({ tool: "writing.summarize", role: "prompt", attempts: 2 });
    expect(error.details.problems).toEqual([
      { path: "$.gist", message: "must be of type string, got number 3", keyword: "type" },
      { path: "$.keywords", message: "must NOT have fewer than 3 items, got []", keyword: "minItems" },
    ]);
    expect(chat.requests).toHaveLength(2);
    expect(chat.requests[1]!.body.messages.at(-1)!.content).toContain("$ is not JSON");
  });

  it("answers a model's HTTP error as 502 UPSTREAM_ERROR without retrying", async () => {
    chat.script(() => httpError(500, "model overloaded"));
    const res = await call(api, "writing.summarize", { text: "Cats." });
    expect(res.status).toBe(502);
    const { error } = (await res.json()) as { error: { code: string; message: string; details: Record<string, unknown> } };
    expect(error.code).toBe("UPSTREAM_ERROR");
    expect(error.details).toMatchObject({ role: "prompt", reason: "http_error", status: 500 });
    expect(error.message).toContain("model overloaded");
    expect(chat.requests).toHaveLength(1);
  });

  it("answers 504 when the model does not answer within the role's timeout", async () => {
    chat.script(() => "hang");
    const res = await call(slow, "writing.summarize", { text: "Cats." });
    expect(res.status).toBe(504);
    const { error } = (await res.json()) as { error: { code: string; details: Record<string, unknown> } };
    expect(error).toMatchObject({ code: "UPSTREAM_TIMEOUT", details: { reason: "timeout", timeout_ms: 300 } });
  });
});

describe("a prompt tool without an output schema", () => {
  it("answers the model's text as {text}, with no response format requested", async () => {
    chat.script(() => chatReply("Would you kindly pass the salt?"));
    const res = await call(api, "writing.reword", { text: "Give me the salt." });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { result: unknown }).result).toEqual({ text: "Would you kindly pass the salt?" });
    expect(chat.requests[0]!.body.response_format).toBeUndefined();
  });
});

describe("a gateway without models", () => {
  it("still finds prompt tools", async () => {
    const res = await bare.request("/v1/find", { json: { query: "summarize a text into keywords" } });
    expect(((await res.json()) as { tools: { name: string }[] }).tools[0]!.name).toBe("writing.summarize");
  });

  it("answers a call 503 MODEL_NOT_CONFIGURED naming the role and the setting to add", async () => {
    const res = await call(bare, "writing.summarize", { text: "Cats." });
    expect(res.status).toBe(503);
    const { error } = (await res.json()) as { error: { code: string; message: string; details: Record<string, unknown> } };
    expect(error.code).toBe("MODEL_NOT_CONFIGURED");
    expect(error.message).toContain('"prompt"');
    expect(error.message).toContain("TOOLBELT_MODELS");
    expect(error.details).toEqual({ tool: "writing.summarize", role: "prompt", setting: "TOOLBELT_MODELS", configured_roles: [] });
  });

  it("names a tool's own role when the deployment configures others", async () => {
    const res = await call(api, "writing.haiku", { text: "autumn" });
    expect(res.status).toBe(503);
    expect(((await res.json()) as { error: { details: unknown } }).error.details).toMatchObject({ role: "poet", configured_roles: ["prompt"] });
  });
});
