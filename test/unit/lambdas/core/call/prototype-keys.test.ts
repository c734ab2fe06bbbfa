// Bug class: user- or registry-controlled strings ("constructor", "__proto__", "toString") used as keys
// of plain objects reached Object.prototype. Templates and reshape must treat them as ordinary keys.
import { describe, expect, it } from "vitest";
import type { CatalogTool } from "../../../../../registry/contract/artifact.js";
import { createBuiltinBackend, reshape } from "../../../../../lambdas/backends/builtin.js";
import type { CallAudit } from "../../../../../lambdas/core/call/audit.js";
import { createCallGateway } from "../../../../../lambdas/core/call/gateway.js";
import type { ToolBackend } from "../../../../../lambdas/core/call/types.js";
import { MAX_RESERVED_KEY_PROBLEMS, reservedKeys } from "../../../../../lambdas/core/call/validate.js";
import { MAX_ECHOED_CHARS, ToolbeltError } from "../../../../../lambdas/core/errors.js";
import type { Caller } from "../../../../../lambdas/core/ports.js";
import { globMatcher } from "../../../../../registry/contract/globs.js";
import { loadSecretsIntoEnv, parseSecretSpec } from "../../../../../lambdas/secrets.js";
import { lookup, renderJson, renderString, renderValue, Secrets, type RenderContext } from "../../../../../lambdas/backends/templates.js";

const ctx = (input: Record<string, unknown>, env: Record<string, string> = {}): RenderContext => ({ input, env, secrets: new Secrets(), tool: "t.x" });

describe("templates with prototype-named input paths", () => {
  it("treats an absent `constructor` / `toString` / `__proto__` input as absent", () => {
    for (const key of ["constructor", "toString", "hasOwnProperty", "valueOf", "__proto__"]) {
      expect(lookup({}, key)).toBeUndefined();
      expect(renderValue(`{{input.${key}}}`, ctx({}))).toBeUndefined();
      expect(renderString(`[{{input.${key}}}]`, ctx({}))).toBe("[]");
      expect(renderString(`q={{input.${key}}}`, ctx({}), encodeURIComponent)).toBe("q=");
    }
    expect(renderString("{{input.__proto__.polluted}}", ctx({}))).toBe("");
    expect(renderJson({ a: "{{input.constructor}}", b: "{{input.x}}" }, ctx({ x: 1 }))).toEqual({ b: 1 });
  });

  it("reads a prototype-named input that the caller did send", () => {
    const input = JSON.parse('{"constructor":"c-value","__proto__":{"inner":"p-value"},"toString":7}') as Record<string, unknown>;
    expect(renderValue("{{input.constructor}}", ctx(input))).toBe("c-value");
    expect(renderString("{{input.__proto__.inner}}/{{input.toString}}", ctx(input))).toBe("p-value/7");
  });

  it("keeps a `__proto__` key of a JSON body template as a key", () => {
    const template = JSON.parse('{"__proto__":{"polluted":"{{input.x}}"},"y":"{{input.x}}"}') as unknown;
    const out = renderJson(template, ctx({ x: "v" })) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(out.polluted).toBeUndefined();
    expect(JSON.parse(JSON.stringify(out))).toEqual(JSON.parse('{"__proto__":{"polluted":"v"},"y":"v"}'));
    expect(Object.hasOwn(out, "__proto__")).toBe(true);
  });

  it("treats `${constructor}` and `${toString}` as unset environment variables", () => {
    for (const name of ["constructor", "toString", "__proto__", "valueOf"]) {
      expect(() => renderString(`\${${name}}`, ctx({}))).toThrowError(
        expect.objectContaining({ code: "UNAVAILABLE", details: { tool: "t.x", variable: name } }),
      );
    }
    expect(renderString("${constructor}", ctx({}, JSON.parse('{"constructor":"set"}') as Record<string, string>))).toBe("set");
  });
});

describe("reshape with prototype-named keys and paths", () => {
  it("maps `constructor` and `__proto__.polluted` paths of data without them to null", () => {
    expect(reshape({ data: { a: 1 }, mapping: { x: "constructor", y: "__proto__.polluted", z: "a.toString", w: "/__proto__" } }, "toolbelt.reshape")).toEqual({
      x: null,
      y: null,
      z: null,
      w: null,
    });
  });

  it("keeps an output key `__proto__` as a key, never the result's prototype", () => {
    const data = { evil: { polluted: "yes" }, n: 1 };
    const out = reshape({ data, mapping: JSON.parse('{"__proto__":"evil","constructor":"n"}') }, "toolbelt.reshape");
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(out.polluted).toBeUndefined();
    expect(Object.keys(out).sort()).toEqual(["__proto__", "constructor"]);
    expect(JSON.stringify(out)).toBe('{"__proto__":{"polluted":"yes"},"constructor":1}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("call gateway with prototype-named tools, arguments and backends", () => {
  const schema = {
    type: "object",
    properties: JSON.parse('{"__proto__":{"type":"string"},"constructor":{"type":"string"},"toString":{"type":"string"}}') as Record<string, unknown>,
    additionalProperties: false,
  };
  const tool = (name: string, over: Partial<CatalogTool> = {}): CatalogTool => ({
    name,
    family: name.split(".")[0]!,
    kind: "builtin",
    description: `${name}.`,
    input_schema: schema,
    governance: {},
    timeout_ms: 1000,
    backend: { kind: "builtin", handler: "echo" },
    source: "test",
    ...over,
  });
  const setup = () => {
    const lines: { message: string; fields?: Record<string, unknown> }[] = [];
    const audits: CallAudit[] = [];
    const tools = [
      tool("x.constructor", { governance: { consequential: true, affects: "constructor" } }),
      // An artifact that names a backend kind through a prototype key must not reach Object.prototype.
      tool("x.odd", { backend: { kind: "toString" } as unknown as CatalogTool["backend"] }),
    ];
    const invoked: string[] = [];
    const echo: ToolBackend = {
      invoke: async (t, args) => {
        invoked.push(t.name);
        return { result: { args } };
      },
    };
    const gateway = createCallGateway({
      tools: new Map(tools.map((t) => [t.name, t])),
      backends: { builtin: echo },
      misses: { record: async () => undefined },
      log: (_level, message, fields) => lines.push({ message, ...(fields ? { fields } : {}) }),
      audit: (r) => audits.push(r),
      now: () => new Date("2026-12-01T00:00:00Z"),
    });
    const caller: Caller = { principal: "p1", admin: false, granted: globMatcher(["*"]) };
    return { gateway, caller, lines, audits, invoked };
  };

  it("passes prototype-named arguments that are not reserved (toString) through as data", async () => {
    const { gateway, caller } = setup();
    const args = { toString: "t" };
    const res = await gateway.call({ tool: "x.constructor", args }, caller);
    expect(JSON.stringify(res.result)).toBe('{"args":{"toString":"t"}}');
  });

  it("accepts a call that omits the optional parameters named `constructor` and `toString`", async () => {
    const { gateway, caller } = setup();
    await expect(gateway.call({ tool: "x.constructor", args: {} }, caller)).resolves.toMatchObject({ result: { args: {} } });
  });

  it("refuses a `__proto__` argument with its path and never reaches the backend, without polluting", async () => {
    const { gateway, caller, invoked } = setup();
    const args = JSON.parse('{"__proto__":{"polluted":"yes"}}') as Record<string, unknown>;
    await expect(gateway.call({ tool: "x.constructor", args }, caller)).rejects.toMatchObject({
      code: "INVALID_ARGUMENTS",
      details: { tool: "x.constructor", problems: [{ path: "$.__proto__", keyword: "reserved_key" }] },
    });
    expect(invoked).toEqual([]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("audits `affects` only when the argument was sent, never Object's constructor", async () => {
    const { gateway, caller, lines, audits } = setup();
    await gateway.call({ tool: "x.constructor", args: {} }, caller);
    expect(lines).toEqual([]);
    expect(audits).toHaveLength(1);
    expect(audits[0]).toMatchObject({ tool: "x.constructor", principal: "p1", affects: "constructor", consequential: true });
    expect(audits[0]).not.toHaveProperty("affected_digest");
    expect(audits[0]).not.toHaveProperty("affected");
  });

  it("answers NOT_IMPLEMENTED for a backend kind named like an Object.prototype member", async () => {
    const { gateway, caller } = setup();
    await expect(gateway.call({ tool: "x.odd", args: {} }, caller)).rejects.toMatchObject({ code: "NOT_IMPLEMENTED" });
  });

  it.each(["__proto__", "toString", "hasOwnProperty", "valueOf"])("answers an unknown tool named %j as not found", async (name) => {
    const { gateway, caller } = setup();
    await expect(gateway.call({ tool: name, args: {} }, caller)).rejects.toMatchObject({ code: "TOOL_NOT_FOUND" });
  });
});

describe("reserved keys in call arguments (bug: an `__proto__` key was dropped silently)", () => {
  const tool: CatalogTool = {
    name: "x.echo",
    family: "x",
    kind: "builtin",
    description: "Echo.",
    // The most permissive schema: only the reserved-key rule can refuse these arguments.
    input_schema: { type: "object" },
    governance: {},
    timeout_ms: 1000,
    backend: { kind: "builtin", handler: "echo" },
    source: "test",
  };
  const invoked: unknown[] = [];
  const gateway = createCallGateway({
    tools: new Map([[tool.name, tool]]),
    backends: { builtin: { invoke: async (_t, args) => (invoked.push(args), { result: args }) } },
  });
  const caller: Caller = { principal: "p1", admin: false, granted: globMatcher(["*"]) };
  const refusal = (text: string) =>
    gateway.call({ tool: "x.echo", args: JSON.parse(text) as Record<string, unknown> }, caller).then(
      () => undefined,
      (e: unknown) => e,
    );

  it.each([
    ['{"__proto__":{"isAdmin":true}}', ["$.__proto__"]],
    ['{"constructor":{"prototype":{"isAdmin":true}}}', ["$.constructor", "$.constructor.prototype"]],
    ['{"a":{"b":[1,{"__proto__":{}}]}}', ["$.a.b[1].__proto__"]],
    ['{"list":[{"ok":1},{"prototype":2}],"x":{"constructor":"c"}}', ["$.list[1].prototype", "$.x.constructor"]],
    ['{"data":{"__proto__":1,"constructor":2,"prototype":3}}', ["$.data.__proto__", "$.data.constructor", "$.data.prototype"]],
  ])("refuses %s with 422 and the path of each reserved key", async (text, paths) => {
    invoked.length = 0;
    const e = (await refusal(text)) as ToolbeltError;
    expect(e).toBeInstanceOf(ToolbeltError);
    expect(e.status).toBe(422);
    expect(e.code).toBe("INVALID_ARGUMENTS");
    expect((e.details.problems as { path: string }[]).map((p) => p.path)).toEqual(paths);
    expect(e.message).toContain("reserved key name");
    expect(e.message).toContain(paths[0]);
    expect(invoked).toEqual([]);
  });

  it("accepts reserved words as values and ordinary look-alike keys", async () => {
    const args = { note: "__proto__", kind: "constructor", constructors: 1, Prototype: 2, proto: 3, list: ["prototype"] };
    await expect(gateway.call({ tool: "x.echo", args }, caller)).resolves.toMatchObject({ result: args });
  });

  it("lists at most a capped number of reserved keys and counts the rest, so a hostile body cannot amplify the answer", async () => {
    const many = `{"a":[${Array.from({ length: MAX_RESERVED_KEY_PROBLEMS + 30 }, () => '{"__proto__":1}').join(",")}]}`;
    const e = (await refusal(many)) as ToolbeltError;
    expect((e.details.problems as unknown[]).length).toBe(MAX_RESERVED_KEY_PROBLEMS);
    expect(e.details.more_problems).toBe(30);
    expect(e.message).toMatch(/; and 30 more$/);
  });

  it("walks deeply nested arguments without recursion", () => {
    let deep: unknown = JSON.parse('{"__proto__":0}');
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const found = reservedKeys(deep);
    expect(found.count).toBe(1);
    // The path is clipped in the middle (a 300 KB path would amplify the answer): its start and its last key stay.
    const { path } = found.problems[0]!;
    expect(path).toHaveLength(MAX_ECHOED_CHARS);
    expect(path).toMatch(/^\$(\[0\])+.*….*(\[0\])+\.__proto__$/);
  });

  it("refuses reserved keys in the arguments toolbelt.call passes on", async () => {
    const call: CatalogTool = { ...tool, name: "toolbelt.call", family: "toolbelt", backend: { kind: "builtin", handler: "call" } };
    const nested = createCallGateway({
      tools: new Map([
        [tool.name, tool],
        [call.name, call],
      ]),
      backends: { builtin: createBuiltinBackend({}) },
    });
    const args = JSON.parse('{"tool":"x.echo","args":{"__proto__":{"isAdmin":true}}}') as Record<string, unknown>;
    await expect(nested.call({ tool: "toolbelt.call", args }, caller)).rejects.toMatchObject({
      code: "INVALID_ARGUMENTS",
      details: { tool: "toolbelt.call", problems: [{ path: "$.args.__proto__" }] },
    });
  });
});

describe("process.env and secrets with prototype names", () => {
  it("renders a real variable of process.env and refuses `${constructor}` against it", () => {
    process.env.TOOLBELT_PROTO_TEST = "from-env";
    try {
      const c: RenderContext = { input: {}, env: process.env, secrets: new Secrets(), tool: "t.x" };
      expect(renderString("${TOOLBELT_PROTO_TEST}", c)).toBe("from-env");
      expect(() => renderString("${constructor}", c)).toThrowError(expect.objectContaining({ code: "UNAVAILABLE" }));
    } finally {
      delete process.env.TOOLBELT_PROTO_TEST;
    }
  });

  it("loads a secret named `constructor` into process.env (it inherits one, which is not a set variable)", async () => {
    const env: Record<string, string | undefined> = process.env;
    const before = env.TOOLBELT_SECRETS;
    env.TOOLBELT_SECRETS = JSON.stringify({ constructor: "/p/ctor" });
    try {
      const read = async (name: string) => (name === "/p/ctor" ? "ctor-value" : undefined);
      expect(await loadSecretsIntoEnv(env, read)).toEqual(["constructor"]);
      expect(Object.hasOwn(env, "constructor") && env["constructor"]).toBe("ctor-value");
    } finally {
      delete env["constructor"];
      if (before === undefined) delete env.TOOLBELT_SECRETS;
      else env.TOOLBELT_SECRETS = before;
    }
  });

  it("refuses a secret spec entry named `__proto__` instead of dropping it silently", () => {
    expect(() => parseSecretSpec('{"__proto__":"/p/x"}')).toThrowError(expect.objectContaining({ code: "INTERNAL" }));
    expect(parseSecretSpec('{"toString":"/p/x"}')).toEqual({ toString: "/p/x" });
  });
});
