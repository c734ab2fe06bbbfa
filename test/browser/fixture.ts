// The operator console's browser tests: `npm start`'s app (createLocalApp) on a loopback port over dynalite,
// the demo service the example families call, a stand-in for the MCP family's upstream that a test stops,
// and Debian's Chromium driven by playwright-core. The example registry gets one more family whose tool
// description carries HTML, so the page is seen to render registry strings as text.
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { emitArtifact } from "../../build/artifact.js";
import { startDemoService } from "../../dev/demo-service/index.js";
import { artifactFromFiles, type Artifact } from "../../lambdas/artifact.js";
import { loadConfig } from "../../lambdas/config.js";
import { localPolicyFile, sha256Hex } from "../../lambdas/core/auth.js";
import { memoryLogger } from "../../lambdas/http/logger.js";
import { createLocalApp } from "../../lambdas/local/local-app.js";
import { freePort } from "../../lambdas/local/ports.js";
import type { CatalogTool } from "../../registry/contract/artifact.js";
import { startDynalite } from "../helpers/dynalite.js";
import { serveApp } from "../helpers/server.js";
import { exampleArtifact } from "../helpers/example-registry.js";

export const KEYS = { admin: "console-admin-key", reader: "console-reader-key" } as const;
/** The non-admin principal: notes and time tools only. */
export const READER = { id: "reader", allow: ["notes.*", "time.*", "convert.*"] };
/** A registry string that would run script if the page parsed it as HTML. */
export const HTML_DESCRIPTION = 'Preview <img src="x" onerror="window.__injected = 1"> markup as <b>bold</b> text & more.';
/** How long the gateway keeps a round of health probes (TOOLBELT_HEALTH_CACHE_SECS). */
export const HEALTH_CACHE_SECS = 1;
export const SCREENSHOTS = fileURLToPath(new URL("./screenshots/", import.meta.url));

/** Debian's Chromium (`.ci/run` installs it): the tests fail, never skip, when it is missing. */
export function chromiumPath(): string {
  const found = [process.env.CHROMIUM_PATH, "/usr/bin/chromium", "/usr/bin/chromium-browser"].find((p) => p && existsSync(p));
  if (!found) {
    throw new Error(
      "Chromium is missing: the console's browser tests need Debian's chromium (apt-get install -y chromium; .ci/run installs it), or CHROMIUM_PATH set to a Chromium binary",
    );
  }
  return found;
}

// This machine's network is closed: without these flags Chromium keeps trying to reach Google's hosts.
const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export type TestBrowser = { context: BrowserContext; close(): Promise<void> };

/** Chromium with a fresh profile directory, removed on close. */
export async function launchBrowser(): Promise<TestBrowser> {
  const profile = await mkdtemp(join(tmpdir(), "toolbelt-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath(),
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1280, height: 900 },
  });
  return {
    context,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** The example registry with one more family, `markup`, whose only tool's description holds HTML. */
async function consoleArtifact(demoUrl: string): Promise<Artifact> {
  const example = await exampleArtifact();
  const tools: CatalogTool[] = example.tools.map(({ model_name: _name, ...t }) => ({ ...t }) as CatalogTool);
  tools.push({
    name: "markup.preview",
    family: "markup",
    kind: "http",
    description: HTML_DESCRIPTION,
    input_schema: { type: "object", properties: { text: { type: "string", description: "The <i>markup</i> to preview." } }, additionalProperties: false },
    governance: {},
    timeout_ms: 10_000,
    backend: { kind: "http", method: "POST", url: `${demoUrl}/text/echo`, output: "json" },
    source: "families/markup/tools.yaml",
  });
  const families = [
    ...example.families,
    { name: "markup", description: "Markup previews <script>window.__injected = 2</script>.", required: false, tool_count: 1, examples: ["preview"] },
  ];
  const files = await emitArtifact(
    { families, tools, always_loaded: example.manifest.always_loaded ?? [], skipped_families: example.manifest.skipped_families ?? [] },
    { countTokens: false },
  );
  return artifactFromFiles(files);
}

export type Stoppable = { url: string; stop(): Promise<void> };

/** A loopback HTTP server that answers every request 200: the MCP family's upstream as health probes it. */
async function standIn(): Promise<Stoppable> {
  const server: Server = createServer((_req, res) => res.writeHead(200, { "content-type": "application/json" }).end("{}"));
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  let stopped = false;
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    async stop() {
      if (stopped) return;
      stopped = true;
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}

export type ConsoleGateway = {
  url: string;
  artifact: Artifact;
  /** The MCP family's upstream (`everything`), stopped by the health test. */
  mcpUpstream: Stoppable;
  /** A request to the gateway as the admin (default), the reader, or without a key (null). */
  request(path: string, init?: { method?: string; body?: unknown; as?: keyof typeof KEYS | null }): Promise<Response>;
  close(): Promise<void>;
};

export async function startConsoleGateway(): Promise<ConsoleGateway> {
  const port = await freePort();
  const [dynamo, demo, mcpUpstream] = await Promise.all([startDynalite({ table: "toolbelt-console" }), startDemoService(), standIn()]);
  const artifact = await consoleArtifact(demo.url);
  const policy = localPolicyFile(KEYS.admin, "operator");
  policy.principals.push({ id: READER.id, description: "notes and time", keys: [sha256Hex(KEYS.reader)], allow: READER.allow, deny: [], admin: false });
  const local = createLocalApp({
    // One round of health probes is kept for a second, not 30: the health test sees a stopped upstream red at once.
    config: loadConfig({ TOOLBELT_TABLE: dynamo.table, TOOLBELT_HEALTH_CACHE_SECS: String(HEALTH_CACHE_SECS) }),
    env: { DEMO_SERVICE_URL: demo.url, DEMO_SERVICE_TOKEN: demo.token, EVERYTHING_MCP_URL: mcpUpstream.url },
    client: dynamo.client,
    artifact,
    policy,
    briefs: [{ version: 1, name: "notes-desk", description: "Take and find notes.", tools: ["notes.*"] }],
    logger: memoryLogger(),
    models: {},
    defaultFileRoots: [],
    internalPaths: [],
    port,
  });
  const server = await serveApp(local.app, port);
  const { url } = server;
  return {
    url,
    artifact,
    mcpUpstream,
    request(path, init = {}) {
      const as = init.as === undefined ? "admin" : init.as;
      const headers: Record<string, string> = {};
      if (as) headers.authorization = `Bearer ${KEYS[as]}`;
      if (init.body !== undefined) headers["content-type"] = "application/json";
      return fetch(`${url}${path}`, {
        method: init.method ?? (init.body === undefined ? "GET" : "POST"),
        headers,
        ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
      });
    },
    async close() {
      await server.close();
      await local.close();
      await Promise.all([demo.close(), dynamo.close(), mcpUpstream.stop()]);
    },
  };
}

/** Problems the page reported: script errors, failed loads, CSP violations (collected per page). */
export function watchPage(page: Page): string[] {
  const problems: string[] = [];
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("console", (m) => {
    // A refused data request is logged by Chromium as a failed load; the views show those themselves.
    if (m.type() === "error" && !/status of (401|403|404)/.test(m.text())) problems.push(`console: ${m.text()}`);
  });
  return problems;
}

/** Opens the console and enters `key` (admin by default) at its prompt. */
export async function openConsole(page: Page, gateway: ConsoleGateway, key: string = KEYS.admin): Promise<void> {
  await page.goto(`${gateway.url}/console`);
  await page.getByLabel("Admin API key").fill(key);
  await page.getByRole("button", { name: "Open the console" }).click();
}

const require = createRequire(import.meta.url);
let axeSource: Promise<string> | undefined;

export type AxeViolation = { id: string; impact?: string; help: string; nodes: { target: unknown[] }[] };

/** axe-core's WCAG 2.x A and AA rules on the page as it is; injected through the DevTools protocol (the page's CSP admits no inline script). */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  axeSource ??= readFile(require.resolve("axe-core/axe.min.js"), "utf8");
  const source = await axeSource;
  await page.evaluate(source);
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(ctx: Document, opts: unknown): Promise<{ violations: AxeViolation[] }> } }).axe;
    const r = await axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"] } });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) }));
  });
}

export async function screenshot(page: Page, name: string): Promise<string> {
  await mkdir(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}
