// Who may do what: principals, their API key digests and their grants (allow/deny tool globs).
import * as z from "zod";
import { FORMAT_VERSION } from "./tool.js";

/** Request rates, concurrent calls and a daily quota; each counted across every gateway instance (DynamoDB). */
export const Limits = z.strictObject({
  requests_per_second: z.number().int().positive().optional(),
  requests_per_minute: z.number().int().positive().optional(),
  concurrent_calls: z.number().int().positive().describe("Calls in flight at once (a lease per call, freed when it ends or its TTL passes)").optional(),
  daily_quota: z.number().int().positive().describe("Calls per UTC day").optional(),
});
export type Limits = z.infer<typeof Limits>;

/**
 * Token claims that make a caller this principal: every listed claim must match, a string claim by
 * equality with one of the values, an array claim (groups, roles) by containing one, `scope` by its words.
 */
export const ClaimMatch = z.record(z.string().regex(/^[A-Za-z0-9_.:/-]{1,128}$/), z.union([z.string(), z.array(z.string()).min(1)]));
export type ClaimMatch = z.infer<typeof ClaimMatch>;

/** Access tokens from one OAuth 2.1 / OpenID issuer, validated locally against its JWKS (lambdas/core/identity.ts). */
export const Identity = z.strictObject({
  issuer: z.url().describe("The issuer (`iss`) tokens must carry; its metadata names the JWKS unless jwks_uri is given"),
  audience: z.string().min(1).optional().describe("The `aud` tokens must carry; default the gateway's resource URL (its public origin)"),
  jwks_uri: z.url().optional(),
  algorithms: z
    .array(z.enum(["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"]))
    .min(1)
    .optional(),
  subject_claim: z.string().min(1).default("sub").describe("The claim that names the user: sessions, pins and audit belong to it"),
  scopes: z.array(z.string().min(1)).default([]).describe("Scopes every token must carry (advertised as scopes_supported)"),
  client_ids: z
    .array(z.string().min(1))
    .min(1)
    .optional()
    .describe(
      "A token without `aud` is taken when it is an access token (token_use) issued to one of these clients (client_id): Amazon Cognito's; the required scopes, named by the gateway's URL, bind it to this gateway",
    ),
});
export type Identity = z.infer<typeof Identity>;

/**
 * Tools chosen by what the registry declares of them (`governance`) instead of by name: every field given
 * must hold (an absent declaration counts as false; `affects: true` means the tool names whom it affects).
 */
export const GovernanceSelector = z.strictObject({
  read_only: z.boolean().optional(),
  destructive: z.boolean().optional(),
  consequential: z.boolean().optional(),
  affects: z.boolean().optional(),
});
export type GovernanceSelector = z.infer<typeof GovernanceSelector>;

/** Calls held until an approver approves them: tools matching any glob in `tools` or the `where` selector. */
export const ApprovalRule = z.strictObject({
  tools: z.array(z.string()).optional().describe("Tool globs whose calls need approval"),
  where: GovernanceSelector.optional().describe("Tools whose governance matches need approval (e.g. destructive: true)"),
});
export type ApprovalRule = z.infer<typeof ApprovalRule>;

export const Principal = z.strictObject({
  id: z.string().regex(/^[A-Za-z0-9_.:@-]{1,128}$/),
  description: z.string().optional(),
  /** SHA-256 hex digests of the bearer keys; the keys themselves are never stored. */
  keys: z
    .array(z.string().regex(/^[0-9a-f]{64}$/, 'the SHA-256 digest of a key (64 lower-case hex characters), never the key itself: printf %s "$key" | sha256sum'))
    .default([]),
  allow: z.array(z.string()).default([]).describe("Tool globs this principal may find and call"),
  deny: z
    .array(z.string())
    .default([])
    .describe("Tool globs refused even when allowed (the meta-tools toolbelt.find and toolbelt.call are always granted: they reach only granted tools)"),
  admin: z.boolean().default(false).describe("May read operator data such as the name-miss log"),
  claims: ClaimMatch.optional().describe("Access tokens whose claims match become this principal (policy `identity`); first match in file order wins"),
  limits: Limits.optional().describe("Limits on all of this principal's calls"),
  tool_limits: z.record(z.string(), Limits).optional().describe("Limits per tool: each tool matching the glob has counters of its own"),
  allow_where: z.array(GovernanceSelector).optional().describe("Also granted: tools whose governance matches one of these (read when the policy is loaded)"),
  deny_where: z.array(GovernanceSelector).optional().describe("Refused even when allowed: tools whose governance matches one of these"),
  read_only: z.boolean().optional().describe("Only tools declaring read_only: true are granted and run, by any name and door"),
  approver: z.boolean().optional().describe("May approve or refuse calls held by the policy's `approvals` (never its own)"),
});
export type Principal = z.infer<typeof Principal>;

export const PolicyFile = z.strictObject({
  version: z.number().int().positive().default(FORMAT_VERSION),
  principals: z.array(Principal).min(1),
  identity: Identity.optional(),
  family_limits: z.record(z.string(), Limits).optional().describe("Limits per family, shared by every principal (an upstream's capacity)"),
  approvals: z.array(ApprovalRule).optional().describe("Calls held until a principal with `approver: true` approves them"),
});
export type PolicyFile = z.infer<typeof PolicyFile>;
