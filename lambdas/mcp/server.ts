// One MCP server instance per HTTP request (stateless: any Lambda instance serves any request), for
// both protocol revisions. The handlers are adapters over the same core functions REST uses: find,
// sessions (the belt) and the call gateway. Gateway errors come back as tool results with isError and
// REST's code and message; protocol errors stay JSON-RPC errors.
import { ProtocolError, ProtocolErrorCode, Server, type CallToolResult } from "@modelcontextprotocol/server";
import type { BriefFile } from "../../registry/contract/brief.js";
import { modelNameOf } from "../../registry/contract/names.js";
import type { CallContext } from "../core/call/audit.js";
import type { CallGateway, CallOptions } from "../core/call/gateway.js";
import type { CallResponse } from "../core/call/types.js";
import { listProblems, ToolbeltError } from "../core/errors.js";
import type { Caller, SessionRecord } from "../core/ports.js";
import { shortDescription } from "../../registry/contract/surface-entry.js";
import type { Deps } from "../http/deps.js";
import { formatIssues } from "../http/parse.js";
import { findFacts, writeFind } from "../http/telemetry.js";
import type * as z from "../core/zod-mini.js";
import { CALL_TOOL, CallToolInput, FIND_TOOL, FindToolInput, metaRegistryName, type ToolLists } from "./tools.js";

/** How long a client may reuse a `tools/list` answer (2026-07-28 cache hint): it changes only with a deploy or a policy edit. */
export const TOOLS_LIST_TTL_MS = 5 * 60 * 1000;

export type McpRequestState = {
  caller: Caller;
  brief?: BriefFile;
  /** Upper bound on a tool's timeout (what is left of a Lambda invocation). */
  maxTimeoutMs?: number;
  requestId: string;
  /** Request and correlation ids for the audit records of the calls this request makes. */
  context?: CallContext;
  /** This request's tools/call `arguments` as sent (routes/mcp.ts): reserved keys the SDK's parse drops stay visible. */
  rawArguments?: Record<string, unknown>;
};

export type McpServerDeps = {
  deps: Deps;
  gateway: CallGateway;
  lists: ToolLists;
  version: string;
};

type Content = CallToolResult["content"];

/** The `_meta` key of a tools/call that completes a call held for approval (its value: the approval id). */
export const APPROVAL_META = "toolbelt/approval";

/** Where a cut answer's part is described, and where a program sends a continuation token on a direct tools/call. */
export const CONTINUATION_META = "toolbelt/continuation";

const text = (value: unknown): Content[number] => ({ type: "text", text: typeof value === "string" ? value : JSON.stringify(value) });
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * A gateway message in the words of an MCP client, which has find_tool and opens a belt with it: REST's
 * "use toolbelt.find" and "open one with POST /v1/sessions" named what it cannot call.
 */
function mcpMessage(e: ToolbeltError): string {
  const belt = JSON.stringify(e.details.session);
  if (e.code === "SESSION_NOT_FOUND") return `no belt ${belt} for this API key: call ${FIND_TOOL} without \`belt\` to open a new one`;
  if (e.code === "SESSION_EXPIRED") return `belt ${belt} expired: call ${FIND_TOOL} without \`belt\` to open a new one`;
  // Only the advice: a suggestion of toolbelt.find stays (call_tool takes that name).
  return e.message.replaceAll("use toolbelt.find ", `use ${FIND_TOOL} `);
}

/** A gateway error as a tool result: the REST error body, as text and (where no outputSchema constrains it) as structured content. */
function errorResult(e: ToolbeltError, structured: boolean): CallToolResult {
  // An upstream MCP tool that reported isError: its own content passes through.
  if (e.code === "UPSTREAM_ERROR" && e.details.is_error === true && Array.isArray(e.details.content)) {
    return { content: e.details.content as Content, isError: true };
  }
  const body = { error: { code: e.code, message: mcpMessage(e), details: e.details } };
  return { content: [text(body)], ...(structured ? { structuredContent: body } : {}), isError: true };
}

/** A successful gateway answer as a tool result: an MCP upstream's result as it came, any other value as JSON. */
/** A cut answer: its part as text, then where the next part is (call_tool: the one way a model can send a token). */
function partResult(deps: Deps, response: CallResponse, part: NonNullable<CallResponse["continuation"]>): CallToolResult {
  const tool = deps.artifact.byName.get(response.tool);
  const name = tool ? modelNameOf(tool) : response.tool;
  const where = `characters ${part.from} to ${part.to} of ${part.total_chars} of the ${part.format === "json" ? "answer's JSON text" : "answer"}`;
  const next = part.token
    ? `; for the next part call call_tool {"tool": "${name}", "continuation": "${part.token}"}`
    : "; this is the last part: join the parts in order";
  return {
    content: [text(response.result), text(`(toolbelt: the answer was over ${name}'s token budget: this is ${where}${next})`)],
    _meta: { [CONTINUATION_META]: part },
  };
}

function successResult(deps: Deps, response: CallResponse): CallToolResult {
  if (response.continuation) return partResult(deps, response, response.continuation);
  const tool = deps.artifact.byName.get(response.tool);
  const r = response.result;
  if (tool?.backend.kind === "mcp" && isRecord(r) && Array.isArray(r.content)) {
    return {
      content: r.content as Content,
      ...(r.structuredContent !== undefined ? { structuredContent: r.structuredContent as Record<string, unknown> } : {}),
      ...(r.isError === true ? { isError: true } : {}),
    };
  }
  return { content: [text(r ?? null)], ...(isRecord(r) ? { structuredContent: r } : {}) };
}

function invalidArguments(tool: string, error: z.core.$ZodError, allowed: string[]): ToolbeltError {
  const { listed, more, tail } = listProblems(formatIssues(error, allowed));
  return new ToolbeltError("INVALID_ARGUMENTS", `the arguments for ${tool} do not match its input schema: ${listed.map((p) => p.message).join("; ")}${tail}`, {
    tool,
    problems: listed,
    ...(more ? { more_problems: more } : {}),
  });
}

/**
 * The belt's pinned tools, granted and still in the catalog, most recently used first: a name and one line each
 * (the agent saw their schemas when it found them; a find_tool by the exact name shows one again), so a
 * long session's pins do not grow every answer.
 */
function pinnedTools(deps: Deps, session: SessionRecord, caller: Caller) {
  return [...session.pins]
    .reverse()
    .filter((p) => caller.granted(p.name) && deps.artifact.byName.has(p.name))
    .map((p) => {
      const t = deps.artifact.byName.get(p.name)!;
      return { name: modelNameOf(t), description: shortDescription(t.description, 160) };
    });
}

/**
 * The meta-tool an agent means by passing MCP's name of it to call_tool (`{"tool": "find_tool"}`): the gateway
 * knows it as toolbelt.find. A catalog tool of that model-safe name (find.tool) keeps it.
 */
function metaByMcpName(deps: Deps, tool: string): string | undefined {
  const meta = metaRegistryName(tool);
  // The same test as the list's (tools.ts, directCatalogTools): the catalog tool projects onto that name.
  return meta && !deps.artifact.tools.some((t) => modelNameOf(t) === tool) ? meta : undefined;
}

export function createMcpServer(sd: McpServerDeps, state: McpRequestState): Server {
  const { deps, gateway, lists } = sd;
  const { caller, brief } = state;
  const server = new Server(
    { name: "toolbelt", version: sd.version },
    {
      capabilities: { tools: { listChanged: false } },
      // The list depends on the key and the URL only: a client may keep it, never share it.
      cacheHints: { "tools/list": { ttlMs: TOOLS_LIST_TTL_MS, cacheScope: "private" } },
      // The capability manifest of the REST surface (same order, same fitting), in what tools/list leaves of the
      // surface's token budget, as text a client hands its model.
      instructions: lists.instructions(caller, brief, (used) => deps.sessions.manifest(caller, brief?.tools ?? [], used)),
    },
  );

  // Completing a held call (core/approvals.ts): the approval id rides in tools/call's _meta, the arguments stay as held.
  let approval: string | undefined;
  const callOptions = (signal: AbortSignal): CallOptions => ({
    signal,
    ...(approval !== undefined ? { approval } : {}),
    ...(state.maxTimeoutMs !== undefined ? { maxTimeoutMs: state.maxTimeoutMs } : {}),
    ...(state.context ? { context: state.context } : {}),
  });

  server.setRequestHandler("tools/list", () => ({ tools: lists.list(caller, brief) as never }));

  const findTool = async (raw: unknown): Promise<CallToolResult> => {
    const started = performance.now();
    const parsed = FindToolInput.safeParse(raw ?? {});
    if (!parsed.success) throw invalidArguments(FIND_TOOL, parsed.error, Object.keys(FindToolInput.shape));
    const { belt, ...request } = parsed.data;
    // The first search opens the belt (a session with the URL's brief); later ones read it (it must be the caller's).
    const session = belt ? await deps.sessions.get(belt, caller) : await deps.sessions.open(caller, brief?.name);
    // Tools on this list (always-loaded, the brief's) are in the client's hands with their schemas: results name them only.
    const listed = lists.listed(caller, brief);
    const result = await deps.finder.find(request, caller.granted, { onBelt: (name) => listed.has(name) });
    writeFind(deps.logger, result.verdict, { ...state.context, ...findFacts(caller.principal, request.query, result, started) }, deps.config.metricsNamespace);
    deps.findMisses?.observe(request, result, caller);
    const onBelt = new Set(deps.sessions.beltNames(session, caller));
    // find's whole answer, as REST's /v1/find and toolbelt.find give it (the verdict's reasons, decision mode's
    // metadata), but the always-loaded tools, which tools/list already holds, and with tools under their MCP names.
    const { tools, always: _always, verdict, mode, ...rest } = result;
    const structured = {
      belt: session.id,
      verdict,
      mode,
      ...rest,
      pinned: pinnedTools(deps, session, caller),
      tools: tools.map(({ name, model_name, family: _f, ...t }) => ({ name: model_name, ...t, on_belt: onBelt.has(name) })),
    };
    return { content: [text(structured)], structuredContent: structured };
  };

  const callTool = async (raw: unknown, signal: AbortSignal): Promise<CallToolResult> => {
    const parsed = CallToolInput.safeParse(raw ?? {});
    if (!parsed.success) throw invalidArguments(CALL_TOOL, parsed.error, Object.keys(CallToolInput.shape));
    const { belt, idempotency_key } = parsed.data;
    // The inner arguments as sent, not zod's copy (as REST does): the gateway refuses reserved keys.
    const sentArgs = state.rawArguments?.args;
    const args = isRecord(sentArgs) ? sentArgs : parsed.data.args;
    const tool = metaByMcpName(deps, parsed.data.tool) ?? parsed.data.tool;
    const { continuation } = parsed.data;
    const response = await gateway.call({ tool, args, ...(continuation ? { continuation } : {}), ...(belt ? { session: belt } : {}) }, caller, {
      ...callOptions(signal),
      ...(idempotency_key !== undefined ? { idempotencyKey: idempotency_key } : {}),
    });
    const result = successResult(deps, response);
    const ran = deps.artifact.byName.get(response.tool);
    const name = ran ? modelNameOf(ran) : response.tool;
    const note = belt
      ? `(toolbelt: ran ${name}; it is pinned on belt ${belt}: keep calling it with call_tool {"tool": "${name}", "belt": "${belt}"})`
      : `(toolbelt: ran ${name}; pass the belt id from find_tool as \`belt\` to keep it pinned)`;
    return {
      ...result,
      content: [...result.content, text(note)],
      _meta: { ...result._meta, "toolbelt/tool": response.tool, ...(response.resolved_from ? { "toolbelt/resolved_from": response.resolved_from } : {}) },
    };
  };

  server.setRequestHandler("tools/call", async (request, ctx) => {
    const { name } = request.params;
    const held = request.params._meta?.[APPROVAL_META];
    approval = typeof held === "string" ? held : undefined;
    const args = state.rawArguments ?? request.params.arguments;
    const meta = name === FIND_TOOL || name === CALL_TOOL;
    const listed = lists.list(caller, brief).find((t) => t.name === name);
    // The tool a refusal is about: call_tool's target, not call_tool.
    const inner = name === CALL_TOOL && isRecord(args) && typeof args.tool === "string" ? args.tool.slice(0, 200) : name;
    try {
      if (name === FIND_TOOL) return await findTool(args);
      if (name === CALL_TOOL) return await callTool(args, ctx.mcpReq.signal);
      // A direct tool (listed or not: any granted tool by any of its names), through the same gateway.
      const continuation = request.params._meta?.[CONTINUATION_META];
      const response = await gateway.call(
        { tool: name, args: args ?? {}, ...(typeof continuation === "string" ? { continuation } : {}) },
        caller,
        callOptions(ctx.mcpReq.signal),
      );
      return successResult(deps, response);
    } catch (e) {
      if (!(e instanceof ToolbeltError) || !e.expose) {
        deps.logger.error("mcp tool call failed", { request_id: state.requestId, tool: inner, error: e });
        throw new ProtocolError(ProtocolErrorCode.InternalError, `internal error; quote request id ${state.requestId} when reporting it`);
      }
      // As REST logs: 5xx at error, the caller's 4xx at warn with the message (no stack).
      if (e.status >= 500) deps.logger.error("mcp tool call failed", { request_id: state.requestId, tool: inner, code: e.code });
      else deps.logger.warn("mcp tool call refused", { request_id: state.requestId, tool: inner, code: e.code, message: e.message });
      // The MCP spec makes an unknown tool a protocol error; call_tool naming one stays a tool error (its argument was wrong).
      if (!meta && e.code === "TOOL_NOT_FOUND")
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, mcpMessage(e), { error: { code: e.code, details: e.details } });
      return errorResult(e, meta || !listed?.outputSchema);
    }
  });

  return server;
}
