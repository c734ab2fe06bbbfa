// The gateway's orchestration with in-memory ports (the backends are tested against real upstreams in integration).
import { describe, expect, it } from "vitest";
import type { CatalogTool } from "../../../../../registry/contract/artifact.js";
import { createBuiltinBackend } from "../../../../../lambdas/backends/builtin.js";
import { createCallGateway } from "../../../../../lambdas/core/call/gateway.js";
import type { ToolBackend } from "../../../../../lambdas/core/call/types.js";
import type { Caller, Miss } from "../../../../../lambdas/core/ports.js";
import { globMatcher } from "../../../../../registry/contract/globs.js";

const tool = (name: string, over: Partial<CatalogTool> = {}): CatalogTool => ({
  name,
  family: name.split(".")[0]!,
  kind: "builtin",
  description: `${name}.`,
  input_schema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"], additionalProperties: false },
  governance: {},
  timeout_ms: 1000,
  backend: { kind: "builtin", handler: "echo" },
  source: "test",
  ...over,
});

function setup(opts: { grants?: string[]; backend?: ToolBackend } = {}) {
  const tools = [
    tool("math.double"),
    tool("math.half", { output_schema: { type: "object", properties: { value: { type: "number" } }, required: ["value"] } }),
    tool("math.hang", { timeout_ms: 50 }),
    tool("admin.wipe"),
    tool("toolbelt.call", { input_schema: { type: "object" }, backend: { kind: "builtin", handler: "call" } }),
    tool("toolbelt.reshape", { input_schema: { type: "object" }, backend: { kind: "builtin", handler: "reshape" } }),
    tool("imported.lookup", { input_schema: { type: "object" }, backend: { kind: "builtin", handler: "unavailable" } }),
    tool("toolbelt.mystery", { input_schema: { type: "object" }, backend: { kind: "builtin", handler: "mystery" } }),
    tool("llm.summarize", { kind: "prompt", backend: { kind: "prompt", prompt: "x", model: "chat" } }),
  ];
  const invoked: string[] = [];
  const builtin = createBuiltinBackend();
  const backend: ToolBackend = opts.backend ?? {
    async invoke(t, args, ctx) {
      invoked.push(t.name);
      if (t.backend.kind === "builtin" && t.backend.handler !== "echo") return builtin.invoke(t, args, ctx);
      if (t.name === "math.hang") return new Promise(() => undefined);
      if (t.name === "math.half") return { result: { value: args.n === 0 ? "zero" : (args.n as number) / 2 } };
      return { result: { value: (args.n as number) * 2 } };
    },
  };
  const misses: Miss[] = [];
  const pins: string[] = [];
  const sessionChecks: string[] = [];
  const gateway = createCallGateway({
    tools: new Map(tools.map((t) => [t.name, t])),
    backends: { builtin: backend },
    misses: { record: async (m) => void misses.push(m) },
    sessions: {
      get: async (s, c) => {
        sessionChecks.push(s);
        if (s === "someone-elses") throw Object.assign(new Error("nope"), { code: "SESSION_NOT_FOUND" });
        return { id: s, principal: c.principal, declared: [], pins: [], version: 1, created_at: 0, expires_at: 0 };
      },
      recordUse: async (s, c, t) => {
        if (t === "math.half") throw new Error("store down");
        pins.push(`${s}:${c.principal}:${t}`);
      },
    },
    now: () => new Date("2026-12-01T00:00:00Z"),
  });
  const caller: Caller = { principal: "p1", admin: false, granted: globMatcher(opts.grants ?? ["math.*", "toolbelt.*", "llm.*", "imported.*"]) };
  return { gateway, caller, invoked, misses, pins, sessionChecks };
}

describe("call gateway", () => {
  it("validates, dispatches and pins the tool on the session", async () => {
    const { gateway, caller, pins } = setup();
    await expect(gateway.call({ tool: "math.double", args: { n: 4 }, session: "s1" }, caller)).resolves.toEqual({ tool: "math.double", result: { value: 8 } });
    expect(pins).toEqual(["s1:p1:math.double"]);
  });

  it("refuses an ungranted tool with 403 before looking at its arguments", async () => {
    const { gateway, caller, invoked } = setup();
    await expect(gateway.call({ tool: "admin.wipe", args: { bad: true } }, caller)).rejects.toMatchObject({ code: "TOOL_NOT_GRANTED", status: 403 });
    expect(invoked).toEqual([]);
  });

  it("refuses invalid arguments with 422 and every problem, before dispatch", async () => {
    const { gateway, caller, invoked } = setup();
    const err = await gateway.call({ tool: "math.double", args: { n: "four", m: 1 } }, caller).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "INVALID_ARGUMENTS", status: 422 });
    expect((err as { details: { problems: { path: string }[] } }).details.problems.map((p) => p.path)).toEqual(["$.m", "$.n"]);
    expect((err as Error).message).toContain("$.n must be an integer");
    expect(invoked).toEqual([]);
  });

  it("answers 504 when a backend never settles, and does not wait for it", async () => {
    const { gateway, caller } = setup();
    await expect(gateway.call({ tool: "math.hang", args: { n: 1 } }, caller)).rejects.toMatchObject({
      code: "UPSTREAM_TIMEOUT",
      status: 504,
      details: { tool: "math.hang", timeout_ms: 50 },
    });
  });

  it("cuts a tool's timeout to the time the invocation has left", async () => {
    const { gateway, caller } = setup();
    await expect(gateway.call({ tool: "math.hang", args: { n: 1 } }, caller, { maxTimeoutMs: 20 })).rejects.toMatchObject({
      code: "UPSTREAM_TIMEOUT",
      details: { timeout_ms: 20 },
    });
  });

  it("settles when the caller goes away", async () => {
    const { gateway, caller } = setup();
    const ac = new AbortController();
    const p = gateway.call({ tool: "math.hang", args: { n: 1 } }, caller, { signal: ac.signal });
    ac.abort();
    await expect(p).rejects.toMatchObject({ code: "UPSTREAM_ERROR" });
  });

  it("checks the output schema on the way out (502 with the path)", async () => {
    const { gateway, caller } = setup();
    await expect(gateway.call({ tool: "math.half", args: { n: 0 } }, caller)).rejects.toMatchObject({
      code: "OUTPUT_SCHEMA_MISMATCH",
      status: 502,
      details: { problems: [{ path: "$.value", keyword: "type" }] },
    });
  });

  it("returns the result when pinning fails: the tool already ran", async () => {
    const { gateway, caller, pins } = setup();
    await expect(gateway.call({ tool: "math.half", args: { n: 4 }, session: "s1" }, caller)).resolves.toMatchObject({ result: { value: 2 } });
    expect(pins).toEqual([]);
  });

  it("says what a near-miss resolved from and records the miss", async () => {
    const { gateway, caller, misses } = setup();
    await expect(gateway.call({ tool: "Math-Double", args: { n: 1 } }, caller)).resolves.toEqual({
      tool: "math.double",
      resolved_from: "Math-Double",
      resolution: "separators",
      result: { value: 2 },
    });
    expect(misses).toEqual([{ name: "Math-Double", principal: "p1", at: "2026-12-01T00:00:00.000Z", outcome: "resolved", resolved_to: "math.double" }]);
  });

  it("answers an unknown name with 404, granted suggestions, and a recorded miss", async () => {
    const { gateway, caller, misses } = setup();
    const err = await gateway.call({ tool: "math.triple", args: {} }, caller).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "TOOL_NOT_FOUND", status: 404 });
    expect((err as { details: { suggestions: string[] } }).details.suggestions).toContain("math.double");
    expect(misses.map((m) => m.outcome)).toEqual(["not_found"]);
  });

  it("checks the session before dispatch", async () => {
    const { gateway, caller, invoked } = setup();
    await expect(gateway.call({ tool: "math.double", args: { n: 1 }, session: "someone-elses" }, caller)).rejects.toThrow("nope");
    expect(invoked).toEqual([]);
  });

  it("nests toolbelt.call through the same authorization and pins the inner tool", async () => {
    const { gateway, caller, pins } = setup();
    await expect(gateway.call({ tool: "toolbelt.call", args: { tool: "double", args: { n: 5 } }, session: "s1" }, caller)).resolves.toEqual({
      tool: "toolbelt.call",
      result: { tool: "math.double", resolved_from: "double", resolution: "family_prefix", result: { value: 10 } },
    });
    expect(pins).toEqual(["s1:p1:math.double"]);
    await expect(gateway.call({ tool: "toolbelt.call", args: { tool: "admin.wipe", args: { n: 1 } } }, caller)).rejects.toMatchObject({
      code: "TOOL_NOT_GRANTED",
    });
  });

  it("refuses toolbelt.call calling itself (no recursion loops)", async () => {
    const { gateway, caller } = setup();
    await expect(
      gateway.call({ tool: "toolbelt.call", args: { tool: "toolbelt.call", args: { tool: "toolbelt.call", args: {} } } }, caller),
    ).rejects.toMatchObject({ code: "INVALID_ARGUMENTS", details: { problems: [{ keyword: "recursion" }] } });
  });

  it("writes an audit line naming whom a consequential call affects", async () => {
    const lines: unknown[] = [];
    const t = tool("mail.send", {
      governance: { consequential: true, affects: "to" },
      input_schema: { type: "object", properties: { to: { type: "string" } }, required: ["to"] },
    });
    const gateway = createCallGateway({
      tools: new Map([[t.name, t]]),
      backends: { builtin: { invoke: async () => ({ result: "sent" }) } },
      log: (level, message, fields) => lines.push({ level, message, fields }),
    });
    await gateway.call({ tool: "mail.send", args: { to: "ada@example.com" } }, { principal: "p1", admin: false, granted: () => true });
    expect(lines).toEqual([{ level: "info", message: "consequential call", fields: { tool: "mail.send", principal: "p1", affects: "ada@example.com" } }]);
  });

  it("says 501 for an imported tool without a backend, and for an unknown builtin handler", async () => {
    const { gateway, caller } = setup();
    await expect(gateway.call({ tool: "imported.lookup", args: {} }, caller)).rejects.toMatchObject({
      code: "NOT_IMPLEMENTED",
      status: 501,
      message: expect.stringContaining("without a backend"),
    });
    await expect(gateway.call({ tool: "toolbelt.mystery", args: {} }, caller)).rejects.toMatchObject({
      code: "NOT_IMPLEMENTED",
      details: { handler: "mystery" },
    });
  });

  it("says 501 for a kind without a configured backend", async () => {
    const { gateway, caller } = setup();
    await expect(gateway.call({ tool: "llm.summarize", args: { n: 1 } }, caller)).rejects.toMatchObject({ code: "NOT_IMPLEMENTED", status: 501 });
  });

  it("hides an unexpected backend error's text (it may hold a resolved secret)", async () => {
    const { gateway, caller } = setup({
      backend: {
        invoke: async () => {
          throw new Error("GET https://api.example/?key=SECRET failed");
        },
      },
    });
    const err = await gateway.call({ tool: "math.double", args: { n: 1 } }, caller).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "UPSTREAM_ERROR", status: 502 });
    expect(JSON.stringify({ m: (err as Error).message, d: (err as { details: unknown }).details })).not.toContain("SECRET");
  });
});
