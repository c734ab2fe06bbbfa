// GET /v1/health: the artifact's manifest, so a deployment says which registry it serves. Public.
import { Hono } from "hono";
import * as z from "../../core/zod-mini.js";
import type { Deps } from "../deps.js";
import type { AppEnv } from "../env.js";

export const HealthResponse = z.object({
  status: z.literal("ok"),
  format_version: z.number().check(z.int()),
  registry_hash: z.string(),
  counts: z.object({ families: z.number().check(z.int()), tools: z.number().check(z.int()) }),
  always_loaded: z.array(z.string()),
  skipped_families: z.array(z.string()),
});

export function healthRoutes(deps: Deps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const m = deps.artifact.manifest;
  const body: z.infer<typeof HealthResponse> = {
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
