// GET /v1/health (public): whether the gateway can serve, from real checks (core/health.ts): 503 when
// the table is unreachable, 200 `degraded` when an upstream or a model role is down; with an admin key,
// what is down and every check. GET /v1/health/live is routes/live.ts.
import { Hono } from "hono";
import type { HealthResponse } from "../../contract/health.js";
import { createHealthChecks, downIn, type HealthPorts, type HealthService, upstreamTargets } from "../../core/health.js";
import { ToolbeltError } from "../../core/errors.js";
import { MODELS_ENV, promptRoles } from "../../../registry/contract/model-roles.js";
import type { Deps } from "../deps.js";
import type { AppEnv } from "../env.js";
import { gatewayResources } from "./oauth-metadata.js";

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
  // Without probes (the call and MCP functions: their group does not serve this route) the artifact alone.
  app.get("/v1/health", async (c) =>
    c.json<HealthResponse>({ ...(deps.health ? await deps.health.answer(c.req.header("authorization")) : { status: "ok" }), ...manifest }),
  );
  return app;
}

/** Reaches a URL with HEAD, no redirect followed: any answer below 500 is up. */
export async function httpReach(url: string, signal: AbortSignal): Promise<void> {
  let res: Response;
  try {
    res = await fetch(url, { method: "HEAD", redirect: "manual", signal });
  } catch (e) {
    const cause = (e as { cause?: { code?: string } }).cause;
    throw new Error(cause?.code ?? (e as Error).message);
  }
  await res.body?.cancel();
  if (res.status >= 500) throw new Error(`HTTP ${res.status}`);
}

/** A session id no session has: reading it costs one small Query. */
const PROBE_SESSION = "health-probe-not-a-session";

/**
 * The probes from the deps (DepsInput.health): the session store's read for the table, a HEAD to each
 * family's upstream (its declared `${VAR}`s from `env`), one token asked of each model role.
 */
export function healthChecksFor(
  deps: Omit<Deps, "health">,
  env: Readonly<Record<string, string | undefined>>,
  options: Partial<Pick<HealthPorts, "reach" | "cacheMs" | "timeoutMs">> = {},
): HealthService {
  const { models } = deps;
  // The gateway's own resources, as app.ts authenticates with: a JWT for this gateway is an admin's here too.
  const resources = gatewayResources(deps.config.origins.own);
  const checks = createHealthChecks({
    table: async () => {
      await deps.store.get(PROBE_SESSION);
    },
    upstreams: upstreamTargets(deps.artifact.families, deps.artifact.tools, env),
    reach: httpReach,
    models: [
      ...models.roles().map((role) => {
        const port = models.get(role);
        if (!port) return { role, unprobed: models.unavailable(role) ?? "no model" };
        return {
          role,
          probe: async (signal: AbortSignal) => {
            await port.complete({ messages: [{ role: "user", content: "Say ok." }], maxTokens: 1, signal });
          },
        };
      }),
      // A role the registry's prompt tools ask and nobody configured: those tools answer 503, so health says so.
      ...[...promptRoles(deps.artifact.tools)]
        .filter(([role]) => !models.roles().includes(role))
        .map(([role, tools]) => ({
          role,
          probe: () => Promise.reject(new Error(`not configured (${MODELS_ENV} has no model for it): ${tools.length} prompt tool(s) answer 503`)),
        })),
    ],
    now: deps.clock,
    ...(deps.config.healthCacheSecs !== undefined ? { cacheMs: deps.config.healthCacheSecs * 1000 } : {}),
    ...options,
  });
  return {
    async answer(authorization) {
      const report = await checks.report();
      if (!report.table.ok) throw new ToolbeltError("UNAVAILABLE", "the gateway's table is unreachable; retry shortly", { check: "table" });
      const down = downIn(report);
      // An invalid key on this public route is no error: it only sees what everyone sees.
      const admin = authorization ? (await deps.policy.authenticate(authorization, resources).catch(() => undefined))?.admin : false;
      return { status: down.length ? "degraded" : "ok", ...(admin ? { down, checks: report } : {}) };
    },
  };
}
