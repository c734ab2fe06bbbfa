// Issue 24: prompt tools and find's decision mode redacted nothing. A loopback model that echoes its
// whole request (headers and body) in its answer or in an error body must not hand the model key, the
// gateway's API key or a declared secret to the caller: the call gateway redacts every backend's answer
// and error, and the model adapters redact their own errors (find's fallback_reason, the log).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPromptBackend } from "../../../lambdas/backends/prompt.js";
import { createCallGateway, type CallGateway } from "../../../lambdas/core/call/gateway.js";
import { createModels } from "../../../lambdas/models/index.js";
import { gatewayRedactor, gatewaySecretValues } from "../../../lambdas/secrets.js";
import { startTestApi, type TestApi } from "../../helpers/api.js";
import { defaultTestTools, testArtifactInput } from "../../helpers/artifact.js";
import { chatReply, httpError, startChatServer, type ChatRequest, type ChatServer } from "../../helpers/chat-server.js";
import { callerFor, catalogTool, toolMap } from "../call/helpers.js";

const CANARIES = {
  TOOLBELT_API_KEY: "canary-api-key-5d0c7e21b9",
  MODEL_KEY: "canary-model-key-a41f93c0d7",
  DEMO_SERVICE_TOKEN: "canary-declared-3b8e6f2a95",
} as const;
const leaked = (text: string) => Object.entries(CANARIES).flatMap(([name, value]) => (text.includes(value) ? [name] : []));
/** Everything the model received, as an echoing endpoint hands it back (its key first: error excerpts are short). */
const echo = (req: ChatRequest) => JSON.stringify({ authorization: req.headers.authorization, body: req.body });
/** An error body that also shows what a misconfigured (or compromised) endpoint holds. */
const failure = (req: ChatRequest) => httpError(500, `config: ${Object.values(CANARIES).join(" ")}; request: ${echo(req)}`);
/** A caller's text that happens to hold every secret (a pasted log, say). */
const PASTED = `please reword: ${Object.values(CANARIES).join(" and ")}`;

const families = [{ name: "demo", variables: { DEMO_SERVICE_TOKEN: { secret: true } } }];
const caller = callerFor("agent", "writing.*");
const reword = catalogTool("writing.reword", { kind: "prompt", prompt: "Reword: {{input.text}}", model: "prompt" }, { kind: "prompt", timeout_ms: 10_000 });
const summarize = catalogTool(
  "writing.summarize",
  { kind: "prompt", prompt: "Summarize: {{input.text}}", model: "prompt" },
  { kind: "prompt", timeout_ms: 10_000, output_schema: { type: "object", required: ["gist"], properties: { gist: { type: "string" } } } },
);

let chat: ChatServer;
let gateway: CallGateway;
let api: TestApi;

beforeAll(async () => {
  chat = await startChatServer();
  const env = {
    ...CANARIES,
    TOOLBELT_MODELS: JSON.stringify({ prompt: { provider: "openai", url: chat.url, model: "echo", key_env: "MODEL_KEY" } }),
  };
  const role = { provider: "openai" as const, url: chat.url, model: "echo", key_env: "MODEL_KEY" };
  // As the entry points wire it: the families' declared secrets join what createModels finds in env.
  const models = createModels({ prompt: role, decider: role }, env, { secrets: gatewaySecretValues(env, families) });
  gateway = createCallGateway({
    tools: toolMap([reword, summarize]),
    backends: { prompt: createPromptBackend({ models }) },
    redactor: gatewayRedactor(env, families),
  });
  api = await startTestApi({ input: testArtifactInput(defaultTestTools()), models });
}, 60_000);

afterAll(async () => {
  await api?.close();
  await chat?.close();
});

describe("prompt tools through the call gateway", () => {
  it("regression: an echoing model's answer reaches the caller with the model key, the API key and a declared secret redacted", async () => {
    chat.script((req) => chatReply(echo(req)));
    const res = await gateway.call({ tool: "writing.reword", args: { text: PASTED } }, caller);
    const text = (res.result as { text: string }).text;
    // The echo arrived (the authorization header among it), with every value replaced.
    expect(chat.requests[0]!.headers.authorization).toBe(`Bearer ${CANARIES.MODEL_KEY}`);
    expect(text).toContain("Bearer [redacted]");
    expect(leaked(JSON.stringify(res))).toEqual([]);
  });

  it("redacts inside structured answers too (string values of the checked JSON)", async () => {
    chat.script((req) => chatReply(JSON.stringify({ gist: echo(req) })));
    const res = await gateway.call({ tool: "writing.summarize", args: { text: PASTED } }, caller);
    expect((res.result as { gist: string }).gist).toContain("[redacted]");
    expect(leaked(JSON.stringify(res))).toEqual([]);
  });

  it("regression: a model error whose body echoes the request is a 502 with nothing secret in its message or details", async () => {
    chat.script(failure);
    const err = (await gateway.call({ tool: "writing.reword", args: { text: PASTED } }, caller).catch((e: unknown) => e)) as Error & { details: unknown };
    expect(err).toMatchObject({ code: "UPSTREAM_ERROR", status: 502, details: { role: "prompt", status: 500 } });
    expect(err.message).toContain("[redacted]");
    expect(leaked(`${err.message} ${JSON.stringify(err.details)} ${err.stack}`)).toEqual([]);
  });

  it("an answer that holds a secret only as a JSON key is redacted as well", async () => {
    chat.script(() => chatReply(JSON.stringify({ gist: "ok", [CANARIES.TOOLBELT_API_KEY]: 1 })));
    const res = await gateway.call({ tool: "writing.summarize", args: { text: "x" } }, caller);
    expect(Object.keys(res.result as object)).toEqual(["gist", "[redacted]"]);
  });
});

describe("find's decision mode", () => {
  it("regression: a decider error showing secrets and echoing its key leaves none in fallback_reason, the response or the log", async () => {
    chat.script(failure);
    const res = await api.request("/v1/find", { json: { query: "read the logs", mode: "decision" } });
    const body = await res.text();
    expect(res.status).toBe(200);
    const reason = (JSON.parse(body) as { fallback_reason?: string }).fallback_reason ?? "";
    expect(reason).toMatch(/^http_error: .*HTTP 500: .*\[redacted\]/);
    expect(leaked(body)).toEqual([]);
    expect(leaked(JSON.stringify(api.logger.entries))).toEqual([]);
  });

  it("without ModelsOptions.secrets, the gateway's API key and the model keys found in env are still redacted from model errors", async () => {
    chat.script(failure);
    const role = { provider: "openai" as const, url: chat.url, model: "echo", key_env: "MODEL_KEY" };
    const models = createModels({ decider: role }, { ...CANARIES });
    const err = (await models
      .get("decider")!
      .choose({ messages: [{ role: "user", content: "which?" }], labels: ["0", "1"], signal: AbortSignal.timeout(5_000) })
      .catch((e: unknown) => e)) as Error;
    expect(err.message).toContain("Bearer [redacted]");
    expect(leaked(err.message)).toEqual(["DEMO_SERVICE_TOKEN"]);
  });
});
