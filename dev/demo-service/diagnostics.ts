// diagnostics: routes for testing gateways and clients (health, echo, a slow, a failing, a protected
// and a malformed route).
import type { Context, Hono } from "hono";
import { optInt, optStr } from "./common.js";

const MAX_SLOW_MS = 60_000;

export type DiagnosticsState = {
  started: number;
  /** Pending /slow timers, cleared when the service closes. */
  timers: Set<NodeJS.Timeout>;
  notes: () => number;
  keys: () => number;
  requireAuth: (c: Context) => void;
};

export function diagnosticsRoutes(app: Hono, { started, timers, notes, keys, requireAuth }: DiagnosticsState): void {
  app.get("/health", (c) => c.json({ ok: true, uptime_seconds: Math.floor((Date.now() - started) / 1000), notes: notes(), keys: keys() }));
  app.all("/echo", async (c) => {
    const text = await c.req.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      // not JSON: echoed as text
    }
    // Header names only: values may carry credentials.
    return c.json({ method: c.req.method, path: c.req.path, query: c.req.query(), header_names: Object.keys(c.req.header()).sort(), body });
  });
  app.get("/slow", async (c) => {
    const ms = optInt(c.req.query("ms"), "ms", 0, MAX_SLOW_MS, 1000);
    await new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        timers.delete(t);
        resolve();
      }, ms);
      timers.add(t);
    });
    return c.json({ waited_ms: ms });
  });
  app.get("/fail", (c) => {
    const status = optInt(c.req.query("status"), "status", 400, 599, 500);
    const message = optStr(c.req.query("message"), "message") ?? "failure requested by /fail";
    return c.json({ error: { code: "REQUESTED_FAILURE", message } }, status as 500);
  });
  app.get("/whoami", (c) => {
    requireAuth(c);
    return c.json({ authenticated: true, scheme: "bearer" });
  });
  app.get("/malformed", (c) => c.body("this is not JSON {", 200, { "content-type": "application/json" }));
}
