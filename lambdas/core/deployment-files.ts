// The policy and the briefs as the Lambdas parse them at cold start: zod/mini twins of
// registry/contract's PolicyFile and BriefFile, which the build and the CLIs keep in full zod for
// their diagnostics. Importing those would put full zod back in every bundle; instead
// test/unit/lambdas/core/deployment-files.test.ts holds each twin to the contract (same verdict, same
// data, same issues on generated documents, and the same output type).
import type { BriefFile } from "../../registry/contract/brief.js";
import { describeIssues } from "./issues.js";
import * as z from "./zod-mini.js";

/** registry/contract/tool.ts FORMAT_VERSION, the default `version` of both files (the test checks they agree). */
export const DEPLOYMENT_FORMAT_VERSION = 1;

const version = z._default(z.number().check(z.int(), z.positive()), DEPLOYMENT_FORMAT_VERSION);
const strings = z._default(z.array(z.string()), []);

const positiveInt = z.optional(z.number().check(z.int(), z.positive()));
export const LimitsSchema = z.strictObject({
  requests_per_second: positiveInt,
  requests_per_minute: positiveInt,
  concurrent_calls: positiveInt,
  daily_quota: positiveInt,
});

const ClaimMatchSchema = z.record(z.string().check(z.regex(/^[A-Za-z0-9_.:/-]{1,128}$/)), z.union([z.string(), z.array(z.string()).check(z.minLength(1))]));

export const IdentitySchema = z.strictObject({
  issuer: z.url(),
  audience: z.optional(z.string().check(z.minLength(1))),
  jwks_uri: z.optional(z.url()),
  algorithms: z.optional(z.array(z.enum(["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"])).check(z.minLength(1))),
  subject_claim: z._default(z.string().check(z.minLength(1)), "sub"),
  scopes: z._default(z.array(z.string().check(z.minLength(1))), []),
  client_ids: z.optional(z.array(z.string().check(z.minLength(1))).check(z.minLength(1))),
});

const flag = z.optional(z.boolean());
export const GovernanceSelectorSchema = z.strictObject({ read_only: flag, destructive: flag, consequential: flag, affects: flag });

export const ApprovalRuleSchema = z.strictObject({
  tools: z.optional(z.array(z.string())),
  where: z.optional(GovernanceSelectorSchema),
});

export const PrincipalSchema = z.strictObject({
  id: z.string().check(z.regex(/^[A-Za-z0-9_.:@-]{1,128}$/)),
  description: z.optional(z.string()),
  keys: z._default(
    z.array(
      z
        .string()
        .check(z.regex(/^[0-9a-f]{64}$/, 'the SHA-256 digest of a key (64 lower-case hex characters), never the key itself: printf %s "$key" | sha256sum')),
    ),
    [],
  ),
  allow: strings,
  deny: strings,
  admin: z._default(z.boolean(), false),
  claims: z.optional(ClaimMatchSchema),
  limits: z.optional(LimitsSchema),
  tool_limits: z.optional(z.record(z.string(), LimitsSchema)),
  allow_where: z.optional(z.array(GovernanceSelectorSchema)),
  deny_where: z.optional(z.array(GovernanceSelectorSchema)),
  read_only: flag,
  approver: flag,
});

export const PolicyFileSchema = z.strictObject({
  version,
  principals: z.array(PrincipalSchema).check(z.minLength(1)),
  identity: z.optional(IdentitySchema),
  family_limits: z.optional(z.record(z.string(), LimitsSchema)),
  approvals: z.optional(z.array(ApprovalRuleSchema)),
});

export const BriefFileSchema = z.strictObject({
  version,
  name: z.string().check(z.regex(/^[a-z][a-z0-9_-]{0,63}$/)),
  description: z.string(),
  tools: z.array(z.string()).check(z.minLength(1)),
  where: z.optional(GovernanceSelectorSchema),
  read_only: flag,
});

/** One brief, checked against the contract; `from` names it in the error (a file, or `briefs[2]`). */
export function parseBrief(value: unknown, from: string): BriefFile {
  const parsed = BriefFileSchema.safeParse(value);
  if (!parsed.success) throw new Error(`invalid brief ${from}: ${describeIssues(parsed.error.issues)}`);
  return parsed.data;
}

/**
 * The one reader of deployed briefs (the Lambdas, `npm start` and the CDK construct): a JSON array
 * of briefs or `{briefs: [...]}`, as text or parsed. `from` names the source in errors.
 */
export function parseBriefs(json: string | unknown, from = "briefs"): BriefFile[] {
  const value = typeof json === "string" ? (JSON.parse(json) as unknown) : json;
  const list = Array.isArray(value) ? value : (value as { briefs?: unknown } | null)?.briefs;
  if (!Array.isArray(list)) throw new Error(`${from}: briefs must be a JSON array or an object with a \`briefs\` array`);
  return list.map((b, i) => parseBrief(b, `${from}[${i}]`));
}
