// Access tokens from the policy's OAuth issuer, validated here (RFC 9068 JWTs, OAuth 2.1 §5.2): the
// signature against the issuer's JWKS, `iss`, `aud` (this gateway's resource, RFC 8707), `exp`/`nbf`
// with a small skew and only asymmetric algorithms. Nothing is asked of the issuer per request but
// its key set, fetched once and again on an unknown `kid` (jose's createRemoteJWKSet).
import { createRemoteJWKSet, customFetch, errors, jwtVerify, type JWTPayload } from "jose";
import type { Identity } from "../../registry/contract/policy.js";
import { ToolbeltError } from "./errors.js";

/** Three base64url parts (the last empty for an unsigned token, which is then refused as one). */
const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;
export const looksLikeJwt = (bearer: string): boolean => JWT.test(bearer);

/** Asymmetric algorithms only: an HS* key would be the issuer's public key, which anyone can read. */
export const DEFAULT_ALGORITHMS = ["RS256", "PS256", "ES256", "EdDSA"] as const;
export const CLOCK_SKEW_SECS = 30;

export type IdentityOptions = {
  fetch?: typeof fetch;
  /** How long a fetched key set is trusted before it is fetched again (jose's default: 10 minutes). */
  jwksCacheMaxAgeMs?: number;
  /** Least time between two fetches of the key set for an unknown `kid` (jose's default: 30 s). */
  jwksCooldownMs?: number;
  /** Seconds since the epoch (tests); default the system clock. */
  now?: () => number;
};

export type TokenVerifier = {
  /** The token's claims once valid for one of `audiences`; UNAUTHENTICATED (invalid_token) otherwise, UNAVAILABLE if the issuer cannot be read. */
  verify(token: string, audiences: readonly string[]): Promise<JWTPayload>;
};

/** The details every token refusal carries: the http layer turns them into `WWW-Authenticate: Bearer error="invalid_token"`. */
export const INVALID_TOKEN = { token_error: "invalid_token" } as const;

const invalid = (message: string) => new ToolbeltError("UNAUTHENTICATED", `invalid access token: ${message}`, { ...INVALID_TOKEN });

/** RFC 8414 §3.1 (path inserted after the host), then OpenID Connect Discovery (path appended). */
export function metadataUrls(issuer: string): string[] {
  const url = new URL(issuer);
  const path = url.pathname === "/" ? "" : url.pathname.replace(/\/$/, "");
  return [`${url.origin}/.well-known/oauth-authorization-server${path}`, `${url.origin}${path}/.well-known/openid-configuration`];
}

async function discoverJwksUri(issuer: string, fetchFn: typeof fetch): Promise<string> {
  const tried: string[] = [];
  for (const url of metadataUrls(issuer)) {
    const res = await fetchFn(url, { headers: { accept: "application/json" }, signal: AbortSignal.timeout(5000), redirect: "error" }).catch((e: Error) => e);
    if (res instanceof Error || !res.ok) {
      tried.push(`${url}: ${res instanceof Error ? res.message : res.status}`);
      continue;
    }
    const doc = (await res.json().catch(() => ({}))) as { issuer?: unknown; jwks_uri?: unknown };
    // RFC 8414 §3.3: metadata naming another issuer is not this issuer's.
    if (doc.issuer !== issuer) throw new Error(`${url} names issuer ${JSON.stringify(doc.issuer)}, not ${issuer}`);
    if (typeof doc.jwks_uri !== "string") throw new Error(`${url} names no jwks_uri`);
    return doc.jwks_uri;
  }
  throw new Error(`no authorization server metadata for ${issuer} (${tried.join("; ")})`);
}

export function createTokenVerifier(identity: Identity, options: IdentityOptions = {}): TokenVerifier {
  const fetchFn = options.fetch ?? fetch;
  const algorithms = [...(identity.algorithms ?? DEFAULT_ALGORITHMS)];
  // The key set is found once per cold start; a failed discovery is tried again on the next request.
  let keys: Promise<ReturnType<typeof createRemoteJWKSet>> | undefined;
  const keySet = () =>
    (keys ??= (async () => {
      const uri = identity.jwks_uri ?? (await discoverJwksUri(identity.issuer, fetchFn));
      return createRemoteJWKSet(new URL(uri), {
        ...(options.jwksCacheMaxAgeMs !== undefined ? { cacheMaxAge: options.jwksCacheMaxAgeMs } : {}),
        ...(options.jwksCooldownMs !== undefined ? { cooldownDuration: options.jwksCooldownMs } : {}),
        [customFetch]: fetchFn,
      });
    })().catch((err: unknown) => {
      keys = undefined;
      throw err;
    }));

  return {
    async verify(token, audiences) {
      if (audiences.length === 0) throw invalid("this gateway names no audience (set the policy's identity.audience or TOOLBELT_PUBLIC_ORIGINS)");
      let jwks: ReturnType<typeof createRemoteJWKSet>;
      try {
        jwks = await keySet();
      } catch (err) {
        throw new ToolbeltError("UNAVAILABLE", `the token issuer's keys cannot be read now: try again later`, { issuer: identity.issuer }, { cause: err });
      }
      try {
        const { payload } = await jwtVerify(token, jwks, {
          issuer: identity.issuer,
          // With client_ids, `aud` is checked below: Cognito's access tokens have none.
          ...(identity.client_ids ? {} : { audience: [...audiences] }),
          algorithms,
          clockTolerance: CLOCK_SKEW_SECS,
          requiredClaims: ["exp"],
          ...(options.now ? { currentDate: new Date(options.now() * 1000) } : {}),
        });
        if (identity.client_ids) audienceOrClient(payload, audiences, identity.client_ids);
        return payload;
      } catch (err) {
        throw err instanceof ToolbeltError ? err : refusal(err);
      }
    },
  };
}

/**
 * A token naming an audience must name this gateway; one naming none (Amazon Cognito's access tokens)
 * must be an access token issued to an accepted client. The required scopes, checked by the policy,
 * carry the resource server's name, which is the gateway's URL.
 */
function audienceOrClient(payload: JWTPayload, audiences: readonly string[], clientIds: readonly string[]): void {
  if (payload.aud !== undefined) {
    const aud = typeof payload.aud === "string" ? [payload.aud] : payload.aud;
    if (!aud.some((a) => audiences.includes(a))) throw invalid("issued for another audience than this gateway");
    return;
  }
  if (payload.token_use !== "access") throw invalid("not an access token (token_use)");
  if (typeof payload.client_id !== "string" || !clientIds.includes(payload.client_id))
    throw invalid("issued to a client this gateway does not accept (client_id)");
}

/** What a client may learn of why its token failed: the claim or check, never the key material. */
function refusal(err: unknown): ToolbeltError {
  if (err instanceof errors.JWTExpired) return invalid("expired");
  if (err instanceof errors.JWTClaimValidationFailed) {
    if (err.claim === "nbf") return invalid("not yet valid (nbf)");
    if (err.claim === "iss") return invalid("issued by another issuer than this gateway trusts");
    if (err.claim === "aud") return invalid("issued for another audience than this gateway");
    return invalid(`claim ${err.claim} ${err.reason === "missing" ? "missing" : "invalid"}`);
  }
  if (err instanceof errors.JOSEAlgNotAllowed) return invalid("signing algorithm not allowed");
  if (err instanceof errors.JWKSNoMatchingKey) return invalid("signed by a key the issuer does not publish");
  if (err instanceof errors.JWSSignatureVerificationFailed) return invalid("signature does not verify");
  // The issuer's key set did not answer or made no sense: not the token's fault.
  if (err instanceof errors.JWKSTimeout || err instanceof errors.JWKSInvalid || !(err instanceof errors.JOSEError)) {
    return new ToolbeltError("UNAVAILABLE", "the token issuer's keys cannot be read now: try again later", {}, { cause: err });
  }
  return invalid("malformed");
}
