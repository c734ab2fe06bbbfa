// GET /v1/health: the artifact's manifest, so a deployment says which registry it serves. Public.
import { Hono } from "hono";
import type { HealthResponse } from "../../contract/health.js";
import type { Deps } from "../deps.js";
import type { AppEnv } from "../env.js";

export function healthRoutes(deps: Deps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const m = deps.artifact.manifest;
  const body: HealthResponse = {
    status: "ok",
    format_version: m.format_version,
    registry_hash: m.registry_hash,
    counts: m.counts,
    always_loaded: deps.alwaysLoaded,
    skipped_families: m.skipped_families,
  };
  app.get("/v1/health", (c) => c.json(body));
  return app;
}
