// Lambda entry for the console group: GET /console (the page and its assets) and the console's data
// routes (GET /v1/admin/catalog, POST /v1/admin/find, GET /v1/admin/sessions/{id}, GET /v1/admin/audit
// and /v1/admin/audit/stats; admin keys only). The api function's wiring plus the audit store's reads:
// no backends, and the page's assets weigh on this bundle only.
import { consoleRoutes } from "../console/routes.js";
import { CONSOLE_PATHS } from "../http/openapi-admin.js";
import { createApp } from "../http/app.js";
import { createAdminModule } from "../http/routes/admin.js";
import { DynamoAuditReader } from "../stores/audit.js";
import { lambdaHandler } from "./adapter.js";
import { depsFromEnv } from "./wiring-deps.js";

// As the api function: model roles whose keys are not in the environment are unavailable here.
const { deps, client, config } = depsFromEnv(process.env, { skipMissingKeys: true });

const admin = createAdminModule({ env: process.env, ...(config.audit.store ? { audit: new DynamoAuditReader(client, config.table) } : {}) });

// The console's page, documented in the OpenAPI document beside its data routes.
const pageRoutes = { ...consoleRoutes, openapi: { ...CONSOLE_PATHS, ...consoleRoutes.openapi } };

export const app = createApp(deps, { extraRoutes: [admin, pageRoutes] });
export const handler = lambdaHandler(app, deps.logger);
