// The HTTP app: served by the Lambda adapter and by the Node server alike. Handlers are thin;
// the core decides. Other route modules (call, MCP) are mounted through `extraRoutes`.
import { randomUUID } from "node:crypto";
import { type Context, Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { CORRELATION_ID_RE } from "../contract/headers.js";
import { ToolbeltError } from "../core/errors.js";
import type { Deps } from "./deps.js";
import type { AppEnv } from "./env.js";
import { carriesIds } from "./answer.js";
import { errorResponse } from "./errors.js";
import { originGuard } from "./origin.js";
import { CORE_PATHS, openApiDocument, type PathItems } from "./openapi.js";
import { findRoutes } from "./routes/find.js";
import { healthRoutes } from "./routes/health.js";
import { modelApiRoutes } from "./routes/model-apis.js";
import { authenticateRequest, gatewayResources, oauthMetadataRoutes } from "./routes/oauth-metadata.js";
import { sessionRoutes } from "./routes/sessions.js";

export type { AppEnv } from "./env.js";
export type { Deps } from "./deps.js";

/** A route module: its routes (paths under /v1 are authenticated unless listed public) and its OpenAPI paths. */
export type RouteModule = {
  routes: (deps: Deps) => Hono<AppEnv>;
  openapi?: PathItems;
  /** Paths (exact) served without authentication. */
  publicPaths?: string[];
};

const PUBLIC = new Set(["/v1/health", "/v1/openapi.json"]);
const REQUEST_ID_RE = /^[A-Za-z0-9._:-]{1,128}$/;
export { CORRELATION_ID_RE };

export type AppOptions = {
  extraRoutes?: RouteModule[];
  /** Paths another function serves behind the same API (e.g. /v1/call), added to the OpenAPI document only. */
  documentOnly?: PathItems;
};

export function createApp(deps: Deps, options: AppOptions = {}): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const extra = options.extraRoutes ?? [];
  const publicPaths = new Set([...PUBLIC, ...extra.flatMap((m) => m.publicPaths ?? [])]);
  const { maxBodyBytes, maxUrlChars } = deps.config.http;

  app.use("*", async (c, next) => {
    const given = c.req.header("x-request-id");
    const requestId = c.env?.lambdaContext?.awsRequestId ?? (given && REQUEST_ID_RE.test(given) ? given : randomUUID());
    c.set("requestId", requestId);
    const correlationId = c.req.header("x-correlation-id");
    if (correlationId !== undefined) {
      if (!CORRELATION_ID_RE.test(correlationId)) {
        throw new ToolbeltError("INVALID_REQUEST", "X-Correlation-Id must be 1 to 128 printable ASCII characters without spaces", {
          header: "X-Correlation-Id",
        });
      }
      c.set("correlationId", correlationId);
    }
    // The path and query of the URL the server already normalised, measured without parsing it again.
    const url = c.req.url;
    const start = url.indexOf("/", url.indexOf(":") + 3);
    const hash = url.indexOf("#", start);
    const length = start === -1 ? 0 : (hash === -1 ? url.length : hash) - start;
    if (length > maxUrlChars) {
      throw new ToolbeltError("URI_TOO_LONG", `URL is ${length} characters; the limit is ${maxUrlChars}: send parameters in the JSON body`, {
        limit_chars: maxUrlChars,
      });
    }
    await next();
    // answerJson made its answer with them (answer.ts).
    if (carriesIds(c.res)) return;
    // On the answer's own headers: `c.header` after the answer exists copies it into a new one whose
    // body is a stream, which the Node server then pipes instead of writing the JSON text at once.
    c.res.headers.set("x-request-id", requestId);
    if (correlationId !== undefined) c.res.headers.set("x-correlation-id", correlationId);
  });

  // Before the body is read or a key is checked: a foreign page or Host gets 403 and nothing runs.
  app.use("*", originGuard(deps.config.origins));

  const tooLarge = (c: Context<AppEnv>) =>
    errorResponse(
      c,
      new ToolbeltError("PAYLOAD_TOO_LARGE", `request body exceeds ${maxBodyBytes} bytes: send a smaller body`, { limit_bytes: maxBodyBytes }),
      deps.logger,
      c.get("requestId") ?? "unknown",
    );
  const countingLimit = bodyLimit({ maxSize: maxBodyBytes, onError: tooLarge });
  app.use("*", (c, next) => {
    // A declared length is checked from the header. Hono's middleware would first read `c.req.raw.body`,
    // which makes the Node server build a whole web Request (a stream, an AbortController) per request.
    // A body without a declared length is counted as it streams, by Hono's middleware.
    if (c.req.method === "GET" || c.req.method === "HEAD") return next();
    const length = c.req.header("content-length");
    if (length === undefined || c.req.header("transfer-encoding") !== undefined) return countingLimit(c, next);
    return Number.parseInt(length, 10) > maxBodyBytes ? Promise.resolve(tooLarge(c)) : next();
  });

  const resources = gatewayResources(deps.config.origins.own);
  app.use("/v1/*", async (c, next) => {
    if (!publicPaths.has(c.req.path)) c.set("caller", await authenticateRequest(deps, c, resources));
    await next();
  });

  // The resource metadata (/.well-known/oauth-protected-resource) is public, as RFC 9728 has it.
  const modules: RouteModule[] = [
    { routes: healthRoutes },
    { routes: oauthMetadataRoutes },
    { routes: findRoutes },
    { routes: sessionRoutes },
    { routes: modelApiRoutes },
    ...extra,
  ];
  for (const m of modules) app.route("/", m.routes(deps));

  const extraPaths: PathItems = Object.assign({}, ...extra.map((m) => m.openapi ?? {}));
  // Built on the first request for it, not at cold start (the call Lambda never serves it).
  let doc: Record<string, unknown> | undefined;
  app.get("/v1/openapi.json", (c) =>
    c.json((doc ??= openApiDocument(deps.artifact.manifest.registry_hash.slice(0, 12), { ...options.documentOnly, ...extraPaths }))),
  );

  // A known path with the wrong method is 405 with the allowed methods, not a 404.
  const allPaths: PathItems = { ...CORE_PATHS, ...extraPaths };
  for (const [path, ops] of Object.entries(allPaths)) {
    const allow = Object.keys(ops).map((m) => m.toUpperCase());
    app.all(path.replace(/\{(\w+)\}/g, ":$1"), () => {
      throw new ToolbeltError("METHOD_NOT_ALLOWED", `use ${allow.join(" or ")} on ${path}`, { allow });
    });
  }

  app.notFound((c) => {
    throw new ToolbeltError("NOT_FOUND", `no route ${c.req.method} ${c.req.path}: see GET /v1/openapi.json`, { path: c.req.path });
  });
  app.onError((err, c) => errorResponse(c, err, deps.logger, c.get("requestId") ?? randomUUID()));
  return app;
}
