// Authentication (bearer keys vs SHA-256 digests) and authorization (allow/deny globs): one policy
// for every entry point (REST, MCP, call), so surface and call agree on what a principal may use.
import { createHash, timingSafeEqual } from "node:crypto";
import { META_TOOLS } from "../../registry/contract/names.js";
import type { PolicyFile, Principal } from "../../registry/contract/policy.js";
import { PolicyFileSchema } from "./deployment-files.js";
import { ToolbeltError } from "./errors.js";
import { globMatcher } from "../../registry/contract/globs.js";
import { describeIssues } from "./issues.js";
import type { Caller } from "./ports.js";

export type Policy = {
  /** The caller owning the bearer key in an `Authorization` header value; UNAUTHENTICATED otherwise. */
  authenticate(authorization: string | undefined): Caller;
  /** The caller with this principal id (tests, tools that act for a known principal). */
  callerById(id: string): Caller | undefined;
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

/**
 * find and call are granted to every principal, whatever its globs: they only ever reach the caller's
 * granted tools, and every surface advertises them, so what a principal is shown it may call.
 */
const META = new Set(META_TOOLS);

export function createPolicy(file: PolicyFile): Policy {
  // One caller object per principal, its grant filter compiled once per cold start (per-caller caches hold).
  const callers = new Map<Principal, Caller>();
  const callerOf = (principal: Principal): Caller => {
    let caller = callers.get(principal);
    if (!caller) {
      const allow = globMatcher(principal.allow);
      const deny = globMatcher(principal.deny);
      caller = { principal: principal.id, admin: principal.admin, granted: (name) => META.has(name) || (allow(name) && !deny(name)) };
      callers.set(principal, caller);
    }
    return caller;
  };
  const digests = file.principals.flatMap((p) => p.keys.map((k) => ({ digest: Buffer.from(k, "hex"), principal: p })));
  const byId = new Map(file.principals.map((p) => [p.id, p]));

  return {
    authenticate(authorization) {
      if (!authorization) {
        throw new ToolbeltError("UNAUTHENTICATED", "missing API key: send the header `Authorization: Bearer <key>`");
      }
      const m = BEARER.exec(authorization);
      if (!m?.[1]) {
        throw new ToolbeltError("UNAUTHENTICATED", "malformed Authorization header: expected `Bearer <key>`");
      }
      const presented = createHash("sha256").update(m[1], "utf8").digest();
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
  };
}

/** The local development policy: one principal allowed everything, keyed by `apiKey`. */
export function localPolicyFile(apiKey: string, id = "local"): PolicyFile {
  return {
    version: 1,
    principals: [{ id, description: "local development", keys: [sha256Hex(apiKey)], allow: ["*"], deny: [], admin: true }],
  };
}
