// GET /v1/health (public): whether the gateway can serve, from real checks (core/health.ts): 503 when
// the table is unreachable, 200 `degraded` when an upstream or a model role is down; with an admin key,
// what is down and every check. GET /v1/health/live is routes/live.ts.
import { Hono } from "hono";
import type { HealthResponse } from "../../contract/health.js";
import { downIn } from "../../core/health.js";
import { ToolbeltError } from "../../core/errors.js";
import type { Deps } from "../deps.js";
import type { AppEnv } from "../env.js";

export function healthRoutes(deps: Deps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const m = deps.artifact.manifest;
  const manifest = {
    artifact: { format_version: m.format_version, registry_hash: m.registry_hash, ...(deps.builtAt ? { built_at: deps.builtAt } : {}), counts: m.counts },
    format_version: m.format_version,
    registry_hash: m.registry_hash,
    counts: m.counts,
    always_loaded: deps.alwaysLoaded,
    skipped_families: m.skipped_families,
  };
  app.get("/v1/health", async (c) => {
    const report = await deps.health.report();
    if (!report.table.ok) {
      throw new ToolbeltError("UNAVAILABLE", "the gateway's table is unreachable: sessions, pins and calls cannot be served; retry shortly", {
        check: "table",
      });
    }
    const down = downIn(report);
    // An invalid key on this public route is no error: it only sees what everyone sees.
    const auth = c.req.header("authorization");
    const admin = auth ? (await deps.policy.authenticate(auth).catch(() => undefined))?.admin === true : false;
    const body: HealthResponse = { status: down.length ? "degraded" : "ok", ...manifest, ...(admin ? { down, checks: report } : {}) };
    return c.json(body);
  });
  return app;
}
