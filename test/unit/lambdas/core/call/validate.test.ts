import { describe, expect, it } from "vitest";
import { createSchemaValidator, jsonPath } from "../../../../../lambdas/core/call/validate.js";

const draft07 = {
  $schema: "http://json-schema.org/draft-07/schema#",
  type: "object",
  required: ["repo"],
  additionalProperties: false,
  properties: {
    repo: { type: "string", minLength: 1 },
    count: { type: "integer", minimum: 1, default: 10 },
    mode: { enum: ["short", "full"] },
    since: { type: "string", format: "date" },
    paths: { type: "array", items: { type: "string" } },
  },
};

const draft2020 = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  properties: { pair: { type: "array", prefixItems: [{ type: "string" }, { type: "number" }], items: false } },
  required: ["pair"],
};

describe("argument validation", () => {
  const v = createSchemaValidator();

  it("accepts valid arguments and fills declared defaults without touching the caller's object", () => {
    const args = { repo: "/tmp/r" };
    const r = v.check(draft07, args, "input");
    expect(r).toEqual({ valid: true, data: { repo: "/tmp/r", count: 10 } });
    expect(args).toEqual({ repo: "/tmp/r" });
  });

  it("reports every problem with its JSON path in words an agent can act on", () => {
    const r = v.check(draft07, { count: "ten", mode: "long", since: "yesterday", paths: ["a", 3], extra: true }, "input");
    expect(r.valid).toBe(false);
    if (r.valid) return;
    expect(r.problems).toMatchInlineSnapshot(`
      [
        {
          "keyword": "required",
          "message": "is required but missing",
          "path": "$.repo",
        },
        {
          "keyword": "additionalProperties",
          "message": "is not an accepted property; remove it or check its spelling",
          "path": "$.extra",
        },
        {
          "keyword": "type",
          "message": "must be an integer, got string "ten"",
          "path": "$.count",
        },
        {
          "keyword": "enum",
          "message": "must be one of "short", "full", got "long"",
          "path": "$.mode",
        },
        {
          "keyword": "format",
          "message": "must be a valid date, got "yesterday"",
          "path": "$.since",
        },
        {
          "keyword": "type",
          "message": "must be of type string, got number 3",
          "path": "$.paths[1]",
        },
      ]
    `);
  });

  it("reads draft 2020-12 schemas with the 2020 dialect (prefixItems)", () => {
    expect(v.check(draft2020, { pair: ["a", 1] }, "input").valid).toBe(true);
    const r = v.check(draft2020, { pair: ["a", "b", "c"] }, "input");
    expect(r.valid).toBe(false);
    if (!r.valid) expect(r.problems.map((p) => p.path)).toEqual(expect.arrayContaining(["$.pair[1]"]));
  });

  it("compiles each schema once (the cache is keyed by the schema object)", () => {
    const schema = { type: "object", properties: { a: { type: "number" } } };
    const a = v.check(schema, { a: 1 }, "input");
    const b = v.check(schema, { a: "x" }, "input");
    expect(a.valid).toBe(true);
    expect(b.valid).toBe(false);
  });

  it("accepts two tools' schemas that share an $id", () => {
    const s1 = { $id: "https://example.com/same.json", type: "object", properties: { a: { type: "string" } } };
    const s2 = { $id: "https://example.com/same.json", type: "object", properties: { a: { type: "number" } } };
    expect(v.check(s1, { a: "x" }, "input").valid).toBe(true);
    expect(v.check(s2, { a: 1 }, "input").valid).toBe(true);
  });

  it("checks outputs without filling defaults into them", () => {
    const schema = { type: "object", properties: { n: { type: "number", default: 1 } } };
    expect(v.check(schema, {}, "output")).toEqual({ valid: true, data: {} });
  });

  it("writes JSON paths for odd keys", () => {
    expect(jsonPath("/a b/0/c~1d")).toBe('$["a b"][0]["c/d"]');
    expect(jsonPath("", "x")).toBe("$.x");
  });
});

describe("a schema that does not compile", () => {
  it("is a 503 naming the problem, not a crash", () => {
    const v = createSchemaValidator();
    expect(() => v.check({ type: "object", properties: { a: { type: "no-such-type" } } }, {}, "input")).toThrowError(
      expect.objectContaining({ code: "UNAVAILABLE" }),
    );
  });
});

describe("the dialect of a schema without $schema (bug: build read it as 2020-12, calls as draft-07)", () => {
  const schema = {
    type: "object",
    properties: { pair: { type: "array", prefixItems: [{ type: "string" }, { type: "integer" }] } },
    unevaluatedProperties: false,
  };

  it("is 2020-12 on calls, as the build checked it: prefixItems and unevaluatedProperties are enforced", () => {
    const v = createSchemaValidator();
    const r = v.check(schema, { pair: [1, "x"], extra: true }, "input");
    expect(r.valid).toBe(false);
    const keywords = r.valid ? [] : r.problems.map((p) => p.keyword).sort();
    expect(keywords).toEqual(expect.arrayContaining(["type", "unevaluatedProperties"]));
    expect(v.check(schema, { pair: ["a", 1] }, "input").valid).toBe(true);
  });

  it("stays draft-07 where the schema says so", () => {
    const v = createSchemaValidator();
    const draft7 = { $schema: "http://json-schema.org/draft-07/schema#", type: "object", properties: { n: { type: "integer" } } };
    expect(v.check(draft7, { n: "x" }, "input").valid).toBe(false);
    expect(v.check(draft7, { n: 3 }, "input").valid).toBe(true);
  });
});
