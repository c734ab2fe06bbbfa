// The gateway's orchestration with in-memory ports (the backends are tested against real upstreams in integration).
import { describe, expect, it } from "vitest";
import type { CatalogTool } from "../../../../../registry/contract/artifact.js";
import { createBuiltinBackend } from "../../../../../lambdas/backends/builtin.js";
import { digestOf, type CallAudit } from "../../../../../lambdas/core/call/audit.js";
import { createCallGateway } from "../../../../../lambdas/core/call/gateway.js";
import { ToolbeltError } from "../../../../../lambdas/core/errors.js";
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

function setup(opts: { grants?: string[]; backend?: ToolBackend; pinHangs?: boolean } = {}) {
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
      check: async (s, c) => {
        sessionChecks.push(s);
        if (s === "someone-elses") throw Object.assign(new Error("nope"), { code: "SESSION_NOT_FOUND" });
        return { id: s, principal: c.principal, declared: [], pins: [], created_at: 0, expires_at: 0 };
      },
      recordUse: async (s, c, t) => {
        if (t === "math.half") throw new Error("store down");
        if (opts.pinHangs) await new Promise(() => undefined);
        pins.push(`${s}:${c.principal}:${t}`);
      },
    },
    now: () => new Date("2026-12-01T00:00:00Z"),
    ...(opts.pinHangs ? { pinWaitMs: 1 } : {}),
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

  it("answers once the tool has answered, without waiting past pinWaitMs for a pin that never lands", async () => {
    const { gateway, caller } = setup({ pinHangs: true });
    await expect(gateway.call({ tool: "math.double", args: { n: 4 }, session: "s1" }, caller)).resolves.toMatchObject({ result: { value: 8 } });
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

  describe("audit record", () => {
    const mail = tool("mail.send", {
      governance: { consequential: true, affects: "to", impact: 0.4 },
      input_schema: { type: "object", properties: { to: { type: "string" }, body: { type: "string" } }, required: ["to"] },
    });
    const caller: Caller = { principal: "p1", admin: false, granted: () => true };
    const audited = (t: CatalogTool, backend: ToolBackend) => {
      const records: CallAudit[] = [];
      const gateway = createCallGateway({ tools: new Map([[t.name, t]]), backends: { builtin: backend }, audit: (r) => records.push(r) });
      return { gateway, records };
    };

    it("names whom a consequential call affects by digest, never the arguments' values", async () => {
      const { gateway, records } = audited(mail, { invoke: async () => ({ result: "sent", upstream_status: 202 }) });
      const args = { to: "ada@example.com", body: "secret plans" };
      await gateway.call({ tool: "Mail.Send", args }, caller, { context: { request_id: "r1", correlation_id: "c1", via: "rest" } });
      expect(records).toEqual([
        {
          request_id: "r1",
          correlation_id: "c1",
          via: "rest",
          principal: "p1",
          tool: "mail.send",
          resolved_from: "Mail.Send",
          family: "mail",
          kind: "builtin",
          depth: 0,
          outcome: "OK",
          status: 200,
          latency_ms: expect.any(Number),
          upstream_status: 202,
          args_digest: digestOf(args),
          affects: "to",
          affected_digest: digestOf("ada@example.com"),
          impact: 0.4,
          consequential: true,
        },
      ]);
      expect(JSON.stringify(records)).not.toContain("ada@example.com");
      expect(JSON.stringify(records)).not.toContain("secret plans");
    });

    it("carries argument values only for a tool that opts in with audit_args", async () => {
      const open = { ...mail, governance: { ...mail.governance, audit_args: true } };
      const { gateway, records } = audited(open, { invoke: async () => ({ result: "sent" }) });
      await gateway.call({ tool: "mail.send", args: { to: "ada@example.com" } }, caller);
      expect(records[0]).toMatchObject({ args: { to: "ada@example.com" }, affected: "ada@example.com" });
      expect(records[0]).not.toHaveProperty("affected_digest");
    });

    it("records the error code, status and upstream status of a failed call, and a call to no tool", async () => {
      const { gateway, records } = audited(mail, {
        invoke: async () => {
          throw new ToolbeltError("UPSTREAM_ERROR", "upstream answered HTTP 503", { status: 503 });
        },
      });
      await expect(gateway.call({ tool: "mail.send", args: { to: "x" } }, caller)).rejects.toMatchObject({ code: "UPSTREAM_ERROR" });
      await expect(gateway.call({ tool: "nothing.here", args: {} }, caller)).rejects.toMatchObject({ code: "TOOL_NOT_FOUND" });
      expect(records.map(({ tool, outcome, status, upstream_status }) => ({ tool, outcome, status, upstream_status }))).toEqual([
        { tool: "mail.send", outcome: "UPSTREAM_ERROR", status: 502, upstream_status: 503 },
        { tool: "nothing.here", outcome: "TOOL_NOT_FOUND", status: 404, upstream_status: undefined },
      ]);
    });

    it("is digest-equal for equal arguments in any key order (canonical JSON)", () => {
      expect(digestOf({ a: 1, b: { d: [1, { f: 2, e: 3 }], c: null } })).toBe(digestOf({ b: { c: null, d: [1, { e: 3, f: 2 }] }, a: 1 }));
      expect(digestOf({ a: 1 })).not.toBe(digestOf({ a: "1" }));
    });
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
