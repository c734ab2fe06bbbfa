// The builtin handlers the registry check accepts are the ones the gateway implements.
import { describe, expect, it } from "vitest";
import { BUILTIN_HANDLERS } from "../../../../registry/contract/tool.js";
import { createBuiltinBackend } from "../../../../lambdas/backends/builtin.js";
import type { BackendContext } from "../../../../lambdas/core/call/types.js";
import { testTool } from "../../../helpers/artifact.js";

const ctx: BackendContext = {
  signal: new AbortController().signal,
  timeoutMs: 1000,
  caller: { principal: "p", admin: false, granted: () => true },
  depth: 0,
  call: async (r) => ({ tool: r.tool, result: "called" }) as never,
};

describe("builtin backend", () => {
  const backend = createBuiltinBackend({ finder: { find: async () => ({ mode: "keyword", verdict: "none", tools: [], always: [] }) } });

  it.each(BUILTIN_HANDLERS)("implements `%s`, which registry:check accepts", async (handler) => {
    const tool = testTool("toolbelt.x", { backend: { kind: "builtin", handler } });
    const out = await backend.invoke(tool, { query: "q", tool: "a.b", data: {}, mapping: {} }, ctx);
    expect(out).toHaveProperty("result");
  });

  it("answers 501 for a handler it does not implement (a hand-made artifact; the check refuses such tool files)", async () => {
    const tool = testTool("toolbelt.x", { backend: { kind: "builtin", handler: "nope" } });
    await expect(backend.invoke(tool, {}, ctx)).rejects.toMatchObject({ code: "NOT_IMPLEMENTED", details: { handler: "nope" } });
  });
});
