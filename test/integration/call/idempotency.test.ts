// Idempotent calls against dynalite (the real wire protocol): concurrent duplicates run the tool once,
// repeats replay the first answer, a reused key with other arguments is refused, failures free the key,
// the window ends; over REST (`Idempotency-Key`) and MCP (`idempotency_key`).
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { idempotent, type IdempotentRequest } from "../../../lambdas/core/call/idempotency.js";
import { createCallModule, type CallModule } from "../../../lambdas/http/routes/call.js";
import { createMcpModule, type McpModule } from "../../../lambdas/http/routes/mcp.js";
import { DynamoIdempotencyStore } from "../../../lambdas/stores/idempotency.js";
import { sha256Hex } from "../../../lambdas/core/auth.js";
import { startTestApi, TEST_KEYS, type TestApi } from "../../helpers/api.js";
import { testArtifactInput } from "../../helpers/artifact.js";
import { startDynalite, type TestDynamo } from "../../helpers/dynalite.js";
import { catalogTool, latch, type Loopback, metaTools, startLoopback } from "./helpers.js";

const WINDOW_SECS = 60;
let clock = Date.parse("2026-12-01T12:00:00Z");
const hits: Record<string, number> = {};
let hold = latch();
let held: () => void = () => undefined;
let upstream: Loopback;
let dynamo: TestDynamo;
let api: TestApi;
let calls: CallModule;
let mcp: McpModule;

beforeAll(async () => {
  upstream = await startLoopback((req, res, body) => {
    const path = req.url ?? "";
    hits[path] = (hits[path] ?? 0) + 1;
    const answer = (status: number) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify({ charged: JSON.parse(body || "{}"), n: hits[path] }));
    };
    if (path === "/slow") {
      held();
      void hold.promise.then(() => answer(200));
    } else answer(path === "/flaky" && hits[path] === 1 ? 503 : 200);
  });
  const http = (path: string) => ({
    kind: "http" as const,
    method: "POST",
    url: `${upstream.url}${path}`,
    body: { account: "{{input.account}}" },
    output: "json" as const,
  });
  const account = { type: "object", properties: { account: { type: "string" }, cents: { type: "integer" } }, required: ["account"] };
  const governance = { consequential: true, affects: "account" };
  dynamo = await startDynalite();
  const idempotency = { store: new DynamoIdempotencyStore(dynamo.client, dynamo.table), windowSecs: WINDOW_SECS };
  calls = createCallModule({ env: {}, idempotency });
  mcp = createMcpModule({ env: {}, idempotency });
  api = await startTestApi({
    input: testArtifactInput([
      ...metaTools(),
      catalogTool("pay.charge", http("/charge"), { description: "Charge an account.", input_schema: account, governance }),
      catalogTool("pay.slow", http("/slow"), { description: "Charge an account slowly.", input_schema: account, governance }),
      catalogTool("pay.flaky", http("/flaky"), { description: "Charge through a flaky processor.", input_schema: account, governance }),
      catalogTool("pay.refund", http("/refund"), { description: "Refund an account.", input_schema: account, governance }),
    ]),
    dynamo,
    // alice and carol may both charge: one key is scoped to the principal that sent it.
    policy: {
      version: 1,
      principals: (["alice", "carol"] as const).map((id) => ({ id, keys: [sha256Hex(TEST_KEYS[id])], allow: ["*"], deny: [], admin: false })),
    },
    clock: () => clock,
    extraRoutes: [calls, mcp],
  });
});

afterAll(async () => {
  hold.release();
  await api.close();
  await calls.close();
  await mcp.close();
  await dynamo.close();
  await upstream.close();
});

const call = (json: unknown, key?: string, as: "alice" | "carol" = "alice") =>
  api.request("/v1/call", { as, json, ...(key !== undefined ? { headers: { "idempotency-key": key } } : {}) });
const codeOf = async (res: Response) => ((await res.json()) as { error?: { code: string } }).error?.code;

describe("Idempotency-Key on POST /v1/call", () => {
  it("runs the tool once for concurrent duplicates: one answers, the others get 409 IDEMPOTENCY_IN_PROGRESS, a later repeat replays the answer", async () => {
    hold = latch();
    const arrived = new Promise<void>((r) => (held = r));
    const body = { tool: "pay.slow", args: { account: "acct-1", cents: 500 } };
    const settled: Response[] = [];
    let othersDone: () => void = () => undefined;
    const others = new Promise<void>((r) => (othersDone = r));
    const all = Array.from({ length: 6 }, () =>
      call(body, "order-1").then((res) => {
        settled.push(res);
        if (settled.length === 5) othersDone();
        return res;
      }),
    );
    // Five answer while the one that claimed the key is still waiting on the upstream.
    await Promise.all([arrived, others]);
    expect(settled.map((r) => r.status)).toEqual([409, 409, 409, 409, 409]);
    expect(await Promise.all(settled.map(codeOf))).toEqual(Array(5).fill("IDEMPOTENCY_IN_PROGRESS"));
    hold.release();
    const answers = await Promise.all(all);
    const first = answers.find((r) => r.status === 200)!;
    const firstBody = await first.json();
    expect(hits["/slow"]).toBe(1);

    const again = await call(body, "order-1");
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual(firstBody);
    expect(hits["/slow"]).toBe(1);
    const audit = api.logger.entries.filter((e) => e.message === "call" && e.fields.tool === "pay.slow").map((e) => e.fields.idempotency);
    expect(audit.filter((i) => i === "first")).toHaveLength(1);
    expect(audit.at(-1)).toBe("replayed");
  });

  it("refuses the key with other arguments (409 IDEMPOTENCY_KEY_REUSED); another principal's same key is its own", async () => {
    expect((await call({ tool: "pay.charge", args: { account: "acct-2", cents: 1 } }, "k-2")).status).toBe(200);
    const reused = await call({ tool: "pay.charge", args: { account: "acct-2", cents: 2 } }, "k-2");
    expect(reused.status).toBe(409);
    expect(await codeOf(reused)).toBe("IDEMPOTENCY_KEY_REUSED");
    expect(await codeOf(await call({ tool: "pay.refund", args: { account: "acct-2", cents: 1 } }, "k-2"))).toBe("IDEMPOTENCY_KEY_REUSED");
    expect(hits["/charge"]).toBe(1);
    expect((await call({ tool: "pay.charge", args: { account: "acct-2", cents: 1 } }, "k-2", "carol")).status).toBe(200);
    expect(hits["/charge"]).toBe(2);
  });

  it("a retry that spelled the tool another way (model-safe name, case, separators) got 409 IDEMPOTENCY_KEY_REUSED: it replays the first answer", async () => {
    const first = await call({ tool: "pay.charge", args: { account: "acct-7" } }, "k-7");
    expect(first.status).toBe(200);
    const answer = await first.json();
    const before = hits["/charge"];
    for (const spelling of ["pay_charge", "PAY.Charge", "pay-charge", "pay.chrage"]) {
      const again = await call({ tool: spelling, args: { account: "acct-7" } }, "k-7");
      expect(again.status, spelling).toBe(200);
      expect(await again.json()).toEqual(answer);
    }
    expect(hits["/charge"]).toBe(before);
    // Another tool under the same key is still another call.
    expect(await codeOf(await call({ tool: "pay_refund", args: { account: "acct-7" } }, "k-7"))).toBe("IDEMPOTENCY_KEY_REUSED");
  });

  it("frees the key when the call fails, so a retry runs; the success is then replayed", async () => {
    const body = { tool: "pay.flaky", args: { account: "acct-3" } };
    expect((await call(body, "k-3")).status).toBe(502);
    expect((await call(body, "k-3")).status).toBe(200);
    expect((await call(body, "k-3")).status).toBe(200);
    expect(hits["/flaky"]).toBe(2);
  });

  it("runs the tool again once the window has passed", async () => {
    const body = { tool: "pay.charge", args: { account: "acct-4" } };
    const before = hits["/charge"] ?? 0;
    await call(body, "k-4");
    clock += (WINDOW_SECS - 1) * 1000;
    await call(body, "k-4");
    expect(hits["/charge"]).toBe(before + 1);
    clock += 2000;
    expect((await call(body, "k-4")).status).toBe(200);
    expect(hits["/charge"]).toBe(before + 2);
  });

  it("answers 400 naming the header for a key that is empty, longer than 255 characters or not printable ASCII", async () => {
    for (const bad of ["", "k".repeat(256), "clé", "tab\there"]) {
      const res = await call({ tool: "pay.charge", args: { account: "acct-5" } }, bad);
      expect(res.status, JSON.stringify(bad)).toBe(400);
      const err = ((await res.json()) as { error: { code: string; message: string } }).error;
      expect(err.code).toBe("INVALID_REQUEST");
      expect(err.message).toContain("Idempotency-Key");
    }
    expect((await call({ tool: "pay.charge", args: { account: "acct-5" } }, "k".repeat(255))).status).toBe(200);
  });

  it("takes the idempotency_key argument of MCP call_tool the same way", async () => {
    const before = hits["/charge"] ?? 0;
    const rpc = (id: number) =>
      api
        .request("/mcp", {
          json: {
            jsonrpc: "2.0",
            id,
            method: "tools/call",
            params: { name: "call_tool", arguments: { tool: "pay_charge", args: { account: "acct-6" }, idempotency_key: "mcp-k-6" } },
          },
          headers: { accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25" },
        })
        .then((r) => r.json() as Promise<{ result: { isError?: boolean; structuredContent?: unknown } }>);
    const first = await rpc(1);
    const second = await rpc(2);
    expect(first.result.isError).toBeFalsy();
    expect(second.result.structuredContent).toEqual(first.result.structuredContent);
    expect(hits["/charge"]).toBe(before + 1);
  });
});

describe("DynamoIdempotencyStore", () => {
  const store = () => new DynamoIdempotencyStore(dynamo.client, dynamo.table);
  const options = () => ({ store: store(), windowSecs: WINDOW_SECS });
  const run = (now: number, request: IdempotentRequest = { tool: "x", args: { a: 1 }, session: null }) => ({
    principal: "p",
    key: `store-${now}`,
    request,
    timeoutMs: 1000,
    now,
  });

  it("lets a claim whose holder died be taken over after its lock, and ignores the late holder's answer", async () => {
    const now = Date.parse("2026-12-01T13:00:00Z");
    const s = store();
    const base = { scope: "abandoned", fingerprint: "f", expires_at: now / 1000 + 60 };
    expect(await s.claim({ ...base, owner: "dead", locked_until: now + 1000 }, now)).toEqual({ claimed: true });
    expect(await s.claim({ ...base, owner: "next", locked_until: now + 5000 }, now + 500)).toMatchObject({
      claimed: false,
      existing: { status: "in_progress" },
    });
    expect(await s.claim({ ...base, owner: "next", locked_until: now + 5000 }, now + 1000)).toEqual({ claimed: true });
    await s.complete("abandoned", "dead", { tool: "x", result: "late" });
    await s.complete("abandoned", "next", { tool: "x", result: "kept" });
    expect(await s.claim({ ...base, owner: "third", locked_until: now + 9000 }, now + 2000)).toMatchObject({
      claimed: false,
      existing: { status: "done", response: { result: "kept" } },
    });
  });

  it("keeps no answer too large for an item: a repeat gets 409 saying so, and the tool does not run again", async () => {
    const now = Date.parse("2026-12-01T14:00:00Z");
    // Random bytes do not compress: 600 KB of base64 stays far above the item limit gzipped.
    const big = randomBytes(450_000).toString("base64");
    let runs = 0;
    const execute = async () => {
      runs++;
      return { tool: "x", result: big };
    };
    await expect(idempotent(options(), run(now), execute)).resolves.toMatchObject({ replayed: false });
    await expect(idempotent(options(), run(now), execute)).rejects.toMatchObject({ code: "CONFLICT", details: { result_bytes: expect.any(Number) } });
    expect(runs).toBe(1);
  });
});
