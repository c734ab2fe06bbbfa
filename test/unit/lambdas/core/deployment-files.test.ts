// The Lambdas parse the policy and the briefs with zod/mini twins of the contract's full-zod schemas
// (lambdas/core/deployment-files.ts). These tests hold each twin to its contract: on generated
// documents, valid and broken, both give the same verdict, the same data and the same issues.
import fc from "fast-check";
import { describe, expect, expectTypeOf, it } from "vitest";
import { BriefFile } from "../../../../registry/contract/brief.js";
import { PolicyFile } from "../../../../registry/contract/policy.js";
import { FORMAT_VERSION } from "../../../../registry/contract/tool.js";
import { BriefFileSchema, DEPLOYMENT_FORMAT_VERSION, PolicyFileSchema } from "../../../../lambdas/core/deployment-files.js";
import type * as z from "../../../../lambdas/core/zod-mini.js";

type Parser = { safeParse(v: unknown): { success: boolean; data?: unknown; error?: { issues: readonly unknown[] } } };

/** What a caller sees of a parse: the verdict, the data, and every issue's code, path and message. */
function outcome(schema: Parser, value: unknown): unknown {
  const r = schema.safeParse(value);
  if (r.success) return { ok: true, data: r.data };
  return {
    ok: false,
    issues: (r.error!.issues as { code: string; path: PropertyKey[]; message: string }[]).map(({ code, path, message }) => ({ code, path, message })),
  };
}

const hex64 = fc.stringMatching(/^[0-9a-f]{64}$/);
/** A value of the right type most of the time, something else otherwise. */
const mostly = <T>(good: fc.Arbitrary<T>) => fc.oneof({ weight: 12, arbitrary: good }, { weight: 1, arbitrary: fc.anything() });
/** An optional field: absent, or present with a value. */
const field = <T>(key: string, value: fc.Arbitrary<T>) =>
  fc.option(
    value.map((v) => ({ [key]: v })),
    { nil: {} },
  );
/** An optional field present now and then (the newer, nested ones: each can break a document). */
const rare = <T>(key: string, value: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 5, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: value.map((v) => ({ [key]: v })) });
const version = field("version", mostly(fc.oneof(fc.constant(1), fc.integer({ min: -2, max: 3 }), fc.double({ min: 0, max: 3, noNaN: true }))));
/** Now and then a field neither schema knows. */
const extra = fc.oneof({ weight: 12, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: fc.string().map((v) => ({ extra_field: v })) });

const limits = fc
  .tuple(
    rare("requests_per_second", mostly(fc.integer({ min: 0, max: 5 }))),
    rare("requests_per_minute", mostly(fc.integer({ min: 1, max: 100 }))),
    rare("concurrent_calls", mostly(fc.integer({ min: 1, max: 4 }))),
    rare("daily_quota", mostly(fc.oneof({ weight: 6, arbitrary: fc.integer({ min: 1, max: 1000 }) }, fc.double({ min: 0, max: 3 })))),
    extra,
  )
  .map((parts) => Object.assign({}, ...parts) as Record<string, unknown>);

const selector = fc
  .tuple(
    rare("read_only", mostly(fc.boolean())),
    rare("destructive", mostly(fc.boolean())),
    rare("consequential", mostly(fc.boolean())),
    rare("affects", mostly(fc.boolean())),
    extra,
  )
  .map((parts) => Object.assign({}, ...parts) as Record<string, unknown>);
const approvalRule = fc
  .tuple(rare("tools", mostly(fc.array(fc.string({ maxLength: 8 }), { maxLength: 2 }))), rare("where", mostly(selector)), extra)
  .map((parts) => Object.assign({}, ...parts) as Record<string, unknown>);

const principal = fc
  .tuple(
    fc.record({ id: mostly(fc.oneof({ weight: 6, arbitrary: fc.stringMatching(/^[A-Za-z0-9_.:@-]{1,16}$/) }, fc.string({ maxLength: 12 }))) }),
    field("description", mostly(fc.string())),
    field("keys", mostly(fc.array(fc.oneof({ weight: 12, arbitrary: hex64 }, fc.string({ maxLength: 6 }), fc.constant("A".repeat(64))), { maxLength: 3 }))),
    field("allow", mostly(fc.array(fc.string({ maxLength: 8 }), { maxLength: 3 }))),
    field("deny", mostly(fc.array(fc.string({ maxLength: 8 }), { maxLength: 3 }))),
    field("admin", mostly(fc.boolean())),
    rare(
      "claims",
      mostly(
        fc.dictionary(
          fc.oneof({ weight: 6, arbitrary: fc.constantFrom("sub", "groups", "scope") }, fc.string({ maxLength: 4 })),
          fc.oneof(fc.string({ maxLength: 6 }), fc.array(fc.string({ maxLength: 6 }), { maxLength: 2 })),
          { maxKeys: 2 },
        ),
      ),
    ),
    rare("limits", mostly(limits)),
    rare("tool_limits", mostly(fc.dictionary(fc.string({ maxLength: 6 }), limits, { maxKeys: 2 }))),
    rare("allow_where", mostly(fc.array(selector, { maxLength: 2 }))),
    rare("deny_where", mostly(fc.array(selector, { maxLength: 2 }))),
    rare("read_only", mostly(fc.boolean())),
    rare("approver", mostly(fc.boolean())),
    extra,
  )
  .map((parts) => Object.assign({}, ...parts) as Record<string, unknown>);

const identity = fc
  .tuple(
    fc.record({ issuer: mostly(fc.oneof({ weight: 6, arbitrary: fc.webUrl() }, fc.string({ maxLength: 8 }))) }),
    rare("audience", mostly(fc.string({ maxLength: 12 }))),
    rare("jwks_uri", mostly(fc.oneof({ weight: 6, arbitrary: fc.webUrl() }, fc.string({ maxLength: 8 })))),
    rare("algorithms", mostly(fc.array(fc.constantFrom("RS256", "ES256", "EdDSA", "HS256", "none"), { maxLength: 2 }))),
    rare("subject_claim", mostly(fc.string({ maxLength: 5 }))),
    rare("scopes", mostly(fc.array(fc.string({ maxLength: 5 }), { maxLength: 2 }))),
    extra,
  )
  .map((parts) => Object.assign({}, ...parts) as Record<string, unknown>);

const policy = fc
  .tuple(
    version,
    fc.record({ principals: mostly(fc.array(principal, { maxLength: 3 })) }),
    rare("identity", mostly(identity)),
    rare("family_limits", mostly(fc.dictionary(fc.string({ maxLength: 6 }), limits, { maxKeys: 2 }))),
    rare("approvals", mostly(fc.array(approvalRule, { maxLength: 2 }))),
    extra,
  )
  .map((parts) => Object.assign({}, ...parts) as Record<string, unknown>);

const brief = fc
  .tuple(
    version,
    fc.record({ name: mostly(fc.oneof({ weight: 6, arbitrary: fc.stringMatching(/^[a-z][a-z0-9_-]{0,8}$/) }, fc.string({ maxLength: 10 }))) }),
    field("description", mostly(fc.string({ maxLength: 10 }))),
    field("tools", mostly(fc.array(fc.string({ maxLength: 8 }), { maxLength: 3 }))),
    rare("where", mostly(selector)),
    rare("read_only", mostly(fc.boolean())),
    extra,
  )
  .map((parts) => Object.assign({}, ...parts) as Record<string, unknown>);

describe("the Lambdas' policy and brief schemas agree with the registry contract", () => {
  it("default to the contract's format version", () => {
    expect(DEPLOYMENT_FORMAT_VERSION).toBe(FORMAT_VERSION);
  });

  it("parse to the contract's types", () => {
    expectTypeOf<z.output<typeof PolicyFileSchema>>().toEqualTypeOf<PolicyFile>();
    expectTypeOf<z.output<typeof BriefFileSchema>>().toEqualTypeOf<BriefFile>();
  });

  it("give the same verdict, data and issues on any policy document", () => {
    let valid = 0;
    fc.assert(
      fc.property(fc.oneof({ weight: 5, arbitrary: policy }, { weight: 1, arbitrary: fc.anything() }), (doc) => {
        const expected = outcome(PolicyFile, doc);
        if ((expected as { ok: boolean }).ok) valid++;
        expect(outcome(PolicyFileSchema, doc)).toEqual(expected);
      }),
      { numRuns: 2000 },
    );
    // The generator reaches both sides of the verdict.
    expect(valid).toBeGreaterThan(50);
    expect(valid).toBeLessThan(1800);
  });

  it("give the same verdict, data and issues on any brief", () => {
    let valid = 0;
    fc.assert(
      fc.property(fc.oneof({ weight: 5, arbitrary: brief }, { weight: 1, arbitrary: fc.anything() }), (doc) => {
        const expected = outcome(BriefFile, doc);
        if ((expected as { ok: boolean }).ok) valid++;
        expect(outcome(BriefFileSchema, doc)).toEqual(expected);
      }),
      { numRuns: 2000 },
    );
    expect(valid).toBeGreaterThan(50);
    expect(valid).toBeLessThan(1800);
  });

  it("name what is wrong in a broken policy as the contract does", () => {
    const doc = { version: 0, principals: [{ id: "a b", keys: ["XYZ"], admin: "yes", extra: 1 }] };
    expect(outcome(PolicyFileSchema, doc)).toEqual(outcome(PolicyFile, doc));
    expect(outcome(PolicyFileSchema, doc)).toMatchObject({
      ok: false,
      issues: expect.arrayContaining([
        expect.objectContaining({ path: ["principals", 0, "keys", 0], message: expect.stringContaining("never the key itself: printf %s") }),
        expect.objectContaining({ code: "unrecognized_keys", path: ["principals", 0] }),
      ]),
    });
  });
});
