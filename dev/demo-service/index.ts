// The loopback service behind the example registry's http families (notes, text, time, convert,
// math, kv, random, diagnostics), one file per family. It stands in for a third-party API: real
// behaviour, its own error shape `{error: {code, message}}`, one bearer-protected route family, a
// slow and a failing route. A development fixture: `npm start` and the integration tests start it.
import { randomBytes, timingSafeEqual } from "node:crypto";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { Hono, type Context } from "hono";
import { bodyLimit } from "hono/body-limit";
import { DemoError } from "./common.js";
import { convertRoutes } from "./convert.js";
import { diagnosticsRoutes } from "./diagnostics.js";
import { kvRoutes } from "./kv.js";
import { mathRoutes } from "./math.js";
import { notesRoutes } from "./notes.js";
import { randomRoutes } from "./random.js";
import { textRoutes } from "./text.js";
import { timeRoutes } from "./time.js";

export type DemoServiceOptions = {
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Defaults to 127.0.0.1: the service is for loopback use only. */
  host?: string;
  /** Bearer token the protected routes accept; a random one is generated when omitted. */
  token?: string;
};

export type DemoService = {
  /** Base URL without a trailing slash, e.g. `http://127.0.0.1:40123`. */
  url: string;
  /** The bearer token to put in `DEMO_SERVICE_TOKEN`. */
  token: string;
  close(): Promise<void>;
};

export function createDemoApp(token: string, timers: Set<NodeJS.Timeout>): Hono {
  const app = new Hono();
  const started = Date.now();

  const authorized = (c: Context) => {
    const got = Buffer.from(c.req.header("authorization") ?? "");
    const want = Buffer.from(`Bearer ${token}`);
    return got.length === want.length && timingSafeEqual(got, want);
  };
  const requireAuth = (c: Context) => {
    if (!authorized(c)) throw new DemoError(401, "UNAUTHORIZED", "this route needs `Authorization: Bearer <DEMO_SERVICE_TOKEN>`");
  };

  app.use(
    bodyLimit({
      maxSize: 1024 * 1024,
      onError: () => {
        throw new DemoError(413, "TOO_LARGE", "the body is over 1 MB");
      },
    }),
  );

  app.onError((err, c) => {
    if (err instanceof DemoError) return c.json({ error: { code: err.code, message: err.message } }, err.status);
    return c.json({ error: { code: "INTERNAL", message: "internal error" } }, 500);
  });
  app.notFound((c) => c.json({ error: { code: "NOT_FOUND", message: `no route ${c.req.method} ${c.req.path}` } }, 404));

  app.get("/", (c) =>
    c.json({
      service: "toolbelt-demo",
      routes: ["/notes", "/text", "/time", "/convert", "/math", "/kv", "/random", "/health", "/echo", "/slow", "/fail", "/whoami", "/malformed"],
    }),
  );

  const notes = notesRoutes(app, requireAuth);
  textRoutes(app);
  timeRoutes(app);
  convertRoutes(app);
  mathRoutes(app);
  const kv = kvRoutes(app);
  randomRoutes(app);
  diagnosticsRoutes(app, { started, timers, notes: notes.size, keys: kv.size, requireAuth });
  return app;
}

/** Start the demo service on loopback; `close()` stops it, pending slow requests included. */
export async function startDemoService(opts: DemoServiceOptions = {}): Promise<DemoService> {
  const token = opts.token ?? randomBytes(24).toString("hex");
  const host = opts.host ?? "127.0.0.1";
  const timers = new Set<NodeJS.Timeout>();
  const app = createDemoApp(token, timers);
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const s = serve({ fetch: app.fetch, port: opts.port ?? 0, hostname: host }, () => resolve(s));
    s.once("error", reject);
  });
  const { port } = server.address() as AddressInfo;
  const urlHost = host.includes(":") ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${port}`,
    token,
    close: () =>
      new Promise<void>((resolve, reject) => {
        for (const t of timers) clearTimeout(t);
        timers.clear();
        server.close((err) => (err ? reject(err) : resolve()));
        if ("closeAllConnections" in server) server.closeAllConnections();
      }),
  };
}
