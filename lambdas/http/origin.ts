// Browser safety for every route (REST and /mcp): a web page the developer happens to visit must not
// drive the gateway. Requests without `Origin` (SDK clients, curl, server-side agents) pass; a browser's
// request passes only from the gateway's own origins (configuration, never the `Host` header) or the
// listed ones. Locally, `Host` must name the loopback server too, so DNS rebinding finds nothing to talk to.
import type { MiddlewareHandler } from "hono";
import { ToolbeltError } from "../core/errors.js";
import type { AppEnv } from "./env.js";
import { CORS_RULES } from "../contract/cors.js";

export type OriginPolicy = {
  /** The gateway's own origins (locally http://127.0.0.1:PORT and http://localhost:PORT; on AWS the API's URL and domain). */
  own: readonly string[];
  /** Other origins whose pages may call the gateway (TOOLBELT_ALLOWED_ORIGINS). */
  allowed: readonly string[];
  /** `Host` values the server answers to (the local server's); unset: not checked (API Gateway routes by host). */
  hosts?: readonly string[];
};

/** The origins of a local server on `port`: what a page it serves itself would send. */
export const localOrigins = (port: number): string[] => [`http://127.0.0.1:${port}`, `http://localhost:${port}`, `http://[::1]:${port}`];
/** The `Host` values a local server on `port` answers to. */
export const localHosts = (port: number): string[] => [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`];

// Header values are caller text: quoted and cut before they go into an answer.
const shown = (s: string) => JSON.stringify(s.slice(0, 100));

export function originGuard(policy: OriginPolicy): MiddlewareHandler<AppEnv> {
  const origins = new Set([...policy.own, ...policy.allowed]);
  const hosts = policy.hosts ? new Set(policy.hosts.map((h) => h.toLowerCase())) : undefined;
  return async (c, next) => {
    if (hosts) {
      const host = c.req.header("host")?.toLowerCase() ?? "";
      if (!hosts.has(host)) {
        throw new ToolbeltError("FORBIDDEN", `Host ${shown(host)} is not this gateway's: send requests to ${[...hosts].join(" or ")}`, {
          header: "Host",
          expected: [...hosts],
        });
      }
    }
    const origin = c.req.header("origin");
    if (origin === undefined) return next();
    if (!origins.has(origin)) {
      throw new ToolbeltError(
        "FORBIDDEN",
        `requests from web pages at ${shown(origin)} are refused: the operator lists the origins allowed to call this gateway (TOOLBELT_ALLOWED_ORIGINS, or the construct's allowedOrigins)`,
        { header: "Origin" },
      );
    }
    // An allowed origin: answer the browser's preflight and let it read the answer.
    if (c.req.method === "OPTIONS") {
      return new Response(null, {
        status: 204,
        headers: {
          "access-control-allow-origin": origin,
          "access-control-allow-methods": CORS_RULES.allowMethods.join(", "),
          "access-control-allow-headers": CORS_RULES.allowHeaders.join(", "),
          "access-control-max-age": String(CORS_RULES.maxAgeSecs),
          vary: "Origin",
        },
      });
    }
    await next();
    c.res.headers.set("access-control-allow-origin", origin);
    c.res.headers.set("access-control-expose-headers", CORS_RULES.exposeHeaders.join(", "));
    c.res.headers.append("vary", "Origin");
  };
}
