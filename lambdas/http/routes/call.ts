// POST /v1/call and GET /v1/admin/misses. Mounted through createApp's `extraRoutes`, and imported
// only by the call handler and the local server, so ajv and the backends stay out of the find bundle.
import { Hono } from "hono";
import type { Backends } from "../../core/call/types.js";
import { createCallGateway, type CallGateway } from "../../core/call/gateway.js";
import { createBackends } from "../../backends/index.js";
import type { EnvMap } from "../../backends/templates.js";
import { ToolbeltError } from "../../core/errors.js";
import type { MissStore } from "../../core/ports.js";
import type { RouteModule } from "../app.js";
import { CallBody, CALL_PATHS } from "../openapi-call.js";
import type { Deps } from "../deps.js";
import { callerOf, type AppEnv } from "../env.js";
import { parseJsonBody } from "../parse.js";

export { CallBody, CallResponseSchema, CALL_PATHS, MissesResponse } from "../openapi-call.js";

export type CallModuleOptions = {
  /** Where `${VAR}` in tool templates is read from; never echoed. */
  env: EnvMap;
  misses?: MissStore;
  /** Enable the exec backend (default true). */
  exec?: boolean;
  /** Replace the backends (tests); by default built from `env` with the app's finder. */
  backends?: (deps: Deps) => Backends;
};

export type CallModule = RouteModule & {
  /** Close pooled upstream connections (MCP clients). */
  close(): Promise<void>;
};

/** Time kept back from a Lambda invocation to answer after a tool timed out. */
const LAMBDA_MARGIN_MS = 1000;

export type AppCallGateway = {
  gateway: CallGateway;
  /** Close pooled upstream connections. */
  close(): Promise<void>;
};

/**
 * The call gateway wired to the app's artifact, finder, policy and sessions: what POST /v1/call
 * uses, and what another entry point (the MCP endpoint's `call` tool) should use to get the same
 * resolution, authorization, validation, dispatch and pin-on-use.
 */
export function createAppCallGateway(deps: Deps, options: CallModuleOptions): AppCallGateway {
  let backends: Backends;
  let close: () => Promise<void> = async () => undefined;
  if (options.backends) backends = options.backends(deps);
  else {
    const built = createBackends({ env: options.env, finder: deps.finder, exec: options.exec ?? true });
    close = () => built.mcp.close();
    backends = built.backends;
  }
  const gateway = createCallGateway({
    tools: deps.artifact.byName,
    backends,
    ...(options.misses ? { misses: options.misses } : {}),
    sessions: deps.sessions,
    log: (level, message, fields) => deps.logger[level](message, fields),
    now: () => new Date(deps.clock()),
  });
  return { gateway, close };
}

export function createCallModule(options: CallModuleOptions): CallModule {
  const closers: (() => Promise<void>)[] = [];
  return {
    openapi: CALL_PATHS,
    async close() {
      await Promise.all(closers.map((c) => c()));
    },
    routes(deps: Deps) {
      const { gateway, close } = createAppCallGateway(deps, options);
      closers.push(close);

      const app = new Hono<AppEnv>();
      app.post("/v1/call", async (c) => {
        const caller = callerOf(c);
        const body = await parseJsonBody(c, CallBody, { maxBytes: deps.config.http.maxBodyBytes });
        // On Lambda, a tool must give up (504 with a clear error) before the invocation is cut off.
        const lambda = c.env?.lambdaContext as { getRemainingTimeInMillis?: () => number } | undefined;
        const remaining = lambda?.getRemainingTimeInMillis?.();
        const response = await gateway.call(body, caller, {
          signal: c.req.raw.signal,
          ...(remaining !== undefined ? { maxTimeoutMs: Math.max(1, remaining - LAMBDA_MARGIN_MS) } : {}),
        });
        return c.json(response);
      });

      app.get("/v1/admin/misses", async (c) => {
        if (!callerOf(c).admin) {
          throw new ToolbeltError("FORBIDDEN", "the miss log is for operators: this needs a principal with `admin: true` in the policy");
        }
        const rawLimit = c.req.query("limit");
        const limit = rawLimit === undefined ? 20 : Number(rawLimit);
        if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
          throw new ToolbeltError("INVALID_REQUEST", "limit must be an integer from 1 to 1000", { limit: rawLimit });
        }
        if (!options.misses) return c.json({ misses: [] });
        const name = c.req.query("name");
        if (name !== undefined) return c.json({ name, events: await options.misses.recent(name, limit) });
        return c.json({ misses: await options.misses.top(limit) });
      });
      return app;
    },
  };
}
