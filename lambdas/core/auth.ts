// Authentication (bearer keys vs SHA-256 digests, or an OAuth access token mapped to a principal by its
// claims) and authorization (allow/deny globs): one policy for every entry point (REST, MCP, call), so
// surface and call agree on what a principal may use.
import { createHash, hash, timingSafeEqual } from "node:crypto";
import { META_TOOLS } from "../../registry/contract/names.js";
import type { ApprovalRule, ClaimMatch, PolicyFile, Principal } from "../../registry/contract/policy.js";
import { expandPolicySelectors, type GovernedTool, usesSelectors } from "./governance.js";
import { PolicyFileSchema } from "./deployment-files.js";
import { ToolbeltError } from "./errors.js";
import { globMatcher } from "../../registry/contract/globs.js";
import { createTokenVerifier, type IdentityOptions, looksLikeJwt, type TokenVerifier } from "./identity.js";
import { describeIssues } from "./issues.js";
import type { Caller } from "./ports.js";

export type Policy = {
  /**
   * The caller owning the bearer key, or the token's subject under the first principal its claims match,
   * in an `Authorization` header value; UNAUTHENTICATED or FORBIDDEN otherwise. `resources` are the
   * gateway's resource URLs, the audiences a token may carry when the policy's identity names none.
   */
  authenticate(authorization: string | undefined, resources?: readonly string[]): Promise<Caller>;
  /** The OAuth issuer whose access tokens are taken, if any (the resource metadata names it). */
  identity?: NonNullable<PolicyFile["identity"]>;
  /** The caller with this principal id (tests, tools that act for a known principal). */
  callerById(id: string): Caller | undefined;
  /** The policy's rules for calls held until approved (core/approvals.ts). */
  approvals: readonly ApprovalRule[];
  /** Whether the caller's principal has `approver: true` (it still never approves its own calls). */
  mayApprove(caller: Caller): boolean;
};

/** A caller with the policy's governance flags (ports.ts Caller plus what the gateway's read-only check reads). */
export type GovernedCaller = Caller & { read_only?: boolean };

export type PolicyOptions = IdentityOptions & {
  /** The catalog: needed when the policy selects tools by governance (allow_where, deny_where, read_only). */
  tools?: Iterable<GovernedTool>;
};

export function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/** Parse a policy document (JSON text or object) with the contract's strict schema (its zod/mini twin). */
export function parsePolicy(input: unknown): PolicyFile {
  const parsed = PolicyFileSchema.safeParse(typeof input === "string" ? JSON.parse(input) : input);
  if (!parsed.success) {
    throw new Error(`invalid policy: ${describeIssues(parsed.error.issues)}`);
  }
  return parsed.data;
}

const BEARER = /^Bearer[ ]+([^\s]+)\s*$/i;

/** A token's subject as a caller: this prefix is reserved, so no key principal can share a user's sessions. */
export const SUBJECT_PREFIX = "user:";
/** Distinct users whose caller objects are kept (per-caller caches hold across their requests). */
const MAX_TOKEN_CALLERS = 1000;

/**
 * find and call are granted to every principal, whatever its globs: they only ever reach the caller's
 * granted tools, and every surface advertises them, so what a principal is shown it may call.
 */
const META = new Set(META_TOOLS);

export function createPolicy(given: PolicyFile, options: PolicyOptions = {}): Policy {
  // Selectors become names once, here: every door's grant filter then applies them.
  if (usesSelectors(given) && !options.tools) throw new Error("invalid policy: it selects tools by governance, which needs the catalog to load it");
  const catalog = options.tools ? [...options.tools] : undefined;
  const file = catalog ? expandPolicySelectors(given, catalog) : given;
  // The catalog's names: a principal's grant of each is remembered (find asks it of every tool it ranks, each a
  // glob match); a name from elsewhere (a caller's) is matched every time, so callers cannot fill the memory.
  const catalogNames = new Set(catalog?.map((t) => t.name));
  const reserved = file.identity ? file.principals.find((p) => p.id.startsWith(SUBJECT_PREFIX)) : undefined;
  if (reserved) throw new Error(`invalid policy: principal id ${reserved.id} starts with ${SUBJECT_PREFIX}, which names token subjects`);
  // One caller object per principal, its grant filter compiled once per cold start (per-caller caches hold).
  const callers = new Map<Principal, Caller>();
  const callerOf = (principal: Principal): Caller => {
    let caller = callers.get(principal);
    if (!caller) {
      const allow = globMatcher(principal.allow);
      const deny = globMatcher(principal.deny);
      const grants = new Map<string, boolean>();
      const granted = (name: string) => {
        let g = grants.get(name);
        if (g === undefined) {
          g = META.has(name) || (allow(name) && !deny(name));
          if (catalogNames.has(name)) grants.set(name, g);
        }
        return g;
      };
      caller = { principal: principal.id, admin: principal.admin, granted, ...(principal.read_only ? { read_only: true } : {}) } as GovernedCaller;
      callers.set(principal, caller);
    }
    return caller;
  };
  const digests = file.principals.flatMap((p) => p.keys.map((k) => ({ digest: Buffer.from(k, "hex"), principal: p })));
  const byId = new Map(file.principals.map((p) => [p.id, p]));
  const tokens = file.identity ? tokenCallers(file.identity, file.principals, callerOf, createTokenVerifier(file.identity, options)) : undefined;

  return {
    ...(file.identity ? { identity: file.identity } : {}),
    async authenticate(authorization, resources = []) {
      if (!authorization) {
        throw new ToolbeltError(
          "UNAUTHENTICATED",
          tokens
            ? "missing credentials: send the header `Authorization: Bearer <API key or access token>` (the access token from the authorization server the WWW-Authenticate header's resource metadata names)"
            : "missing API key: send the header `Authorization: Bearer <key>`",
        );
      }
      const m = BEARER.exec(authorization);
      if (!m?.[1]) {
        throw new ToolbeltError("UNAUTHENTICATED", "malformed Authorization header: expected `Bearer <key>`");
      }
      if (tokens && looksLikeJwt(m[1])) return tokens(m[1], resources);
      // One-shot digest: no Hash object per request (about a third less CPU than createHash).
      const presented = hash("sha256", m[1], "buffer");
      // Compare against every digest without stopping early, so timing says nothing about which matched.
      let found: Principal | undefined;
      for (const d of digests) {
        if (timingSafeEqual(presented, d.digest) && !found) found = d.principal;
      }
      if (!found) throw new ToolbeltError("UNAUTHENTICATED", "unknown API key");
      return callerOf(found);
    },
    callerById(id) {
      const principal = byId.get(id);
      return principal ? callerOf(principal) : undefined;
    },
    approvals: file.approvals ?? [],
    mayApprove: (caller) => byId.get(caller.role ?? caller.principal)?.approver === true,
  };
}

type Identity = NonNullable<PolicyFile["identity"]>;

/** Maps a valid token to its caller: `user:<subject>` with the grants of the first principal its claims match. */
function tokenCallers(identity: Identity, principals: readonly Principal[], callerOf: (p: Principal) => Caller, verifier: TokenVerifier) {
  const mapped = principals.filter((p): p is Principal & { claims: ClaimMatch } => p.claims !== undefined);
  const callers = new Map<string, Caller>();
  return async (token: string, resources: readonly string[]): Promise<Caller> => {
    const claims = await verifier.verify(token, identity.audience ? [identity.audience] : resources);
    const subject = claims[identity.subject_claim];
    // Printable and bounded: it is written to the audit log, session items and log lines.
    if (typeof subject !== "string" || !/^[\x21-\x7e]{1,255}$/.test(subject)) {
      throw new ToolbeltError("UNAUTHENTICATED", `invalid access token: claim ${identity.subject_claim} is not a printable string of 1 to 255 characters`, {
        token_error: "invalid_token",
      });
    }
    const missingScopes = identity.scopes.filter((s) => !claimMatches(claims, "scope", s));
    if (missingScopes.length) {
      throw new ToolbeltError("FORBIDDEN", `the access token lacks the scope ${missingScopes.join(" ")} this gateway requires`, {
        token_error: "insufficient_scope",
        scope: identity.scopes.join(" "),
      });
    }
    const principal = mapped.find((p) => Object.entries(p.claims).every(([name, values]) => claimMatches(claims, name, values)));
    if (!principal) throw noPrincipal(`${SUBJECT_PREFIX}${subject}`, mapped, claims);
    const key = `${principal.id}\n${subject}`;
    let caller = callers.get(key);
    if (!caller) {
      const { granted, admin } = callerOf(principal);
      caller = {
        principal: `${SUBJECT_PREFIX}${subject}`,
        role: principal.id,
        admin,
        granted,
        ...(principal.read_only ? { read_only: true } : {}),
      } as GovernedCaller;
      // Oldest first out: a bounded map, not a cache that grows with every user ever seen.
      if (callers.size >= MAX_TOKEN_CALLERS) callers.delete(callers.keys().next().value as string);
      callers.set(key, caller);
    }
    return caller;
  };
}

/** A claim as a set of words: a string (split on spaces for `scope`), an array's strings, a number or boolean as text. */
function claimValues(claims: Record<string, unknown>, name: string): string[] {
  // Namespaced claim names (https://example.com/groups) are looked up whole; a dotted path (realm_access.roles) then walks objects.
  let value: unknown = claims[name];
  if (value === undefined && name.includes(".")) {
    value = name.split(".").reduce<unknown>((v, part) => (v !== null && typeof v === "object" ? (v as Record<string, unknown>)[part] : undefined), claims);
  }
  const words = (v: unknown) => (typeof v === "string" || typeof v === "number" || typeof v === "boolean" ? [String(v)] : []);
  if (Array.isArray(value)) return value.flatMap(words);
  if (name === "scope" && typeof value === "string") return value.split(" ").filter(Boolean);
  return words(value);
}

function claimMatches(claims: Record<string, unknown>, name: string, wanted: string | readonly string[]): boolean {
  const have = claimValues(claims, name);
  return (typeof wanted === "string" ? [wanted] : wanted).some((w) => have.includes(w));
}

/** 403 naming, for each mapped principal, the first claim the token lacks; insufficient_scope when that is a scope. */
function noPrincipal(who: string, mapped: readonly (Principal & { claims: ClaimMatch })[], claims: Record<string, unknown>): ToolbeltError {
  const missing = mapped.slice(0, 10).map((p) => {
    const [claim, values] = Object.entries(p.claims).find(([name, v]) => !claimMatches(claims, name, v)) ?? ["?", []];
    return { principal: p.id, claim, one_of: typeof values === "string" ? [values] : values };
  });
  // The scopes of the first principal whose other claims all hold: asking for them would be enough.
  const scopeOnly = missing.find(
    (m, i) => m.claim === "scope" && Object.entries(mapped[i]!.claims).every(([n, v]) => n === "scope" || claimMatches(claims, n, v)),
  );
  const needs = missing.map((m) => `${m.principal} needs ${m.claim} ${m.one_of.join(" or ")}`).join("; ");
  return new ToolbeltError(
    "FORBIDDEN",
    `${who} is granted no tools: no principal's claims match the access token (${needs || "no principal is mapped from claims"})`,
    {
      missing,
      ...(scopeOnly ? { token_error: "insufficient_scope", scope: scopeOnly.one_of.join(" ") } : {}),
    },
  );
}

/** The local development policy: one principal allowed everything, keyed by `apiKey`. */
export function localPolicyFile(apiKey: string, id = "local"): PolicyFile {
  return {
    version: 1,
    principals: [{ id, description: "local development", keys: [sha256Hex(apiKey)], allow: ["*"], deny: [], admin: true }],
  };
}
