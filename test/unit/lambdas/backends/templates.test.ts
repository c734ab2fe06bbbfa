import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { renderArgs } from "../../../../lambdas/backends/exec.js";
import { pick, reshape } from "../../../../lambdas/backends/builtin.js";
import { renderJson, renderString, Secrets, type RenderContext } from "../../../../lambdas/backends/templates.js";

const ctx = (input: Record<string, unknown>, env: Record<string, string> = {}): RenderContext => ({
  input,
  env,
  secrets: new Secrets(),
  tool: "t.x",
});

describe("templates", () => {
  it("renders input placeholders and env references, encoding only the input in URLs", () => {
    const c = ctx({ q: "a b/c", n: 3 }, { BASE: "http://h:1" });
    expect(renderString("${BASE}/s/{{input.q}}?n={{ input.n }}", c, encodeURIComponent)).toBe("http://h:1/s/a%20b%2Fc?n=3");
  });

  it("never expands `${VAR}` that arrives inside an input value", () => {
    const c = ctx({ q: "${SECRET}" }, { SECRET: "s3cr3t-value" });
    expect(renderString("q={{input.q}}", c)).toBe("q=${SECRET}");
  });

  it("fails with the variable's name (never a value) when the environment lacks it", () => {
    expect(() => renderString("Bearer ${TOKEN}", ctx({}))).toThrowError(
      expect.objectContaining({ code: "UNAVAILABLE", details: { tool: "t.x", variable: "TOKEN" } }),
    );
  });

  it("keeps the type of a sole placeholder in JSON bodies and drops absent ones", () => {
    const body = { n: "{{input.n}}", tags: "{{input.tags}}", label: "n={{input.n}}", missing: "{{input.nope}}", nested: { deep: "{{input.o.k}}" } };
    expect(renderJson(body, ctx({ n: 2, tags: ["a"], o: { k: true } }))).toEqual({ n: 2, tags: ["a"], label: "n=2", nested: { deep: true } });
  });

  it("redacts substituted secrets from text and JSON", () => {
    const c = ctx({}, { TOKEN: "tok-123456" });
    renderString("Bearer ${TOKEN}", c);
    expect(c.secrets.redact("auth was Bearer tok-123456")).toBe("auth was Bearer [redacted]");
    expect(c.secrets.redactDeep({ h: ["tok-123456"], "tok-123456": 1 })).toEqual({ h: ["[redacted]"], "[redacted]": 1 });
  });
});

describe("exec arguments", () => {
  it("are one argument per template, arrays of a sole placeholder expanding and absent ones dropping", () => {
    expect(
      renderArgs(["log", "-n", "{{input.count}}", "--", "{{input.paths}}", "{{input.none}}", "--author={{input.who}}"], {
        count: 5,
        paths: ["a.txt", "b c.txt"],
        who: "x; rm -rf /",
      }),
    ).toEqual(["log", "-n", "5", "--", "a.txt", "b c.txt", "--author=x; rm -rf /"]);
  });

  it("property: any input string arrives as exactly one argument, byte for byte", () => {
    fc.assert(
      fc.property(fc.string(), fc.array(fc.string(), { maxLength: 5 }), (x, list) => {
        expect(renderArgs(["-x", "{{input.x}}", "{{input.list}}"], { x, list })).toEqual(["-x", x, ...list]);
      }),
      { numRuns: 500 },
    );
  });

  it("leave `${VAR}` literal: there is no shell and args come from the input only", () => {
    expect(renderArgs(["${HOME}", "{{input.x}}"], { x: "$(id)" })).toEqual(["${HOME}", "$(id)"]);
  });
});

describe("reshape", () => {
  const data = { user: { name: "Ada", langs: [{ id: "en" }, { id: "fr" }] }, "a/b": 1 };

  it("maps dotted paths, bracket indexes and JSON pointers; a missing path is null", () => {
    expect(
      reshape(
        { data, mapping: { name: "user.name", first: "user.langs[0].id", second: "/user/langs/1/id", slash: "/a~1b", none: "user.age" } },
        "toolbelt.reshape",
      ),
    ).toEqual({ name: "Ada", first: "en", second: "fr", slash: 1, none: null });
  });

  it("does not walk into inherited properties", () => {
    expect(pick({}, "constructor")).toBeUndefined();
    expect(pick({ a: "x" }, "a.length")).toBeUndefined();
  });

  it("reports a bad mapping with paths", () => {
    expect(() => reshape({ data, mapping: { a: 1 } }, "toolbelt.reshape")).toThrowError(expect.objectContaining({ code: "INVALID_ARGUMENTS" }));
  });
});
