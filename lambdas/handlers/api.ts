// Lambda entry for find, sessions and surface (API Gateway HTTP API). Everything is wired once per
// cold start (wiring.ts); the adapter (adapter.ts) turns events into Requests.
import { createApp } from "../http/app.js";
import { lambdaHandler } from "./adapter.js";
import { CALL_PATHS } from "../http/openapi-call.js";
import { CONSOLE_GROUP_OUTLINE } from "../http/openapi-console.js";
import { MCP_PATHS } from "../http/openapi-mcp.js";
import { liveRoutes } from "../http/routes/live.js";
import { depsFromEnv } from "./wiring-deps.js";

// No SSM or Bedrock client here (about 85 KB each): a model role whose key is not in the environment,
// or on Bedrock, is unavailable to find's decision mode, which then answers by keywords and says why.
const { deps } = depsFromEnv(process.env, { skipMissingKeys: true });

// The call, MCP and console functions serve their routes behind the same HTTP API: documented here (the
// console's in outline). GET /v1/health/live is this function's: the liveness of the one that serves find.
export const app = createApp(deps, { extraRoutes: [liveRoutes], documentOnly: { ...CALL_PATHS, ...MCP_PATHS, ...CONSOLE_GROUP_OUTLINE } });
export const handler = lambdaHandler(app, deps.logger);
