// A family that calls its upstream as the caller (`credentials: per_principal`): each principal stores
// its own token for the family, and the gateway sends it in one fixed header, never through a template,
// so it cannot land in a URL, a query, a body or an input-filled value. Shared by build and runtime: no dependencies.

/** Where the caller's own token goes, as the artifact carries it (FamilyInfo.credentials). */
export type PerPrincipalCredentials = { per_principal: { header: string; scheme?: string } };

/** `credentials: per_principal` alone: `Authorization: Bearer <token>`, what almost every API expects. */
export const DEFAULT_PER_PRINCIPAL: PerPrincipalCredentials = { per_principal: { header: "Authorization", scheme: "Bearer" } };

/** The declaration in its one form (the shorthand expanded). */
export function normaliseCredentials(declared: "per_principal" | PerPrincipalCredentials): PerPrincipalCredentials {
  return declared === "per_principal" ? DEFAULT_PER_PRINCIPAL : declared;
}

/** RFC 9110 `token`: a header name or an auth scheme. */
export const HTTP_TOKEN_RE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Headers the HTTP layer owns: a token there would break framing or routing rather than authenticate. */
export const RESERVED_CREDENTIAL_HEADERS: readonly string[] = [
  "host",
  "content-length",
  "content-type",
  "transfer-encoding",
  "connection",
  "accept",
  "te",
  "upgrade",
];

/** The header value sent upstream for `token`. */
export const credentialHeaderValue = (c: PerPrincipalCredentials, token: string): string =>
  c.per_principal.scheme ? `${c.per_principal.scheme} ${token}` : token;

/** `PUT /v1/credentials/<family>`: how a caller connects a family, named in every refusal for want of a token. */
export const connectHint = (family: string): string => `PUT /v1/credentials/${family}`;
