// Lambda entry for the MCP group (POST /mcp, POST /mcp/briefs/{brief}): the shared cold-start wiring
// plus the MCP routes. Its own function, not the call handler's: MCP's call_tool needs the backends
// (so this bundle is the call bundle plus the MCP server SDK), and a separate group keeps that weight,
// its concurrency and its alarms apart from POST /v1/call.
import { createApp } from "../http/app.js";
import { lambdaHandler } from "./adapter.js";
import { createMcpModule } from "../http/routes/mcp.js";
import { bedrockModel } from "../models/bedrock.js";
import { loadSecretsIntoEnv } from "../secrets.js";
import { wireFromEnv } from "./wiring.js";

// Upstream secrets (`${NAME}` in tool templates, model keys) come from SSM before the first request.
await loadSecretsIntoEnv(process.env);

const { deps, call, audit } = wireFromEnv(process.env, { bedrock: bedrockModel });

export const app = createApp(deps, { extraRoutes: [createMcpModule(call)] });
// Each call's audit record is written in the background: waited for (bounded) before Lambda freezes.
export const handler = lambdaHandler(app, deps.logger, audit ? { settle: () => audit.idle() } : {});
