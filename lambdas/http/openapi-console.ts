// The console group's routes as the api function's OpenAPI document lists them: paths, methods, what each
// does and its statuses, without schemas (the full ones, openapi-admin.ts, cost the api bundle about
// 5 KB of contract code; npm start's and the console function's own documents carry them).
import { errors, type PathItems, pathParameter } from "./openapi.js";

const admin = (operationId: string, summary: string, ...statuses: number[]) => ({
  operationId,
  summary: `${summary} (admin principals only; the console function serves it: docs/api.md)`,
  responses: { "200": { description: "JSON" }, ...errors(401, 403, 414, 500, ...statuses) },
});
const open = (operationId: string, summary: string, ...statuses: number[]) => ({
  operationId,
  summary,
  security: [],
  responses: { "200": { description: summary }, ...errors(414, 500, ...statuses) },
});

export const CONSOLE_GROUP_OUTLINE: PathItems = {
  "/v1/admin/catalog": { get: admin("adminCatalog", "Families and tools, who reaches each, declared settings present or missing") },
  "/v1/admin/find": { post: admin("adminFind", "POST /v1/find's answer as a given principal", 400, 404, 413, 415, 503) },
  "/v1/admin/sessions/{id}": {
    get: { ...admin("adminSession", "Any principal's session: its belt and surface tokens", 404, 503), parameters: [pathParameter("id", "A session id")] },
  },
  "/v1/admin/audit": { get: admin("adminAudit", "Recent calls' audit records, newest first, filtered", 400, 404, 503) },
  "/v1/admin/audit/stats": { get: admin("adminAuditStats", "Calls, errors and latency per family per minute", 400, 404, 503) },
  "/console": { get: open("console", "The operator console's page") },
  "/console/{proxy+}": { get: { ...open("consoleAsset", "The console's script and style", 404), parameters: [pathParameter("proxy+", "`assets/<file>`")] } },
  "/v1/health/live": { get: open("live", "Liveness: the process answers") },
};
