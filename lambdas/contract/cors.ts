// What browsers may send cross-origin, for the app (lambdas/http/origin.ts) and the HTTP API's preflight
// configuration (infra), which answers OPTIONS itself on AWS. Which origins: configuration, never a wildcard.
export const CORS_RULES = {
  allowMethods: ["POST", "GET", "DELETE", "OPTIONS"],
  allowHeaders: [
    "Authorization",
    "Content-Type",
    "Accept",
    "Idempotency-Key",
    "X-Correlation-Id",
    "Mcp-Protocol-Version",
    "Mcp-Session-Id",
    "Mcp-Method",
    "Mcp-Name",
    "Last-Event-ID",
  ],
  exposeHeaders: ["Mcp-Session-Id", "WWW-Authenticate", "X-Request-Id", "X-Correlation-Id", "RateLimit", "RateLimit-Policy", "Retry-After"],
  maxAgeSecs: 600,
} as const;
