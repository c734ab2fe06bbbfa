// The OpenAPI paths of the console group: its data routes (routes/admin.ts), its page (lambdas/console/routes.ts)
// and GET /v1/health/live (routes/live.ts), which the console function serves on AWS:
// apart from the routes so the api Lambda can document them (the console Lambda serves the admin routes
// behind the same HTTP API) without bundling them: contract schemas only.
import { AdminFindBody, AdminSessionResponse, AuditListResponse, AuditQuery, AuditStatsQuery, AuditStatsResponse, CatalogResponse } from "../contract/admin.js";
import { FindResponse } from "../contract/find.js";
import { SessionId } from "../contract/sessions.js";
import { LiveResponse } from "../contract/health.js";
import { body, errors, ok, pathParameter, type PathItems, queryParameters } from "./openapi.js";

export const ADMIN_PATHS: PathItems = {
  "/v1/admin/catalog": {
    get: {
      operationId: "adminCatalog",
      summary:
        "Every family and tool with its schema, governance, whether it is callable, declared settings present or missing (never a value), and the principals and briefs that reach it (admin principals only)",
      responses: { ...ok("The catalog", CatalogResponse), ...errors(401, 403, 414, 500) },
    },
  },
  "/v1/admin/find": {
    post: {
      operationId: "adminFind",
      summary: "POST /v1/find's answer as a given policy principal would get it (default: yours), from the same finder and grants (admin principals only)",
      requestBody: body(AdminFindBody),
      responses: { ...ok("Ranked tools", FindResponse), ...errors(400, 401, 403, 404, 413, 414, 415, 500, 503) },
    },
  },
  "/v1/admin/sessions/{id}": {
    get: {
      operationId: "adminSession",
      summary:
        "Any principal's session: its belt (each tool, why it is there, its bytes and share of the pin budget, its last use) and what its surface costs in tokens (admin principals only)",
      parameters: [pathParameter("id", "A session id", SessionId)],
      responses: { ...ok("The session's belt", AdminSessionResponse), ...errors(401, 403, 404, 414, 500, 503) },
    },
  },
  "/v1/admin/audit": {
    get: {
      operationId: "adminAudit",
      summary: "Recent calls' audit records from the audit store, newest first, filtered, a page at a time (admin principals only)",
      parameters: queryParameters(AuditQuery),
      responses: { ...ok("Audit records", AuditListResponse), ...errors(400, 401, 403, 404, 414, 500, 503) },
    },
  },
  "/v1/admin/audit/stats": {
    get: {
      operationId: "adminAuditStats",
      summary: "Calls, errors and latency (p50, p95) per family per minute over the last minutes (admin principals only)",
      parameters: queryParameters(AuditStatsQuery),
      responses: { ...ok("Per-minute figures", AuditStatsResponse), ...errors(400, 401, 403, 404, 414, 500, 503) },
    },
  },
};

/** The console's page and assets (lambdas/console/routes.ts): public, HTML and static files. */
export const CONSOLE_PATHS: PathItems = {
  "/console": {
    get: {
      operationId: "console",
      summary: "The operator console's page: it asks for an admin key and keeps it in page memory",
      security: [],
      responses: { "200": { description: "The page (text/html)" }, ...errors(414, 500) },
    },
  },
  "/console/{proxy+}": {
    get: {
      operationId: "consoleAsset",
      summary: "The console's script and style (`assets/<hashed name>`)",
      security: [],
      parameters: [pathParameter("proxy+", "`assets/<file>`")],
      responses: { "200": { description: "The asset" }, ...errors(404, 414, 500) },
    },
  },
};

export const LIVE_PATHS: PathItems = {
  "/v1/health/live": {
    get: {
      operationId: "live",
      summary: "Liveness: the process answers (nothing is probed)",
      security: [],
      responses: { ...ok("Alive", LiveResponse), ...errors(414, 500) },
    },
  },
};

/** Everything the console function serves: for the api function's document (documentOnly), as CALL_PATHS are. */
export const CONSOLE_GROUP_PATHS: PathItems = { ...ADMIN_PATHS, ...CONSOLE_PATHS, ...LIVE_PATHS };
