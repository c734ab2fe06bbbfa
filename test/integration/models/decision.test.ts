// Find's decision mode through POST /v1/find against a loopback chat-completions server answering
// one-token choices with scripted logprobs: the question on the wire, the "none" option,
// min_probability, chunking and the final round, each fallback_reason (including a decider that never
// answers, cut by a short configured timeout), the request checks, grants and the per-Lambda cache.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CatalogTool } from "../../../registry/contract/artifact.js";
import { createModels } from "../../../lambdas/models/index.js";
import { NONE_NOTE } from "../../../lambdas/contract/find.js";
import { startTestApi, type TestApi } from "../../helpers/api.js";
import { defaultTestTools, testArtifactInput, testTool } from "../../helpers/artifact.js";
import { choiceReply, httpError, startChatServer, type ChatRequest, type ChatServer, type ScriptedReply } from "../../helpers/chat-server.js";
import { startDynalite, type TestDynamo } from "../../helpers/dynalite.js";

const tools: CatalogTool[] = [
  ...defaultTestTools(),
  testTool("time.now", { description: "Tell the current time in a time zone." }),
  testTool("convert.temperature", { description: "Convert a temperature between Celsius and Fahrenheit." }),
  testTool("text.slugify", { description: "Turn a title into a URL slug." }),
];
/** What alice may find: toolbelt.reshape is always loaded (never a candidate) and admin.* is denied to her. */
const SEARCHABLE = tools.map((t) => t.name).filter((n) => n !== "toolbelt.reshape" && !n.startsWith("admin."));

/** The options of a choice question as sent: label → tool name (0 is "none"). */
function optionsOf(req: ChatRequest): Map<string, string> {
  const text = req.body.messages.at(-1)!.content;
  return new Map([...text.matchAll(/^(\d+)\. ([^:\n]+)(?::|$)/gm)].map(([, label, name]) => [label!, name!]));
}

/** Answer a choice with these probabilities by tool name ("none" for option 0), as tokens with a leading space. */
function answer(req: ChatRequest, byName: Record<string, number>): ScriptedReply {
  const probabilities: Record<string, number> = {};
  for (const [label, name] of optionsOf(req)) {
    const p = label === "0" ? byName.none : byName[name];
    if (p !== undefined) probabilities[` ${label}`] = p;
  }
  return choiceReply(probabilities, { model: "decider-2026" });
}

let chat: ChatServer;
let dynamo: TestDynamo;
let api: TestApi;
let slow: TestApi;
let bare: TestApi;

const find = (on: TestApi, body: Record<string, unknown>, as: "alice" | "bob" = "alice") => on.request("/v1/find", { json: body, as });
type Found = {
  mode: string;
  verdict: string;
  tools: { name: string; score: number }[];
  fallback_reason?: string;
  decision?: { role: string; model: string; probabilities: string; candidates: number; questions: number };
};
const json = async (res: Response) => (await res.json()) as Found;
const decider = (timeout_ms: number) => ({ provider: "openai" as const, url: chat.url, model: "decider-model", timeout_ms });

beforeAll(async () => {
  chat = await startChatServer();
  dynamo = await startDynalite();
  const input = testArtifactInput(tools);
  api = await startTestApi({ input, dynamo, models: createModels({ decider: decider(5_000), fast: decider(5_000) }, {}) });
  slow = await startTestApi({ input, dynamo, models: createModels({ decider: decider(200) }, {}) });
  bare = await startTestApi({ input, dynamo });
}, 60_000);

afterAll(async () => {
  await Promise.all([api?.close(), slow?.close(), bare?.close()]);
  await chat?.close();
  await dynamo?.close();
});

describe("one choice question", () => {
  it("asks one token with logprobs over every candidate plus 'none', and ranks by probability", async () => {
    chat.script((req) => answer(req, { "git.log": 0.7, "git.diff": 0.2, none: 0.05, "notes.search": 0.05 }));
    const res = await find(api, { query: "what changed lately in the repo", mode: "decision", schemas: false });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body).toMatchObject({
      mode: "decision",
      verdict: "match",
      tools: [
        { name: "git.log", score: 0.7 },
        { name: "git.diff", score: 0.2 },
      ],
      decision: { role: "decider", model: "decider-2026", probabilities: "logprobs", candidates: SEARCHABLE.length, questions: 1 },
    });
    expect(body.fallback_reason).toBeUndefined();
    const [sent] = chat.requests;
    expect(sent!.body).toMatchObject({ model: "decider-model", max_tokens: 1, logprobs: true, top_logprobs: 20, temperature: 0 });
    const options = optionsOf(sent!);
    expect(options.get("0")).toBe("No tool in this list fits the task.");
    expect([...options.values()].slice(1).sort()).toEqual([...SEARCHABLE].sort());
    expect(sent!.body.messages.at(-1)!.content).toContain("Task: what changed lately in the repo");
  });

  it("returns only tools at or above min_probability", async () => {
    chat.script((req) => answer(req, { "git.log": 0.55, "git.diff": 0.3, none: 0.15 }));
    const body = await json(await find(api, { query: "commits touching a file", mode: "decision", min_probability: 0.4 }));
    expect(body.tools.map((t) => t.name)).toEqual(["git.log"]);
  });

  it("returns nothing when 'none' is the most likely answer", async () => {
    chat.script((req) => answer(req, { none: 0.6, "time.now": 0.3, "notes.search": 0.1 }));
    const body = await json(await find(api, { query: "write me a poem about the sea", mode: "decision" }));
    expect(body).toMatchObject({ mode: "decision", verdict: "none", tools: [], note: NONE_NOTE });
  });

  it("returns nothing when no tool reaches the bar", async () => {
    chat.script((req) => answer(req, { "notes.create": 0.09, "notes.search": 0.09, "git.log": 0.08, none: 0.05 }));
    const body = await json(await find(api, { query: "something vague about notes and commits", mode: "decision" }));
    expect(body).toMatchObject({ mode: "decision", verdict: "none", tools: [] });
  });

  it("puts only the caller's granted tools to the model", async () => {
    chat.script((req) => answer(req, { "git.status": 0.9, none: 0.1 }));
    await find(api, { query: "is my tree clean", mode: "decision" }, "bob");
    expect([...optionsOf(chat.requests[0]!).values()].slice(1).sort()).toEqual(["git.blame", "git.diff", "git.log", "git.status"]);
  });

  it("asks once per (query, candidates, model) in a warm process", async () => {
    chat.script((req) => answer(req, { "convert.temperature": 0.95, none: 0.05 }));
    const first = await json(await find(api, { query: "how warm is 30 C in F", mode: "decision" }));
    const again = await json(await find(api, { query: "how warm is 30 C in F", mode: "decision", limit: 1 }));
    expect(chat.requests).toHaveLength(1);
    expect(again.tools).toEqual(first.tools);
    expect(again.decision!.questions).toBe(0);
  });
});

describe("chunks and the final round", () => {
  it("splits the candidates into chunks sent together; the tools that reach the bar in their chunk meet in a final choice that sets the ranking", async () => {
    chat.script((req) => {
      const names = [...optionsOf(req).values()];
      // The final round holds only the finalists: there the model prefers git.diff.
      if (names.length === 3 && names.includes("git.log") && names.includes("git.diff")) return answer(req, { "git.diff": 0.7, "git.log": 0.25, none: 0.05 });
      return answer(req, { "git.log": 0.6, "git.diff": 0.5, "notes.search": 0.05, "time.now": 0.04, none: 0.3 });
    });
    const body = await json(await find(api, { query: "see what a commit changed", mode: "decision", chunk_size: 4 }));
    // 10 candidates in chunks of 4: three questions, then the final round.
    expect(chat.requests).toHaveLength(4);
    expect(chat.requests.slice(0, 3).map((r) => optionsOf(r).size - 1)).toEqual([4, 4, 2]);
    expect([...optionsOf(chat.requests[3]!).values()].slice(1).sort()).toEqual(["git.diff", "git.log"]);
    expect(body.tools).toEqual([expect.objectContaining({ name: "git.diff", score: 0.7 }), expect.objectContaining({ name: "git.log", score: 0.25 })]);
    expect(body.decision!.questions).toBe(4);
  });

  it("regression (issue 24): chunk_size 1 no longer fans out one request per candidate: at most 4 model requests per find", async () => {
    chat.script((req) => answer(req, { "git.log": 0.6, "git.diff": 0.3, none: 0.1 }));
    const body = await json(await find(api, { query: "see what a commit changed", mode: "decision", chunk_size: 1 }));
    // 10 candidates: three chunks raised to 4, 4 and 2 tools, then the final round (it was 10 questions and a final one).
    expect(chat.requests).toHaveLength(4);
    expect(chat.requests.slice(0, 3).map((r) => optionsOf(r).size - 1)).toEqual([4, 4, 2]);
    expect(body).toMatchObject({ mode: "decision", decision: { questions: 4 } });
    expect(body.tools[0]?.name).toBe("git.log");
  });

  it("returns nothing, without a final round, when no tool reaches the bar in its chunk", async () => {
    chat.script((req) => answer(req, { none: 0.9, "text.slugify": 0.05 }));
    const body = await json(await find(api, { query: "book a flight to Lisbon", mode: "decision", chunk_size: 5 }));
    expect(chat.requests).toHaveLength(2);
    expect(body).toMatchObject({ mode: "decision", verdict: "none", tools: [] });
  });
});

describe("fallback to keyword ranking", () => {
  const keywordFallback = async (on: TestApi, query: string) => {
    const body = await json(await find(on, { query, mode: "decision" }));
    expect(body.mode).toBe("keyword");
    expect(body.tools[0]?.name).toBe("git.log");
    expect(body.decision).toBeUndefined();
    return body.fallback_reason ?? "";
  };

  it("when the decider never answers within its configured timeout", async () => {
    chat.script(() => "hang");
    expect(await keywordFallback(slow, "list recent commits")).toMatch(/^timeout: model role "decider" \(decider-model\) did not answer within 200 ms/);
  });

  it("when the endpoint answers an HTTP error", async () => {
    chat.script(() => httpError(503, "overloaded"));
    expect(await keywordFallback(api, "list recent commits of the repository")).toMatch(/^http_error: .*HTTP 503/);
  });

  it("when the answer is not JSON", async () => {
    chat.script(() => ({ status: 200, json: undefined }));
    expect(await keywordFallback(api, "list recent commits please")).toMatch(/^unparsable: /);
  });

  it("when the answer token is none of the option numbers", async () => {
    chat.script(() => choiceReply({ Sure: 0.9, The: 0.1 }));
    expect(await keywordFallback(api, "list the recent commits")).toMatch(/^unparsable: .*none of the option numbers/);
  });

  it("when the endpoint returns no logprobs", async () => {
    chat.script((req) => choiceReply({ [`${[...optionsOf(req).keys()][1]}`]: 1 }, { omitLogprobs: true }));
    expect(await keywordFallback(api, "list recent commits now")).toMatch(/^no_logprobs: /);
  });

  it("when no decider is configured and decision mode was asked for; auto is plain keyword mode then", async () => {
    expect(await keywordFallback(bare, "list recent commits")).toMatch(/^no_decider: no model is configured for the role "decider"/);
    const auto = await json(await find(bare, { query: "list recent commits" }));
    expect(auto.mode).toBe("keyword");
    expect(auto.fallback_reason).toBeUndefined();
  });
});

describe("the request", () => {
  it("runs keyword mode without asking the model when mode is keyword, and decision mode by default (auto) when a decider exists", async () => {
    chat.script((req) => answer(req, { "time.now": 0.9, none: 0.1 }));
    expect((await json(await find(api, { query: "current time in Tokyo", mode: "keyword" }))).mode).toBe("keyword");
    expect(chat.requests).toHaveLength(0);
    expect((await json(await find(api, { query: "current time in Tokyo" }))).mode).toBe("decision");
  });

  it("asks the role named by `model`", async () => {
    chat.script((req) => answer(req, { "time.now": 0.9, none: 0.1 }));
    const body = await json(await find(api, { query: "what time is it in Lima", model: "fast" }));
    expect(body.decision).toMatchObject({ role: "fast" });
  });

  it("answers 400 for an unknown model role, naming the configured ones, and for a chunk_size outside 1–255", async () => {
    const unknown = await find(api, { query: "time", model: "gpt-9" });
    expect(unknown.status).toBe(400);
    const { error } = (await unknown.json()) as { error: { message: string; details: unknown } };
    expect(error.message).toBe('model "gpt-9" is not a model role of this gateway; configured: decider, fast');
    expect(error.details).toEqual({ model: "gpt-9", configured: ["decider", "fast"] });
    for (const chunk_size of [0, 256, 2.5]) expect((await find(api, { query: "time", chunk_size })).status, String(chunk_size)).toBe(400);
    expect((await find(api, { query: "time", mode: "oracle" })).status).toBe(400);
  });
});

describe("what surfaces advertise", () => {
  const findProps = async (on: TestApi) => {
    const { surface } = (await (await on.request("/v1/sessions", { json: {}, as: "alice" })).json()) as {
      surface: { tools: { name: string; input_schema: { properties: Record<string, unknown> } }[] };
    };
    return Object.keys(surface.tools.find((t) => t.name === "toolbelt.find")!.input_schema.properties);
  };

  it("shows find's decision-mode options only where a decider is configured; without one a call sending them still works", async () => {
    expect(await findProps(api)).toEqual(expect.arrayContaining(["mode", "min_probability", "chunk_size", "model"]));
    const lean = await findProps(bare);
    expect(lean).toContain("query");
    for (const option of ["mode", "min_probability", "chunk_size", "model"]) expect(lean).not.toContain(option);
    const res = await find(bare, { query: "list recent commits", mode: "keyword", min_probability: 0.5, chunk_size: 9 });
    expect(res.status).toBe(200);
    expect((await json(res)).mode).toBe("keyword");
  });
});
