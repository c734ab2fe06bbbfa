// GET /console: the operator console's page shell (public: it asks for an admin key and keeps it in page
// memory), and GET /console/assets/<file>: its script and style, built from console/ into assets.ts.
// Outside /v1, so createApp authenticates none of it; every data request the page makes carries the key.
import { Hono } from "hono";
import { ToolbeltError } from "../core/errors.js";
import type { RouteModule } from "../http/app.js";
import type { AppEnv } from "../http/env.js";
import { CONSOLE_ASSETS } from "./assets.js";

/** The page runs only its own script and style and talks only to its own origin. */
export const CONSOLE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const COMMON_HEADERS = { "content-security-policy": CONSOLE_CSP, "x-content-type-options": "nosniff", "referrer-policy": "no-referrer" };

// Relative addresses: the page works under an API stage prefix (/prod/console) as well as at the root.
const SHELL = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Toolbelt console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="console/assets/${CONSOLE_ASSETS.style.name}">
<script type="module" src="console/assets/${CONSOLE_ASSETS.script.name}"></script>
</head>
<body>
<noscript>The Toolbelt console needs JavaScript.</noscript>
<div id="app"></div>
</body>
</html>
`;

const ASSETS = new Map<string, { type: string; body: string }>([
  [CONSOLE_ASSETS.script.name, { type: "text/javascript; charset=utf-8", body: CONSOLE_ASSETS.script.body }],
  [CONSOLE_ASSETS.style.name, { type: "text/css; charset=utf-8", body: CONSOLE_ASSETS.style.body }],
]);

function routes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get("/console", (c) => c.body(SHELL, 200, { ...COMMON_HEADERS, "content-type": "text/html; charset=utf-8", "cache-control": "no-store" }));
  // The shell's relative addresses need the path without a trailing slash.
  app.get("/console/", (c) => c.redirect("../console", 308));
  app.get("/console/assets/:file", (c) => {
    const file = c.req.param("file");
    const asset = ASSETS.get(file);
    if (!asset) throw new ToolbeltError("NOT_FOUND", `no console asset ${JSON.stringify(file.slice(0, 100))}: reload /console`, { path: c.req.path });
    // Names carry their content's hash: a new build is a new name.
    return c.body(asset.body, 200, { ...COMMON_HEADERS, "content-type": asset.type, "cache-control": "public, max-age=31536000, immutable" });
  });
  return app;
}

/** Mount with createApp's `extraRoutes` (npm start's app and the console Lambda). */
export const consoleRoutes: RouteModule = { routes };
