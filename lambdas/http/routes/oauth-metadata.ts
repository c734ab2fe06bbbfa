// OAuth 2.0 Protected Resource Metadata (RFC 9728) and the bearer challenge of every refusal: how an
// MCP client given this gateway's URL finds the authorization server whose tokens it takes. The MCP
// endpoint is its own resource (`<origin>/mcp`, what a client computes from that URL), the REST API
// the origin's; a token for either is this gateway's.
import { type Context, Hono } from "hono";
import { ToolbeltError } from "../../core/errors.js";
import type { Caller } from "../../core/ports.js";
import type { Deps } from "../deps.js";
import type { AppEnv } from "../env.js";
import { withChallenge } from "../errors.js";

export const METADATA_PATH = "/.well-known/oauth-protected-resource";
const MCP_PATH = "/mcp";

/** The resource URLs a token may be issued for when the policy names no audience: each public origin, and its MCP endpoint. */
export const gatewayResources = (own: readonly string[]): string[] => own.flatMap((o) => [o, `${o}${MCP_PATH}`]);

/** The request's origin when it is one of the gateway's own (configuration decides, never `Host` alone). */
function originOf(c: Context<AppEnv>, own: readonly string[]): string {
  const origin = new URL(c.req.url).origin;
  return own.includes(origin) ? origin : (own[0] ?? origin);
}

/** `/mcp` and `/mcp/briefs/...` are the MCP resource; everything else the origin's. */
const isMcp = (path: string) => path === MCP_PATH || path.startsWith(`${MCP_PATH}/`);

/** Scope words as RFC 6749 §3.3 allows them, so a policy's text cannot break out of the quoted header value. */
const scopeWords = (scope: string) =>
  scope
    .split(" ")
    .filter((w) => /^[\x21\x23-\x5b\x5d-\x7e]+$/.test(w))
    .join(" ");

/**
 * The caller of this request (policy.authenticate), its refusal carrying the RFC 6750 challenge: with an
 * identity configured, where the resource metadata is, `invalid_token` for a credential that failed and
 * `insufficient_scope` with the scope needed; keys only, the realm as before.
 */
export async function authenticateRequest(deps: Deps, c: Context<AppEnv>, resources: readonly string[]): Promise<Caller> {
  const authorization = c.req.header("authorization");
  try {
    return await deps.policy.authenticate(authorization, resources);
  } catch (err) {
    const identity = deps.policy.identity;
    if (!identity || !(err instanceof ToolbeltError) || (err.code !== "UNAUTHENTICATED" && err.details.token_error !== "insufficient_scope")) throw err;
    const origin = originOf(c, deps.config.origins.own);
    const params = [`resource_metadata="${origin}${METADATA_PATH}${isMcp(c.req.path) ? MCP_PATH : ""}"`];
    // RFC 6750 §3.1: no error code when no credential was sent.
    const error = typeof err.details.token_error === "string" ? err.details.token_error : authorization ? "invalid_token" : undefined;
    if (error) params.push(`error="${error}"`);
    const scope = scopeWords(typeof err.details.scope === "string" ? err.details.scope : identity.scopes.join(" "));
    if (scope) params.push(`scope="${scope}"`);
    throw withChallenge(err, `Bearer ${params.join(", ")}`);
  }
}

/** GET /.well-known/oauth-protected-resource[/mcp]: public; 404 while the policy has no identity. */
export function oauthMetadataRoutes(deps: Deps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const document = (c: Context<AppEnv>, path: string) => {
    const identity = deps.policy.identity;
    if (!identity) {
      throw new ToolbeltError("NOT_FOUND", "this gateway takes API keys only: its policy names no identity (OAuth issuer)", { path: c.req.path });
    }
    const scopes = identity.scopes.map(scopeWords).filter(Boolean);
    return c.json(
      {
        resource: `${originOf(c, deps.config.origins.own)}${path}`,
        authorization_servers: [identity.issuer],
        ...(scopes.length ? { scopes_supported: scopes } : {}),
        bearer_methods_supported: ["header"],
        resource_name: "Toolbelt",
      },
      200,
      { "cache-control": "public, max-age=300" },
    );
  };
  app.get(METADATA_PATH, (c) => document(c, ""));
  app.get(`${METADATA_PATH}${MCP_PATH}`, (c) => document(c, MCP_PATH));
  return app;
}
