// `npm start`'s app from the one wiring: both route modules (REST /v1/call and MCP) on one shared call
// gateway, the operator console and its admin data routes, behind the loopback server's Origin and Host rules. start.ts serves it; the parity and
// conformance tests serve this same function, so what they test is what `npm start` runs.
import type { Hono } from "hono";
import { createApp, type AppEnv } from "../http/app.js";
import { shareGateway } from "../http/call-gateway.js";
import type { Deps } from "../http/deps.js";
import { localHosts, localOrigins } from "../http/origin.js";
import { createCallModule } from "../http/routes/call.js";
import { createMcpModule } from "../http/routes/mcp.js";
import { wire, type WireInput, type Wiring } from "../handlers/wiring.js";
import { createAdminModule } from "../http/routes/admin.js";
import { liveRoutes } from "../http/routes/live.js";
import { healthChecksFor } from "../http/routes/health.js";
import { consoleRoutes } from "../console/routes.js";
import { CONSOLE_PATHS } from "../http/openapi-admin.js";
import { DynamoAuditReader } from "../stores/audit.js";

export type LocalApp = { app: Hono<AppEnv>; deps: Deps; call: Wiring["call"]; close(): Promise<void> };

/** The port names the server's own origins and the Host values it answers to; TOOLBELT_PUBLIC_ORIGINS and TOOLBELT_ALLOWED_ORIGINS add more. */
export function createLocalApp(input: Omit<WireInput, "origins"> & { port: number }): LocalApp {
  const { port, ...rest } = input;
  const { config } = rest;
  const { deps, call, audit, client } = wire({
    ...rest,
    // npm start serves /v1/health: its probes, with the upstreams' settings from the same environment as the tools.
    health: (d) => healthChecksFor(d, rest.env),
    origins: { own: [...localOrigins(port), ...config.origins.own], allowed: config.origins.allowed, hosts: localHosts(port) },
  });
  // REST's /v1/call and MCP's call_tool share one gateway: one set of backends, one pool of upstream connections.
  const shared = shareGateway(call);
  const rest_ = createCallModule(shared);
  const mcp = createMcpModule(shared);
  // The console's page, documented in the OpenAPI document beside its data routes.
  const pageRoutes = { ...consoleRoutes, openapi: { ...CONSOLE_PATHS, ...consoleRoutes.openapi } };
  // The operator console and its data routes (admin keys only) beside the doors.
  const admin = createAdminModule({ env: rest.env, ...(audit ? { audit: new DynamoAuditReader(client, config.table) } : {}) });
  const app = createApp(deps, { extraRoutes: [rest_, mcp, liveRoutes, admin, pageRoutes] });
  return {
    app,
    deps,
    call,
    async close() {
      await rest_.close();
      await mcp.close();
      // Find misses still being written land before the table closes.
      await deps.findMisses?.idle();
      await audit?.idle();
    },
  };
}
