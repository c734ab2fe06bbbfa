// Lambda entry for the call group (POST /v1/call, GET /v1/admin/misses): the shared cold-start wiring
// plus the call routes, so ajv and the backends live in this bundle only.
import { handle } from "hono/aws-lambda";
import { createApp } from "../http/app.js";
import { createCallModule } from "../http/routes/call.js";
import { bedrockModel } from "../models/bedrock.js";
import { loadSecretsIntoEnv } from "../secrets.js";
import { DynamoIdempotencyStore } from "../stores/idempotency.js";
import { DynamoMissStore, FIND_MISSES } from "../stores/misses.js";
import { wireFromEnv } from "./wiring.js";

// Upstream secrets (`${NAME}` in tool templates, model keys) come from SSM before the first request.
await loadSecretsIntoEnv(process.env);

const { config, client, deps } = wireFromEnv(process.env, { bedrock: bedrockModel });

const calls = createCallModule({
  env: process.env,
  misses: new DynamoMissStore(client, config.table),
  findMisses: new DynamoMissStore(client, config.table, FIND_MISSES),
  idempotency: { store: new DynamoIdempotencyStore(client, config.table), windowSecs: config.idempotencyTtlSecs },
  // exec runs the registry's commands on the function's host; TOOLBELT_EXEC=off refuses them with 501.
  exec: config.exec,
  // No roots unless the deployment names them (fileRoots): file and git tools answer 403 until then.
  fileRoots: config.fileRoots ?? [],
});

export const app = createApp(deps, { extraRoutes: [calls] });
export const handler = handle(app);
