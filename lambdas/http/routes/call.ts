// POST /v1/call and GET /v1/admin/misses (tool-name misses, and find misses with kind=find). Mounted through createApp's `extraRoutes`, and imported
// only by the call handler and the local server, so ajv and the backends stay out of the api bundle.
import { Hono } from "hono";
import { ToolbeltError } from "../../core/errors.js";
import { rateLimitHeaders, type LimitState } from "../../core/limits.js";
import type { RouteModule } from "../app.js";
import { createAppCallGateway, credentialsOf, type CallGatewayOptions } from "../call-gateway.js";
import { credentialRoutes } from "./credentials.js";
import { approvalRoutes, approvalsOf } from "./approvals.js";
import { CALL_LIMITS, CallBody, IdempotencyKey, type CallResponse } from "../../contract/call.js";
import { MISSES_LIMITS, MissesQuery, type MissesResponse } from "../../contract/misses.js";
import type { MissStore } from "../../core/ports.js";
import { CALL_PATHS } from "../openapi-call.js";
import type { Deps } from "../deps.js";
import { callContext, callerOf, type AppEnv } from "../env.js";
import { checkBody, readJsonBody } from "../parse.js";

export type CallModuleOptions = CallGatewayOptions & {
  /** The find-miss log (DynamoMissStore with FIND_MISSES), read by GET /v1/admin/misses?kind=find. */
  findMisses?: MissStore;
};

export type CallModule = RouteModule & {
  /** Close pooled upstream connections (MCP clients). */
  close(): Promise<void>;
};

/** The `Idempotency-Key` header, checked: absent is fine, anything but 1 to 255 printable ASCII characters is 400. */
function idempotencyKeyOf(header: string | undefined): { idempotencyKey?: string } {
  if (header === undefined) return {};
  if (!IdempotencyKey.safeParse(header).success) {
    throw new ToolbeltError(
      "INVALID_REQUEST",
      `Idempotency-Key must be 1 to ${CALL_LIMITS.idempotencyKeyChars} printable ASCII characters (a UUID will do); got ${header.length} characters`,
      { header: "Idempotency-Key" },
    );
  }
  return { idempotencyKey: header };
}

/** Time kept back from a Lambda invocation to answer after a tool timed out. */
const LAMBDA_MARGIN_MS = 1000;

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
        const sent = await readJsonBody(c, { maxBytes: deps.config.http.maxBodyBytes });
        const body = checkBody(CallBody, sent);
        // The arguments as sent, not zod's copy (which drops an own `__proto__` key): the gateway refuses reserved keys.
        const args = (sent as { args?: Record<string, unknown> }).args ?? body.args;
        // On Lambda, a tool must give up (504 with a clear error) before the invocation is cut off.
        const lambda = c.env?.lambdaContext as { getRemainingTimeInMillis?: () => number } | undefined;
        const remaining = lambda?.getRemainingTimeInMillis?.();
        // The window limits this call counted, for the caller to see what it has left (RateLimit headers).
        let limits: readonly LimitState[] = [];
        const response = await gateway.call({ ...body, args }, caller, {
          onLimits: (states) => {
            limits = states;
          },
          signal: c.req.raw.signal,
          context: callContext(c, "rest"),
          ...idempotencyKeyOf(c.req.header("idempotency-key")),
          ...(remaining !== undefined ? { maxTimeoutMs: Math.max(1, remaining - LAMBDA_MARGIN_MS) } : {}),
        });
        return c.json<CallResponse>(response, 200, rateLimitHeaders(limits));
      });

      app.get("/v1/admin/misses", async (c) => {
        if (!callerOf(c).admin) {
          throw new ToolbeltError("FORBIDDEN", "the miss log is for operators: this needs a principal with `admin: true` in the policy");
        }
        const query = MissesQuery.safeParse(c.req.query());
        if (!query.success) {
          throw new ToolbeltError("INVALID_REQUEST", `limit must be an integer from 1 to ${MISSES_LIMITS.max}, and kind call or find`, {
            limit: c.req.query("limit"),
            kind: c.req.query("kind"),
          });
        }
        const { limit, name, kind } = query.data;
        const store = kind === "find" ? options.findMisses : options.misses;
        if (name !== undefined) return c.json<MissesResponse>({ name, events: store ? await store.recent(name, limit) : [] });
        return c.json<MissesResponse>({ misses: store ? await store.top(limit) : [] });
      });
      // A principal's own upstream tokens: set, listed and removed beside the calls that use them.
      const credentials = credentialsOf(deps, options);
      if (credentials) app.route("/", credentialRoutes(credentials, { maxBodyBytes: deps.config.http.maxBodyBytes }));
      const approvals = approvalsOf(deps.policy, options.approvals, deps.clock);
      if (approvals) app.route("/", approvalRoutes(approvals, gateway, { maxBodyBytes: deps.config.http.maxBodyBytes }));
      return app;
    },
  };
}
