// POST /mcp and POST /mcp/briefs/{brief}: the MCP endpoint (Streamable HTTP, stateless JSON
// responses) in the one Hono app, for protocol revisions 2026-07-28 (the SDK's per-request handler)
// and 2025-11-25 (a fresh server over the SDK's stateless transport, JSON instead of SSE, so a
// buffered Lambda answer is a plain JSON body). Bearer keys as on REST; CORS for browser clients.
import {
  createMcpHandler,
  isLegacyRequest,
  WebStandardStreamableHTTPServerTransport,
  type AuthInfo,
  type McpRequestContext,
} from "@modelcontextprotocol/server";
import { Hono, type Context } from "hono";
import { ToolbeltError } from "../../core/errors.js";
import { createMcpServer, type McpRequestState, type McpServerDeps } from "../../mcp/server.js";
import { createToolLists } from "../../mcp/tools.js";
import type { RouteModule } from "../app.js";
import { createAppCallGateway, type CallGatewayOptions } from "../call-gateway.js";
import { hasDecider, type Deps } from "../deps.js";
import { MCP_PATHS } from "../openapi-mcp.js";
import { authenticateRequest, gatewayResources } from "./oauth-metadata.js";
import { callContext, type AppEnv } from "../env.js";
import { MAX_JSON_DEPTH, jsonDepth } from "../parse.js";

export type McpModuleOptions = CallGatewayOptions;

export type McpModule = RouteModule & { close(): Promise<void> };

/** Time kept back from a Lambda invocation to answer after a tool timed out. */
const LAMBDA_MARGIN_MS = 1000;

const jsonRpcError = (status: number, code: number, message: string, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });

/** The raw `params.arguments` of a tools/call message (one message per request: batches are refused). */
function rawArgumentsOf(body: unknown): Pick<McpRequestState, "rawArguments"> {
  if (typeof body !== "object" || body === null) return {};
  const { method, params } = body as { method?: unknown; params?: { arguments?: unknown } };
  if (method !== "tools/call" || typeof params !== "object" || params === null) return {};
  const args = params.arguments;
  return typeof args === "object" && args !== null && !Array.isArray(args) ? { rawArguments: args as Record<string, unknown> } : {};
}

/** Run `build` with the SDK's console warnings held back (its JSON-mode note; startup only, never per request). */
function quietly<T>(build: () => T): T {
  // biome-ignore lint/suspicious/noConsole: the SDK warns unconditionally through console; held back once at startup.
  const warn = console.warn;
  console.warn = () => undefined;
  try {
    return build();
  } finally {
    console.warn = warn;
  }
}

export function createMcpModule(options: McpModuleOptions): McpModule {
  const closers: (() => Promise<void>)[] = [];
  return {
    openapi: MCP_PATHS,
    async close() {
      await Promise.all(closers.map((c) => c()));
    },
    routes(deps: Deps) {
      const { gateway, close } = createAppCallGateway(deps, options);
      closers.push(close);
      const sd: McpServerDeps = {
        deps,
        gateway,
        lists: createToolLists(deps.artifact.tools, deps.isAlwaysLoaded, { decisionMode: hasDecider(deps.models) }),
        version: deps.artifact.manifest.registry_hash.slice(0, 12),
      };
      const stateOf = (ctx: McpRequestContext): McpRequestState => {
        const state = ctx.authInfo?.extra?.toolbelt as McpRequestState | undefined;
        if (!state) throw new Error("MCP request without an authenticated caller");
        return state;
      };
      const factory = (ctx: McpRequestContext) => createMcpServer(sd, stateOf(ctx));
      const maxRequestBodySize = deps.config.http.maxBodyBytes;
      const onerror = (error: Error) => deps.logger.warn("mcp request refused", { error: error.message });
      // Modern (2026-07-28) requests: the SDK validates the envelope and the Mcp-* headers (400, -32020).
      // Its warning that JSON mode cannot stream is ours to say once, in the docs: it would print at every start.
      const modern = quietly(() => createMcpHandler(factory, { legacy: "reject", responseMode: "json", maxRequestBodySize, onerror }));
      closers.push(() => modern.close());

      const legacy = async (request: Request, authInfo: AuthInfo, parsedBody: unknown): Promise<Response> => {
        const server = factory({ era: "legacy", authInfo, requestInfo: request });
        const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
        await server.connect(transport);
        try {
          return await transport.handleRequest(request, { authInfo, ...(parsedBody !== undefined ? { parsedBody } : {}) });
        } finally {
          await transport.close().catch(() => undefined);
          await server.close().catch(() => undefined);
        }
      };

      const resources = gatewayResources(deps.config.origins.own);
      const serve = async (c: Context<AppEnv>, briefName?: string): Promise<Response> => {
        const caller = await authenticateRequest(deps, c, resources);
        const brief = briefName === undefined ? undefined : deps.briefs.get(briefName);
        if (briefName !== undefined && !brief) {
          throw new ToolbeltError(
            "NOT_FOUND",
            `no brief named ${JSON.stringify(briefName.slice(0, 80))}: use /mcp, or /mcp/briefs/<name> with one of the listed names`,
            {
              brief: briefName.slice(0, 80),
              available: [...deps.briefs.keys()].sort(),
            },
          );
        }
        const text = await c.req.text();
        if (jsonDepth(text) > MAX_JSON_DEPTH) return jsonRpcError(400, -32600, `request body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`);
        let parsedBody: unknown;
        try {
          parsedBody = JSON.parse(text);
        } catch {
          // Not JSON: the SDK answers it with its own parse error.
        }
        // Batches left the protocol in 2025-06-18: one request holds one message, so it cannot hold a hundred upstream calls.
        if (Array.isArray(parsedBody)) return jsonRpcError(400, -32600, "JSON-RPC batches are not supported: send one message per request");
        const lambda = c.env?.lambdaContext as { getRemainingTimeInMillis?: () => number } | undefined;
        const remaining = lambda?.getRemainingTimeInMillis?.();
        const state: McpRequestState = {
          caller,
          ...(brief ? { brief } : {}),
          ...(remaining !== undefined ? { maxTimeoutMs: Math.max(1, remaining - LAMBDA_MARGIN_MS) } : {}),
          requestId: c.get("requestId"),
          context: callContext(c, "mcp"),
          // tools/call arguments as sent: the SDK's parse drops an own `__proto__` key, which the gateway must see to refuse.
          ...rawArgumentsOf(parsedBody),
        };
        // The key is checked here, once; the SDK only carries who the caller is to the factory.
        const authInfo: AuthInfo = { token: "", clientId: caller.principal, scopes: [], extra: { toolbelt: state } };
        const request = new Request(c.req.url, { method: "POST", headers: c.req.raw.headers, body: text, signal: c.req.raw.signal });
        if (await isLegacyRequest(request, parsedBody, { maxRequestBodySize })) return legacy(request, authInfo, parsedBody);
        return modern.fetch(request, { authInfo, ...(parsedBody !== undefined ? { parsedBody } : {}) });
      };

      // Stateless: no GET stream to resume and no session to delete (405, as both revisions allow).
      const notAllowed = () => jsonRpcError(405, -32000, "Method not allowed: this MCP endpoint is stateless, use POST", { allow: "POST" });

      const app = new Hono<AppEnv>();
      app.post("/mcp", (c) => serve(c));
      app.post("/mcp/briefs/:brief", (c) => serve(c, c.req.param("brief")));
      app.on(["GET", "DELETE", "PUT", "PATCH"], ["/mcp", "/mcp/briefs/:brief"], notAllowed);
      return app;
    },
  };
}
