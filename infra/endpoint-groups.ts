// One Lambda per endpoint group: what each serves, what it may do, and how it is sized.
// A new group (the MCP endpoint) joins by adding one entry here; ToolbeltGateway builds every
// group the same way (bundle, artifact, role, log group, alarms, routes).

export type RouteMethod = "GET" | "POST" | "PUT" | "DELETE" | "PATCH" | "ANY";
export type RouteSpec = {
  method: RouteMethod;
  path: string;
  /** Carries no data and must load without credentials (a page, discovery metadata): the `authorizer` prop skips it. */
  public?: boolean;
};

/** DynamoDB actions a group's stores issue; nothing else is granted on the table. */
export type TableAction =
  | "dynamodb:GetItem"
  | "dynamodb:PutItem"
  | "dynamodb:UpdateItem"
  | "dynamodb:DeleteItem"
  | "dynamodb:Query"
  | "dynamodb:BatchGetItem"
  | "dynamodb:BatchWriteItem"
  | "dynamodb:ConditionCheckItem";

export type EndpointGroupSpec = {
  /** Handler entry file, relative to the project root (the built-in handlers) or absolute (a handler of your own); it exports `handler`. */
  entry: string;
  description: string;
  routes: readonly RouteSpec[];
  memoryMb: number;
  /** Upper bound; the gateway may lower the call group's to what the HTTP API allows. */
  timeoutSecs: number;
  tableActions: readonly TableAction[];
  /** Dispatches to tools: its timeout follows the registry's largest tool timeout. */
  dispatchesTools: boolean;
  /** Resolves upstream tool secrets at cold start (gets read access to exactly those parameters). */
  upstreamSecrets: boolean;
  /**
   * Told where the upstream secrets live (TOOLBELT_SECRETS, names and parameters) without read access to
   * them: the console's catalog says which declared settings a deployment provides, never a value.
   */
  secretNames?: boolean;
  /** Writes (the doors that call tools) or reads (the console) the audit store: gets TOOLBELT_AUDIT_STORE and TOOLBELT_AUDIT_TTL_DAYS. */
  auditStore?: boolean;
  /** p99 duration above this (ms) raises the latency alarm. */
  p99AlarmMs: number;
};

/** HTTP APIs cut every integration at 30 s; a Lambda running longer only bills a dead request. */
export const HTTP_API_INTEGRATION_LIMIT_SECS = 30;

export const ENDPOINT_GROUPS = {
  api: {
    entry: "lambdas/handlers/api.ts",
    description: "Toolbelt find, sessions and surface",
    routes: [
      { method: "POST", path: "/v1/find" },
      { method: "POST", path: "/v1/sessions" },
      { method: "GET", path: "/v1/sessions/{id}/surface" },
      { method: "GET", path: "/v1/tools/export" },
      { method: "POST", path: "/v1/tools/search" },
      // Public in the app too (createApp's public paths): monitors and clients read them without a key.
      { method: "GET", path: "/v1/health", public: true },
      // Liveness: find's own function answers, nothing probed (a load balancer's or uptime check's route).
      { method: "GET", path: "/v1/health/live", public: true },
      { method: "GET", path: "/v1/openapi.json", public: true },
      // OAuth protected resource metadata (RFC 9728): public, for MCP clients that discover the issuer from a 401.
      { method: "GET", path: "/.well-known/oauth-protected-resource", public: true },
      { method: "GET", path: "/.well-known/oauth-protected-resource/{proxy+}", public: true },
    ],
    // Cold start parses the catalog and imports the FlexSearch index: CPU-bound work that Lambda
    // speeds up in proportion to memory (a full vCPU at 1,769 MB). 1 GB keeps a 10,000-tool
    // artifact's import well under a second and leaves room for the parsed catalog in memory.
    memoryMb: 1024,
    // Find itself runs in microseconds; the rest is a few DynamoDB round trips with SDK retries.
    // 10 s bounds a stuck invocation far below the API's 30 s limit.
    timeoutSecs: 10,
    // Sessions: a put on open, a consistent query of the session's partition (its item and its pins).
    // The find-miss log: a counter update, an event put, the ranked copy put and its predecessor deleted.
    tableActions: ["dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem", "dynamodb:Query"],
    dispatchesTools: false,
    upstreamSecrets: false,
    p99AlarmMs: 1000,
  },
  call: {
    entry: "lambdas/handlers/call.ts",
    description: "Toolbelt call gateway and the name-miss log",
    routes: [
      { method: "POST", path: "/v1/call" },
      { method: "GET", path: "/v1/admin/misses" },
      // Each principal's own upstream credentials (sealed with the KMS key only this group and mcp may use).
      { method: "GET", path: "/v1/credentials" },
      { method: "PUT", path: "/v1/credentials/{family}" },
      { method: "DELETE", path: "/v1/credentials/{family}" },
      { method: "DELETE", path: "/v1/admin/credentials/{principal}/{family}" },
      // Calls held for approval: read, decided by an approver, completed by their caller (the held item's get, put and conditional updates).
      { method: "GET", path: "/v1/approvals/{id}" },
      { method: "POST", path: "/v1/approvals/{id}" },
      { method: "POST", path: "/v1/approvals/{id}/call" },
    ],
    // Validates with ajv, holds upstream responses in memory and waits on the network:
    // 1 GB gives ajv's schema compilation a fast CPU at cold start and headroom for large payloads.
    memoryMb: 1024,
    // The largest tool timeout plus a margin, capped below the HTTP API's 30 s (the gateway
    // computes the real value from the artifact and warns about tools that cannot finish in time).
    timeoutSecs: 29,
    // Pin-on-use (query the session, put a pin, renew the expiry, delete evicted pins), the miss
    // log (counter update, event put, Query to list) and idempotency records (put, get, update).
    tableActions: ["dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem", "dynamodb:Query"],
    dispatchesTools: true,
    upstreamSecrets: true,
    // Each call's audit record is put in the table besides its log line (PutItem, granted above).
    auditStore: true,
    p99AlarmMs: 10_000,
  },
  mcp: {
    entry: "lambdas/handlers/mcp.ts",
    description: "Toolbelt MCP endpoint (Streamable HTTP, 2026-07-28 and 2025-11-25)",
    // GET and DELETE reach the function too: it answers 405 with `Allow: POST` (an API Gateway 404
    // would read as "session expired" to some clients). OPTIONS is the API's CORS preflight.
    routes: (["/mcp", "/mcp/briefs/{brief}"] as const).flatMap((path) => (["POST", "GET", "DELETE"] as const).map((method) => ({ method, path }))),
    // The call group's sizing: call_tool dispatches to the same backends.
    memoryMb: 1024,
    timeoutSecs: 29,
    // Belts are sessions (query, put on open and on pin, renew, delete evicted pins), misses are logged
    // (update, put) and idempotency keys recorded (put, get, update).
    tableActions: ["dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem", "dynamodb:Query"],
    dispatchesTools: true,
    upstreamSecrets: true,
    auditStore: true,
    p99AlarmMs: 10_000,
  },
  console: {
    entry: "lambdas/handlers/console.ts",
    description: "Toolbelt operator console: its page and the admin data it shows",
    // The page and its assets are public (the page asks for a key); every /v1/admin route needs an admin
    // principal, checked by the function as on the other groups. GET /v1/admin/misses stays with call.
    routes: [
      { method: "GET", path: "/console", public: true },
      { method: "GET", path: "/console/{proxy+}", public: true },
      { method: "GET", path: "/v1/admin/catalog" },
      { method: "POST", path: "/v1/admin/find" },
      { method: "GET", path: "/v1/admin/sessions/{id}" },
      { method: "GET", path: "/v1/admin/audit" },
      { method: "GET", path: "/v1/admin/audit/stats" },
    ],
    // A few operators, not agents: half the api group's memory. The cold start (catalog, FlexSearch index
    // for the playground's find) takes about twice as long as find's, which a person at a page can wait.
    memoryMb: 512,
    // As the api group's: a request is a few Query pages.
    timeoutSecs: 10,
    // A session is read with its pins in one Query, the audit records hour by hour; the playground's finds
    // are not logged as misses, so nothing is written.
    tableActions: ["dynamodb:Query"],
    dispatchesTools: false,
    upstreamSecrets: false,
    secretNames: true,
    auditStore: true,
    p99AlarmMs: 3000,
  },
} as const satisfies Record<string, EndpointGroupSpec>;

export type EndpointGroupName = keyof typeof ENDPOINT_GROUPS;
