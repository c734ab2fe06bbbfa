// The mcp backend: forward tools/call to the upstream over Streamable HTTP with the official SDK
// client. One connected client per upstream (URL + headers) is reused across calls and replaced
// when its connection fails. Before a call, a tool pinned by the build is checked against the live
// tools/list (cached per upstream for at most `drift.maxAgeMs`): a changed definition is refused.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { BackendContext, BackendOutput, ToolBackend } from "../core/call/types.js";
import { sentArguments } from "../core/call/validate.js";
import { ToolbeltError } from "../core/errors.js";
import { driftOf, type ToolDigest, type UpstreamTool } from "../../registry/contract/tool-digest.js";
import type { CatalogTool } from "../../registry/contract/artifact.js";
import { noteDrift, type DriftEvent } from "./mcp-drift.js";
import { renderString, Secrets, type RenderContext } from "./templates.js";
import { callerCredentialHeader, type CallerCredentials, type FamilyViews } from "./variables.js";

/**
 * `views`: what `${VAR}` in the endpoint and headers reads (the tool's family's declared variables);
 * `credentials`: families that call their upstream with the caller's own token.
 */
export type McpBackendOptions = {
  views: FamilyViews;
  clientInfo?: { name: string; version: string };
  credentials?: CallerCredentials;
  drift?: McpDriftOptions;
};

export type McpDriftOptions = {
  /** How old an upstream's cached tools/list may be when a call is checked against it (default 5 minutes; 0: listed before every call). */
  maxAgeMs?: number;
  /** A changed tool called anyway because its family says `drift: warn`: the wiring logs it. */
  onWarn?: (event: DriftEvent) => void;
  now?: () => number;
};

/** The longest the gateway trusts a live tools/list by default: a changed tool is refused within 5 minutes. */
export const DEFAULT_LIST_MAX_AGE_MS = 300_000;
/** As many pages as registry:pull reads: a tool on a later page would otherwise look removed. */
const MAX_LIST_PAGES = 1000;
export type McpBackend = ToolBackend & {
  /** Close every pooled upstream connection (tests, local server shutdown). */
  close(): Promise<void>;
  /** Number of pooled upstream clients. */
  readonly size: number;
};

type Pooled = { client: Promise<Client>; instance: Client; used: boolean; connected: boolean };

/** The handshake takes no signal of its own: stop waiting for it when the call is over. */
function untilAborted<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/**
 * The upstream refused the request before running any tool: an unknown session (the server
 * restarted; servers answer 404 or 400) or nobody listening. Only then is a retry safe.
 */
function rejectedBeforeRun(e: unknown): boolean {
  if (e instanceof StreamableHTTPError) return e.code === 404 || e.code === 400;
  const cause = (e as { cause?: { code?: string } } | undefined)?.cause;
  return cause?.code === "ECONNREFUSED";
}

/** The upstream answered, but not with JSON-RPC: text that is not JSON, or JSON the SDK's message schema refuses. */
const garbled = (e: unknown): boolean => e instanceof SyntaxError || (e instanceof Error && Array.isArray((e as { issues?: unknown }).issues));

const textOf = (content: unknown): string =>
  Array.isArray(content)
    ? content
        .filter((c): c is { type: "text"; text: string } => c?.type === "text" && typeof c.text === "string")
        .map((c) => c.text)
        .join("\n")
    : "";

/** The error for an upstream request that failed (`what` it did), its message free of the call's secrets. */
function failure(tool: CatalogTool, e: unknown, secrets: Secrets, what: string): ToolbeltError {
  const why = secrets.redact(e instanceof Error ? e.message : String(e));
  if (garbled(e)) {
    return new ToolbeltError("UPSTREAM_BAD_OUTPUT", `${tool.name}: the MCP upstream answered something that is not JSON-RPC: ${why}`, { tool: tool.name });
  }
  // Invalid params: the upstream refused these arguments (422); any other failure is the upstream's (502).
  if (e instanceof McpError && e.code === ErrorCode.InvalidParams) {
    return new ToolbeltError("UPSTREAM_REJECTED_INPUT", `${tool.name}: the MCP upstream refused the arguments: ${why}`, {
      tool: tool.name,
      mcp_code: e.code,
    });
  }
  return new ToolbeltError("UPSTREAM_ERROR", `${tool.name}: the MCP upstream ${what}: ${why}`, {
    tool: tool.name,
    ...(e instanceof McpError ? { mcp_code: e.code } : {}),
  });
}

export function createMcpBackend(options: McpBackendOptions): McpBackend {
  const info = options.clientInfo ?? { name: "toolbelt-gateway", version: "1" };
  const pool = new Map<string, Pooled>();
  const maxAgeMs = options.drift?.maxAgeMs ?? DEFAULT_LIST_MAX_AGE_MS;
  const now = options.drift?.now ?? Date.now;
  /** Each upstream's live tools/list by pool key, read on first use (per cold start) and again once older than maxAgeMs. */
  const lists = new Map<string, { at: number; tools: Promise<Map<string, UpstreamTool>> }>();

  const connect = (url: string, headers: Record<string, string>): Pooled => {
    const client = new Client(info, { capabilities: {} });
    const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
    const entry: Pooled = {
      client: client.connect(transport).then(() => ((entry.connected = true), client)),
      instance: client,
      used: false,
      connected: false,
    };
    // Nobody may be awaiting a handshake that was given up on.
    entry.client.catch(() => undefined);
    return entry;
  };

  const evict = (key: string, entry: Pooled) => {
    if (pool.get(key) !== entry) return;
    pool.delete(key);
    // Closing the instance also aborts a handshake still in flight.
    void entry.instance.close().catch(() => undefined);
  };

  const callOnce = (key: string, url: string, headers: Record<string, string>, name: string, args: Record<string, unknown>, ctx: BackendContext) =>
    // The gateway's own timer ends the call; the SDK's is only a backstop, set past it.
    withPooled(key, url, headers, ctx, (client) =>
      client.callTool({ name, arguments: args }, undefined, { signal: ctx.signal, timeout: ctx.timeoutMs + 5_000 }),
    );

  const withPooled = async <T>(
    key: string,
    url: string,
    headers: Record<string, string>,
    ctx: Pick<BackendContext, "signal">,
    op: (client: Client) => Promise<T>,
  ): Promise<{ ok: true; result: T } | { ok: false; error: unknown; retry: boolean }> => {
    let entry = pool.get(key);
    if (!entry) {
      entry = connect(url, headers);
      pool.set(key, entry);
    }
    const reused = entry.used;
    entry.used = true;
    try {
      const client = await untilAborted(entry.client, ctx.signal);
      return { ok: true as const, result: await op(client) };
    } catch (e) {
      if (ctx.signal.aborted) {
        // A connection that never finished its handshake would hold every later call: start afresh.
        if (!entry.connected) evict(key, entry);
        throw ctx.signal.reason;
      }
      // A JSON-RPC error answered by the server leaves the connection usable; anything else does not.
      const answered = e instanceof McpError && e.code !== ErrorCode.ConnectionClosed;
      if (!answered) evict(key, entry);
      return { ok: false as const, error: e, retry: reused && rejectedBeforeRun(e) };
    }
  };

  /** Every page of the upstream's tools/list, by name. */
  const listAll = async (client: Client, signal: AbortSignal): Promise<Map<string, UpstreamTool>> => {
    const tools = new Map<string, UpstreamTool>();
    const cursors = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < MAX_LIST_PAGES; page++) {
      const res = await client.listTools(cursor ? { cursor } : {}, { signal });
      for (const t of res.tools) tools.set(t.name, t as UpstreamTool);
      cursor = res.nextCursor;
      // A server that repeats a cursor would page forever (as registry:pull reads it).
      if (!cursor || cursors.has(cursor)) break;
      cursors.add(cursor);
    }
    return tools;
  };

  /** The live list, shared by concurrent calls; a failed read is forgotten so the next call reads again. */
  const liveTools = (key: string, url: string, headers: Record<string, string>, timeoutMs: number) => {
    const cached = lists.get(key);
    if (cached && now() - cached.at < maxAgeMs) return cached.tools;
    // Not any one call's signal: other calls wait on the same read.
    const signal = AbortSignal.timeout(timeoutMs);
    const read = async () => {
      let attempt = await withPooled(key, url, headers, { signal }, (client) => listAll(client, signal));
      if (!attempt.ok && attempt.retry) attempt = await withPooled(key, url, headers, { signal }, (client) => listAll(client, signal));
      if (!attempt.ok) throw attempt.error;
      return attempt.result;
    };
    const entry = { at: now(), tools: read() };
    lists.set(key, entry);
    entry.tools.catch(() => lists.get(key) === entry && lists.delete(key));
    return entry.tools;
  };

  /** Refuse a tool whose live definition is not the one pinned (or run it with a warning, when its family allows). */
  const checkPinned = async (
    tool: CatalogTool,
    pin: ToolDigest,
    key: string,
    url: string,
    headers: Record<string, string>,
    ctx: BackendContext,
    secrets: Secrets,
  ) => {
    const upstreamTool = (tool.backend as { tool: string }).tool;
    let live: Map<string, UpstreamTool>;
    try {
      live = await untilAborted(liveTools(key, url, headers, ctx.timeoutMs + 5_000), ctx.signal);
    } catch (e) {
      if (ctx.signal.aborted) throw ctx.signal.reason;
      throw failure(tool, e, secrets, "could not list its tools to check the pinned definition");
    }
    const changed = driftOf(pin, live.get(upstreamTool));
    if (changed.length === 0) return;
    const event: DriftEvent = { tool: tool.name, upstream_tool: upstreamTool, drift: changed };
    if (pin.drift === "warn") {
      noteDrift(changed);
      options.drift?.onWarn?.(event);
      return;
    }
    throw new ToolbeltError(
      "UPSTREAM_DRIFT",
      `${tool.name}: the MCP upstream ${changed[0] === "removed" ? "no longer lists" : `changed the ${changed.join(", ")} of`} \`${upstreamTool}\` since it was pulled and reviewed; the call was not made. An operator must review the change and pull again (registry:pull --check lists it)`,
      event,
    );
  };

  return {
    get size() {
      return pool.size;
    },
    async close() {
      const entries = [...pool.values()];
      pool.clear();
      lists.clear();
      await Promise.all(entries.map((e) => e.instance.close().catch(() => undefined)));
    },
    async invoke(tool, args, ctx): Promise<BackendOutput> {
      const b = tool.backend;
      if (b.kind !== "mcp") throw new ToolbeltError("INTERNAL", `${tool.name} is not an mcp tool`);
      const view = options.views(tool.family);
      const secrets = new Secrets(view.secrets);
      const rc: RenderContext = { input: args, env: view.env, secrets, tool: tool.name };
      const url = renderString(b.url, rc);
      const headers: Record<string, string> = {};
      for (const [k, t] of Object.entries(b.headers ?? {})) headers[k] = renderString(t, rc);
      const own = await callerCredentialHeader(tool.family, ctx.caller, options.credentials);
      if (own) {
        secrets.add(own.token);
        headers[own.name] = own.value;
      }
      // The headers are part of the key: each principal's token gets its own connection, never another's.
      const key = JSON.stringify([url, headers]);
      // Pulled tools carry their upstream's per-part digests; others (hand-written mcp tools) have nothing to compare.
      if (tool.digest?.fields) await checkPinned(tool, tool.digest, key, url, headers, ctx, secrets);

      // Only what the caller sent: the upstream applies its own defaults.
      const sent = sentArguments(args);
      let attempt = await callOnce(key, url, headers, b.tool, sent, ctx);
      // A stale pooled connection (upstream restarted, session expired): reconnect once.
      if (!attempt.ok && attempt.retry) attempt = await callOnce(key, url, headers, b.tool, sent, ctx);
      if (!attempt.ok) throw failure(tool, attempt.error, secrets, "failed");
      const result = secrets.redactDeep(attempt.result) as Record<string, unknown>;
      if (result.isError === true) {
        const text = textOf(result.content);
        throw new ToolbeltError("UPSTREAM_ERROR", `${tool.name} reported an error: ${text || "(no message)"}`, {
          tool: tool.name,
          is_error: true,
          content: result.content,
        });
      }
      if (tool.output_schema && result.structuredContent === undefined) {
        throw new ToolbeltError("OUTPUT_SCHEMA_MISMATCH", `${tool.name} declares an output schema but its upstream returned no structuredContent`, {
          tool: tool.name,
          problems: [{ path: "$", message: "structuredContent is missing", keyword: "required" }],
        });
      }
      return { result, ...(result.structuredContent !== undefined ? { checked: result.structuredContent } : {}) };
    },
  };
}
