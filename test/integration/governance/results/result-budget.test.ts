// Bounded results: a 1 MB answer is cut to the token budget (counted with o200k_base) and its parts,
// fetched by continuation through every door (REST, toolbelt.call, MCP call_tool, direct MCP tools/call),
// join into the answer byte for byte. Continuations live in dynalite, bound to the principal and the tool,
// and expire; cuts are in the audit.
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBackends } from "../../../../lambdas/backends/index.js";
import { withMetaTools } from "../../../../lambdas/contract/meta-tools.js";
import type { CallAudit } from "../../../../lambdas/core/call/audit.js";
import { createCallGateway } from "../../../../lambdas/core/call/gateway.js";
import { createResultBudget, DEFAULT_RESULT_BUDGET_TOKENS } from "../../../../lambdas/core/call/result-budget.js";
import type { CallResponse } from "../../../../lambdas/core/call/types.js";
import { createCallModule, type CallModule } from "../../../../lambdas/http/routes/call.js";
import { createMcpModule, type McpModule } from "../../../../lambdas/http/routes/mcp.js";
import type { Deps } from "../../../../lambdas/http/deps.js";
import { CONTINUATION_META } from "../../../../lambdas/mcp/server.js";
import { DynamoContinuationStore } from "../../../../lambdas/stores/continuations.js";
import { sha256Hex } from "../../../../lambdas/core/auth.js";
import { startTestApi, TEST_KEYS, type TestApi } from "../../../helpers/api.js";
import { testArtifactInput } from "../../../helpers/artifact.js";
import { startDynalite, type TestDynamo } from "../../../helpers/dynalite.js";
import { catalogTool, metaTools, startLoopback, type Loopback } from "../../call/helpers.js";
import { connect, type AnyClient } from "../../mcp/fixture.js";

const TTL_SECS = 600;
let clock = Date.parse("2026-12-02T08:00:00Z");
/** A 1 MB JSON answer: rows of words, numbers and hex, as an API listing would send. */
const ROWS = Array.from({ length: 9000 }, (_, i) => ({
  id: i,
  name: `item ${i}`,
  note: `lorem ipsum dolor sit amet ${(i * 7919) % 1000} – ünïcödé ✓`,
  tags: ["a", "b"],
  hex: ((i * 2654435761) >>> 0).toString(16),
}));
const JSON_TEXT = JSON.stringify(ROWS);
/** A 1 MB text answer with astral characters (surrogate pairs a cut must not split). */
const TEXT = Array.from({ length: 44_000 }, (_, i) => `line ${i}: 𝄞 music ${i % 97}\n`).join("");
/** An http tool with `output: text` answers `{text}`: its JSON is what the parts join into. */
const TEXT_JSON = JSON.stringify({ text: TEXT });
const audits: CallAudit[] = [];

let upstream: Loopback;
let dynamo: TestDynamo;
let api: TestApi;
let calls: CallModule;
let mcp: McpModule;

/** The app's gateway with the result budget on, as the wiring builds it (call-gateway.ts), counting exactly. */
function gatewayWithBudget(store: DynamoContinuationStore) {
  return (deps: Deps) => {
    const built = createBackends({ env: {}, families: deps.artifact.families, finder: deps.finder, exec: false });
    const gateway = createCallGateway({
      tools: withMetaTools(deps.artifact.byName),
      backends: built.backends,
      sessions: deps.sessions,
      now: () => new Date(clock),
      audit: (r) => audits.push(r),
      results: createResultBudget({ store, ttlSecs: TTL_SECS, count: countTokens }),
    });
    return { gateway, close: () => built.mcp.close() };
  };
}

beforeAll(async () => {
  upstream = await startLoopback((req, res) => {
    if (req.url === "/json") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON_TEXT);
      return;
    }
    res.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
    res.end(req.url === "/text" ? TEXT : "small");
  });
  dynamo = await startDynalite();
  const shared = gatewayWithBudget(new DynamoContinuationStore(dynamo.client, dynamo.table));
  let one: ReturnType<ReturnType<typeof gatewayWithBudget>> | undefined;
  const gateway = (deps: Deps) => (one ??= shared(deps));
  calls = createCallModule({ env: {}, gateway });
  mcp = createMcpModule({ env: {}, gateway });
  const get = (path: string, output: "json" | "text") => ({ kind: "http" as const, method: "GET", url: `${upstream.url}${path}`, output });
  api = await startTestApi({
    input: testArtifactInput([
      ...metaTools(),
      catalogTool("big.json", get("/json", "json"), { description: "A large listing." }),
      catalogTool("big.text", get("/text", "text"), { description: "A large text." }),
      catalogTool("big.small", get("/small", "text"), { description: "A small text." }),
    ]),
    dynamo,
    // alice and bob may call the same tools: a continuation is still only its own principal's.
    policy: {
      version: 1,
      principals: (["alice", "bob"] as const).map((id) => ({ id, keys: [sha256Hex(TEST_KEYS[id])], allow: ["*"], deny: [], admin: false })),
    },
    clock: () => clock,
    extraRoutes: [calls, mcp],
  });
});

afterAll(async () => {
  await api.close();
  await calls.close();
  await mcp.close();
  await dynamo.close();
  await upstream.close();
});

type Part = { result: unknown; continuation?: CallResponse["continuation"] };

/** Follows continuation tokens from the first answer to the last, checking every part against the budget. */
async function reassemble(first: Part, next: (token: string) => Promise<Part>): Promise<{ text: string; parts: number; maxTokens: number }> {
  let part = first;
  let text = "";
  let parts = 0;
  let maxTokens = 0;
  for (;;) {
    expect(typeof part.result).toBe("string");
    const s = part.result as string;
    expect(part.continuation?.from).toBe(text.length);
    text += s;
    parts += 1;
    maxTokens = Math.max(maxTokens, countTokens(s));
    const token = part.continuation?.token;
    if (!token) return { text, parts, maxTokens };
    part = await next(token);
  }
}

const rest = async (body: unknown, as: keyof typeof TEST_KEYS = "alice") => {
  const res = await api.request("/v1/call", { json: body, as });
  return { status: res.status, body: (await res.json()) as CallResponse & { error?: { code: string } } };
};

/** An MCP tool result's part: its first text block and the continuation in `_meta`. */
const mcpPart = (r: Record<string, unknown>): Part => {
  const content = r.content as { text: string }[];
  const meta = r._meta as Record<string, CallResponse["continuation"]> | undefined;
  return { result: content[0]!.text, continuation: meta?.[CONTINUATION_META] };
};

describe("a 1 MB answer over the budget", () => {
  it("REST: cut to the default budget, the parts join into the answer byte for byte", async () => {
    const first = await rest({ tool: "big.json" });
    expect(first.status).toBe(200);
    expect(first.body.continuation).toMatchObject({ format: "json", from: 0, total_chars: JSON_TEXT.length });
    const started = performance.now();
    const whole = await reassemble(first.body, async (continuation) => (await rest({ tool: "big.json", continuation })).body);
    const ms = performance.now() - started;
    expect(whole.text).toBe(JSON_TEXT);
    expect(JSON.parse(whole.text)).toEqual(ROWS);
    expect(whole.maxTokens).toBeLessThanOrEqual(DEFAULT_RESULT_BUDGET_TOKENS);
    // Parts are near the budget, not a fraction of it.
    expect(whole.parts).toBeLessThan(Math.ceil(countTokens(JSON_TEXT) / DEFAULT_RESULT_BUDGET_TOKENS) * 1.15);
    console.info(`1 MB JSON: ${JSON_TEXT.length} chars, ${whole.parts} parts, largest ${whole.maxTokens} tokens, ${Math.round(ms)} ms to fetch the rest`);
  });

  it("toolbelt.call: the gateway hands its continuation argument to the call it makes (a schema that lists it)", async () => {
    const first = await rest({ tool: "toolbelt.call", args: { tool: "big.text" } });
    expect(first.status).toBe(200);
    const inner = first.body.result as CallResponse;
    const whole = await reassemble(inner, async (continuation) => {
      const r = await rest({ tool: "toolbelt.call", args: { tool: "big.text", continuation } });
      return r.body.result as CallResponse;
    });
    expect(whole.text).toBe(TEXT_JSON);
    expect(whole.maxTokens).toBeLessThanOrEqual(DEFAULT_RESULT_BUDGET_TOKENS);
  });

  describe("MCP", () => {
    let client: AnyClient;
    beforeAll(async () => {
      client = await connect(`${api.url}/mcp`, TEST_KEYS.alice, "2026-07-28");
    });
    afterAll(() => client.close());

    it("call_tool takes the continuation as an argument", async () => {
      const first = mcpPart(await client.callTool({ name: "call_tool", arguments: { tool: "big_text" } }));
      const whole = await reassemble(first, async (continuation) =>
        mcpPart(await client.callTool({ name: "call_tool", arguments: { tool: "big_text", continuation } })),
      );
      expect(whole.text).toBe(TEXT_JSON);
    });

    it("a direct tools/call takes it in _meta, and the marker tells a model how to go on", async () => {
      const raw = await client.callTool({ name: "big_json" });
      const marker = (raw.content as { text: string }[])[1]!.text;
      expect(marker).toMatch(/over big_json's token budget: this is characters 0 to \d+ of \d{7} of the answer's JSON text; for the next part call call_tool/);
      const whole = await reassemble(mcpPart(raw), async (continuation) =>
        mcpPart(await client.callTool({ name: "big_json", _meta: { [CONTINUATION_META]: continuation } } as never)),
      );
      expect(whole.text).toBe(JSON_TEXT);
    });
  });
});

describe("continuations", () => {
  it("an answer within the budget is not cut", async () => {
    const r = await rest({ tool: "big.small" });
    expect(r.body).toEqual({ tool: "big.small", result: { text: "small" } });
  });

  it("belong to the principal and the tool they were issued for, until they expire", async () => {
    const first = await rest({ tool: "big.json" });
    const token = first.body.continuation!.token!;
    expect((await rest({ tool: "big.json", continuation: token }, "bob")).body.error?.code).toBe("NOT_FOUND");
    expect((await rest({ tool: "big.text", continuation: token })).body.error?.code).toBe("NOT_FOUND");
    expect((await rest({ tool: "big.json", continuation: `${token.slice(0, -1)}x` })).status).toBe(404);
    expect((await rest({ tool: "big.json", continuation: token })).status).toBe(200);
    clock += (TTL_SECS + 1) * 1000;
    const expired = await rest({ tool: "big.json", continuation: token });
    expect(expired.status).toBe(404);
    expect(expired.body.error?.code).toBe("NOT_FOUND");
  });

  it("cuts and continuations are counted in the audit", () => {
    const first = audits.filter((a) => a.outcome === "OK" && (a as { result_part?: string }).result_part === "first");
    const next = audits.filter((a) => a.outcome === "OK" && (a as { result_part?: string }).result_part === "next");
    expect(first.length).toBeGreaterThanOrEqual(5);
    expect(first.every((a) => (a as { result_chars?: number }).result_chars! > 1_000_000)).toBe(true);
    expect(next.length).toBeGreaterThan(100);
  });
});
