// Lambda entry for find, sessions and surface (API Gateway HTTP API). Everything is wired once per
// cold start (wiring.ts); the Hono adapter turns events into Requests.
import { handle } from "hono/aws-lambda";
import { createApp } from "../http/app.js";
import { CALL_PATHS } from "../http/openapi-call.js";
import { MCP_PATHS } from "../http/openapi-mcp.js";
import { wireFromEnv } from "./wiring.js";

const { deps } = wireFromEnv();

// The call Lambda serves POST /v1/call and GET /v1/admin/misses behind the same HTTP API: documented here.
export const app = createApp(deps, { documentOnly: { ...CALL_PATHS, ...MCP_PATHS } });
export const handler = handle(app);
