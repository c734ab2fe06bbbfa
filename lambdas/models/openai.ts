// An OpenAI-compatible chat-completions endpoint (OpenAI, vLLM, llama.cpp server, Ollama, LiteLLM…)
// over fetch: no SDK, so the adapter costs a few KB in every bundle. Structured output asks for
// `response_format: json_schema`; a choice asks for one token with `logprobs` and `top_logprobs`.
import type { Choice, ChoiceRequest, Completion, CompletionRequest, ModelPort, ModelUsage } from "../core/ports.js";
import { ToolbeltError } from "../core/errors.js";
import { callSignal, modelError, modelTimeout, normalized } from "./failures.js";
import type { ModelRole } from "./roles.js";
import { DEFAULT_MAX_RESPONSE_BYTES, readCapped } from "../capped-body.js";

type OpenAiRole = Extract<ModelRole, { provider: "openai" }>;

/** Most alternatives OpenAI returns per token (vLLM's default `max_logprobs` is 20 as well). */
export const TOP_LOGPROBS = 20;
const EXCERPT = 300;

type ChatResponse = {
  model?: string;
  choices?: {
    message?: { content?: string | null; refusal?: string | null };
    logprobs?: { content?: { token: string; logprob: number; top_logprobs?: { token: string; logprob: number }[] }[] | null } | null;
  }[];
  usage?: { prompt_tokens?: number; completion_tokens?: number };
};

const usageOf = (r: ChatResponse): ModelUsage => ({ input_tokens: r.usage?.prompt_tokens ?? 0, output_tokens: r.usage?.completion_tokens ?? 0 });

export function openAiModel(
  role: string,
  spec: OpenAiRole,
  timeoutMs: number,
  apiKey: string | undefined,
  fetchImpl: typeof fetch = fetch,
  maxBytes: number = DEFAULT_MAX_RESPONSE_BYTES,
): ModelPort {
  const endpoint = `${spec.url.replace(/\/+$/, "")}/chat/completions`;
  const port: ModelPort = { role, provider: "openai", model: spec.model, timeoutMs, complete, choose };
  const redact = (s: string) => (apiKey && apiKey.length >= 4 ? s.split(apiKey).join("[redacted]") : s);

  async function post(body: Record<string, unknown>, outer: AbortSignal): Promise<ChatResponse> {
    const { signal, timedOut } = callSignal(outer, timeoutMs);
    let res: Response;
    let text: string;
    try {
      res = await fetchImpl(endpoint, {
        method: "POST",
        headers: { "content-type": "application/json", ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
        body: JSON.stringify({ model: spec.model, ...body }),
        signal,
      });
      text = await readCapped(res, maxBytes, () =>
        modelError(port, "unparsable", `the endpoint answered with more than ${maxBytes} bytes, which this gateway does not accept`, { max_bytes: maxBytes }),
      );
    } catch (e) {
      if (timedOut()) throw modelTimeout(port, timeoutMs);
      if (e instanceof ToolbeltError) throw e;
      throw modelError(port, "http_error", `could not reach ${new URL(endpoint).origin}: ${redact((e as Error).message)}`);
    }
    if (!res.ok) {
      throw modelError(port, "http_error", `the endpoint answered HTTP ${res.status}: ${redact(text.slice(0, EXCERPT))}`, { status: res.status });
    }
    try {
      return JSON.parse(text) as ChatResponse;
    } catch {
      throw modelError(port, "unparsable", `the endpoint's answer is not JSON: ${redact(text.slice(0, EXCERPT))}`);
    }
  }

  async function complete(req: CompletionRequest): Promise<Completion> {
    const r = await post(
      {
        messages: req.messages,
        temperature: 0,
        max_tokens: req.maxTokens ?? spec.max_tokens,
        // strict: false, since registry schemas need not meet OpenAI's strict subset (every property required, no extras).
        ...(req.schema ? { response_format: { type: "json_schema", json_schema: { name: req.schema.name, schema: req.schema.schema, strict: false } } } : {}),
      },
      req.signal,
    );
    const message = r.choices?.[0]?.message;
    if (typeof message?.content !== "string") {
      throw modelError(port, "unparsable", message?.refusal ? `the model refused: ${message.refusal.slice(0, EXCERPT)}` : "the answer has no message content");
    }
    return { text: message.content, model: r.model ?? spec.model, usage: usageOf(r) };
  }

  async function choose(req: ChoiceRequest): Promise<Choice> {
    const r = await post({ messages: req.messages, temperature: 0, max_tokens: 1, logprobs: true, top_logprobs: TOP_LOGPROBS }, req.signal);
    const first = r.choices?.[0]?.logprobs?.content?.[0];
    if (!first) throw modelError(port, "no_logprobs", "the endpoint returned no logprobs for the answer token (it may not support `logprobs`)");
    const alternatives = first.top_logprobs?.length ? first.top_logprobs : [{ token: first.token, logprob: first.logprob }];
    const index = new Map(req.labels.map((l, i) => [l, i]));
    const mass = req.labels.map(() => 0);
    // " 12" and "12" are the same answer: tokenizers differ in whether the space is part of the token.
    for (const alt of alternatives) {
      const i = index.get(alt.token.trim());
      if (i !== undefined && Number.isFinite(alt.logprob)) mass[i]! += Math.exp(alt.logprob);
    }
    if (mass.every((m) => m === 0)) {
      throw modelError(port, "unparsable", `the answer token ${JSON.stringify(first.token)} and its alternatives are none of the option numbers`);
    }
    return { probabilities: normalized(mass), source: "logprobs", model: r.model ?? spec.model, usage: usageOf(r) };
  }

  return port;
}
