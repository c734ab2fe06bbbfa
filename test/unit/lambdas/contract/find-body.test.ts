// findBodyOf: POST /v1/find's body checked without zod must answer exactly what FindBody answers, or leave it to FindBody.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FindBody } from "../../../../lambdas/contract/find.js";
import { findBodyOf } from "../../../../lambdas/contract/find-body.js";

/** findBodyOf agrees with FindBody: the same value, keys in the same order, or undefined. */
function agrees(body: unknown): void {
  const fast = findBodyOf(body);
  const parsed = FindBody.safeParse(body);
  if (fast === undefined) return;
  expect(parsed.success).toBe(true);
  expect(Object.keys(fast)).toEqual(Object.keys(parsed.data!));
  expect(fast).toStrictEqual(parsed.data);
}

// Values at and around every bound FindBody declares, and of every other JSON type.
const anyValue = fc.oneof(
  fc.constantFrom(0, -0, 1, 0.5, 1.0000001, -1e-9, 2, 10, 50, 51, 255, 256, 1.5, 1e21, Number.MAX_SAFE_INTEGER + 2),
  fc.constantFrom("top", "all", "none", "keyword", "decision", "auto", "", " ", "x", true, false, null),
  fc.constantFrom(
    "a".repeat(64),
    "a".repeat(65),
    "abcdefghijklmnop",
    "abcdefghijklmno",
    "abc_DEF-123456789",
    "abcdefghijklmnop!",
    "a".repeat(1000),
    ` ${"a".repeat(1000)} `,
    "a".repeat(1001),
  ),
  fc.string(),
  fc.double(),
  fc.integer(),
  fc.jsonValue(),
);
const KEYS = ["query", "limit", "min_score", "family", "schemas", "explain", "mode", "min_probability", "chunk_size", "model", "session"];
const key = fc.oneof(fc.constantFrom(...KEYS), fc.constantFrom("__proto__", "constructor", "Query", "extra"), fc.string());

describe("findBodyOf", () => {
  it("parses a plain body as FindBody does: query trimmed, defaults filled in, FindBody's key order", () => {
    const body = { schemas: "all", session: "abcdefghijklmnop", query: "  convert celsius  ", min_score: 0.2, explain: false };
    expect(findBodyOf(body)).toStrictEqual(FindBody.parse(body));
    expect(Object.keys(findBodyOf(body)!)).toEqual(["query", "limit", "min_score", "schemas", "explain", "session"]);
    agrees(body);
  });

  it("leaves every body FindBody refuses, and unusual ones, to FindBody", () => {
    for (const body of [
      null,
      [],
      "q",
      {},
      { query: "   " },
      { query: "q", limit: 0 },
      { query: "q", limit: 2.5 },
      { query: "q", other: 1 },
      JSON.parse('{"query":"q","__proto__":{"limit":3}}'),
      Object.assign(Object.create(null), { query: "q" }),
      { query: "q", limit: undefined },
      { query: "q", session: "short" },
    ]) {
      expect(findBodyOf(body)).toBeUndefined();
    }
  });

  it("answers every valid body itself (property)", () => {
    const valid = fc.record(
      {
        query: fc.string({ minLength: 1, maxLength: 1000 }).filter((q) => q.trim().length > 0),
        limit: fc.integer({ min: 1, max: 50 }),
        min_score: fc.double({ min: 0, max: 1, noNaN: true }),
        family: fc.string({ minLength: 1, maxLength: 64 }),
        schemas: fc.constantFrom("top", "all", "none", true, false),
        explain: fc.boolean(),
        mode: fc.constantFrom("keyword", "decision", "auto"),
        min_probability: fc.double({ min: 0, max: 1, noNaN: true }),
        chunk_size: fc.integer({ min: 1, max: 255 }),
        model: fc.string({ minLength: 1, maxLength: 64 }),
        session: fc.stringMatching(/^[A-Za-z0-9_-]{16,64}$/),
      },
      { requiredKeys: ["query"] },
    );
    fc.assert(
      fc.property(valid, (record) => {
        // As JSON.parse makes it (fast-check's records have no prototype).
        const body = { ...record };
        expect(findBodyOf(body)).not.toBeUndefined();
        agrees(body);
      }),
      { numRuns: 2000 },
    );
  });

  it("agrees with FindBody on any body (property)", () => {
    fc.assert(
      fc.property(fc.dictionary(key, anyValue, { maxKeys: 6 }), (body) => agrees({ ...body })),
      { numRuns: 3000 },
    );
    fc.assert(
      fc.property(fc.record(Object.fromEntries(KEYS.map((k) => [k, anyValue])), { requiredKeys: ["query"] }), (body) => agrees({ ...body })),
      { numRuns: 3000 },
    );
  });
});
