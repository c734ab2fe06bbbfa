// Lambda entry for the call group (POST /v1/call, GET /v1/admin/misses): the shared cold-start wiring
// plus the call routes, so ajv and the backends live in this bundle only.
import { createApp } from "../http/app.js";
import { lambdaHandler } from "./adapter.js";
import { createCallModule } from "../http/routes/call.js";
import { bedrockModel } from "../models/bedrock.js";
import { loadSecretsIntoEnv } from "../secrets.js";
import { wireFromEnv } from "./wiring.js";

// Upstream secrets (`${NAME}` in tool templates, model keys) come from SSM before the first request.
await loadSecretsIntoEnv(process.env);

const { deps, call, audit } = wireFromEnv(process.env, { bedrock: bedrockModel });

export const app = createApp(deps, { extraRoutes: [createCallModule(call)] });
// Each call's audit record is written in the background: waited for (bounded) before Lambda freezes.
export const handler = lambdaHandler(app, deps.logger, audit ? { settle: () => audit.idle() } : {});
