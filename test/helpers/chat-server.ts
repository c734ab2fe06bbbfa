// A loopback server speaking the OpenAI chat-completions wire format (POST /v1/chat/completions),
// answering from a script: each request goes to the test's handler, which returns a reply built with
// chatReply() (a message), choiceReply() (a one-token answer with logprobs), an HTTP error, or `hang`
// (never answers: the client's timeout must end it). Every request body and header is recorded.
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type ChatRequestBody = {
  model: string;
  messages: { role: string; content: string }[];
  max_tokens?: number;
  temperature?: number;
  logprobs?: boolean;
  top_logprobs?: number;
  response_format?: { type: string; json_schema?: { name: string; schema: Record<string, unknown>; strict?: boolean } };
};
export type ChatRequest = { body: ChatRequestBody; headers: IncomingHttpHeaders };
export type ScriptedReply = { status: number; json: unknown } | "hang";
export type ChatServer = {
  /** Base URL as a role's `url` takes it (…/v1). */
  url: string;
  requests: ChatRequest[];
  /** Replace the script (tests share one server per file). */
  script(handler: (req: ChatRequest, n: number) => ScriptedReply): void;
  close(): Promise<void>;
};

const usage = (prompt: number, completion: number) => ({ prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion });

/** A chat.completion object around one choice. */
const completion = (model: string | undefined, choice: Record<string, unknown>, u: ReturnType<typeof usage>): ScriptedReply => ({
  status: 200,
  json: {
    id: "chatcmpl-test",
    object: "chat.completion",
    created: 1_764_547_200,
    model: model ?? "test-model-2026",
    choices: [{ index: 0, ...choice }],
    usage: u,
  },
});

/** A plain answer, as /chat/completions returns it. */
export function chatReply(content: string, opts: { model?: string; prompt_tokens?: number; completion_tokens?: number } = {}): ScriptedReply {
  const message = { role: "assistant", content, refusal: null };
  return completion(opts.model, { message, logprobs: null, finish_reason: "stop" }, usage(opts.prompt_tokens ?? 120, opts.completion_tokens ?? 30));
}

/**
 * A one-token answer with `top_logprobs`: `probabilities` maps a token (as the tokenizer writes it,
 * e.g. "3" or " 3") to its probability; the most likely one is the answer.
 */
export function choiceReply(probabilities: Record<string, number>, opts: { model?: string; omitLogprobs?: boolean } = {}): ScriptedReply {
  const top = Object.entries(probabilities)
    .sort(([, a], [, b]) => b - a)
    .map(([token, p]) => ({ token, logprob: Math.log(p), bytes: [...Buffer.from(token)] }));
  const answer = top[0]!;
  const logprobs = opts.omitLogprobs ? null : { content: [{ ...answer, top_logprobs: top }], refusal: null };
  return completion(opts.model, { message: { role: "assistant", content: answer.token, refusal: null }, logprobs, finish_reason: "length" }, usage(400, 1));
}

export const httpError = (status: number, message = "server error"): ScriptedReply => ({
  status,
  json: { error: { message, type: "server_error", code: null } },
});

export async function startChatServer(): Promise<ChatServer> {
  let handler: (req: ChatRequest, n: number) => ScriptedReply = () => httpError(500, "no script");
  const requests: ChatRequest[] = [];
  const hanging = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    let raw = "";
    req.on("data", (c: Buffer) => (raw += c.toString()));
    req.on("end", () => {
      if (req.method !== "POST" || req.url !== "/v1/chat/completions") {
        res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: `no route ${req.url}` } }));
        return;
      }
      const request: ChatRequest = { body: JSON.parse(raw) as ChatRequestBody, headers: req.headers };
      requests.push(request);
      const reply = handler(request, requests.length);
      if (reply === "hang") {
        hanging.add(res);
        res.on("close", () => hanging.delete(res));
        return;
      }
      res.writeHead(reply.status, { "content-type": "application/json" }).end(JSON.stringify(reply.json));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests,
    script(h) {
      handler = h;
      requests.length = 0;
    },
    close: () =>
      new Promise<void>((done) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
