// Bug class: user- or registry-controlled strings ("constructor", "__proto__", "toString") used as keys
// of plain objects reached Object.prototype. Templates and reshape must treat them as ordinary keys.
import { describe, expect, it } from "vitest";
import { reshape } from "../../../lambdas/backends/builtin.js";
import { lookup, renderJson, renderString, renderValue, Secrets, type RenderContext } from "../../../lambdas/backends/templates.js";

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
      expect(() => renderString(`\${${name}}`, ctx({}))).toThrowError(expect.objectContaining({ code: "UNAVAILABLE", details: { tool: "t.x", variable: name } }));
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
