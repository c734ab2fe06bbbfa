// GET /v1/health/live (public): the process answers, nothing is probed. A route module of its own, public
// through `publicPaths` (createApp authenticates the rest of /v1), mounted by each entry point.
import { Hono } from "hono";
import type { LiveResponse } from "../../contract/health.js";
import type { RouteModule } from "../app.js";
import type { AppEnv } from "../env.js";
import { LIVE_PATHS } from "../openapi-admin.js";

export const liveRoutes: RouteModule = {
  routes: () => new Hono<AppEnv>().get("/v1/health/live", (c) => c.json<LiveResponse>({ status: "ok" })),
  publicPaths: ["/v1/health/live"],
  openapi: LIVE_PATHS,
};
