// The audit record of one call: who called what, on whose behalf, how it ended and how long it took.
// Built by the gateway for every call (REST, MCP, nested), written by the adapter as one JSON line.
// Argument values never appear unless the tool opts in (`audit_args`); a digest stands in for them.
import { createHash } from "node:crypto";
import type { CatalogTool } from "../../../registry/contract/artifact.js";
import type { ErrorCode } from "../errors.js";
import { canonicalJson } from "../../../registry/contract/tool-digest.js";

/** Where a call came in, set by the route that received it. */
export type CallContext = {
  /** The Lambda (or generated) request id. */
  request_id?: string;
  /** The caller's own id for a chain of requests (`X-Correlation-Id`), already checked. */
  correlation_id?: string;
  via?: "rest" | "mcp";
};

export type CallAudit = CallContext & {
  principal: string;
  /** Full name of the tool that ran (or would have); the name as sent when it resolved to none. */
  tool: string;
  /** The name as sent, when it was not the full name (a near miss, or the model-safe name). */
  resolved_from?: string;
  family?: string;
  kind?: string;
  session?: string;
  /** 0 for a direct call, 1 inside toolbelt.call. */
  depth: number;
  /** OK, or the error code the caller got. */
  outcome: "OK" | ErrorCode;
  /** The HTTP status the caller got (MCP carries it inside the tool result). */
  status: number;
  latency_ms: number;
  /** The upstream's HTTP status (http tools) when it answered. */
  upstream_status?: number;
  /** An exec tool's exit status when it failed. */
  exit_code?: number;
  /** The limit that refused the call (429 TOO_MANY_REQUESTS). */
  limit?: string;
  /** The approval a call was held under (202 APPROVAL_REQUIRED) or completed with. */
  approval?: string;
  /** Who approved the completed call. */
  approver?: string;
  /** What of an MCP tool's pinned definition its upstream changed: refused (UPSTREAM_DRIFT) or run under the family's `drift: warn`. */
  drift?: string[];
  /** SHA-256 (hex) of the arguments as sent, in canonical JSON: matches equal calls without storing values. */
  args_digest: string;
  /** The arguments themselves, only for tools whose registry entry sets `audit_args: true`. */
  args?: unknown;
  /** The input property naming whom the tool affects (registry `affects`), and its value's digest (or value, with `audit_args`). */
  affects?: string;
  affected_digest?: string;
  affected?: unknown;
  impact?: number;
  consequential?: true;
  destructive?: true;
  /** Set when the call carried an idempotency key: `replayed` means the first call's result was returned and the tool did not run. */
  idempotency?: "first" | "replayed";
  /** Pins the call's pin-on-use evicted from the session. */
  pins_evicted?: number;
  /** A prompt tool's model id and token usage, when its result's metadata carries them. */
  model?: unknown;
  usage?: unknown;
};

/** Where records go besides the log line (the audit store): `write` returns at once and never throws. */
export type AuditSink = { write(record: CallAudit, atMs?: number): void };

// One canonical form for argument digests and the pinned tool definitions.
export { canonicalJson };

/** SHA-256 hex of a value's canonical JSON. */
export function digestOf(value: unknown): string {
  return createHash("sha256")
    .update(canonicalJson(value) ?? "null", "utf8")
    .digest("hex");
}

/** The governance fields of the record: the tool's declarations, and whom this call affected (a digest unless the tool opts in). */
export function governanceFields(tool: CatalogTool, args: unknown): Partial<CallAudit> {
  const g = tool.governance;
  const open = g.audit_args === true;
  const out: Partial<CallAudit> = open ? { args } : {};
  if (g.affects !== undefined) {
    out.affects = g.affects;
    // Own properties only: a tool affecting `constructor` must not log Object's function.
    const sent = args && typeof args === "object" && Object.hasOwn(args, g.affects) ? (args as Record<string, unknown>)[g.affects] : undefined;
    if (sent !== undefined) {
      if (open) out.affected = sent;
      else out.affected_digest = digestOf(sent);
    }
  }
  if (g.impact !== undefined) out.impact = g.impact;
  if (g.consequential) out.consequential = true;
  if (g.destructive) out.destructive = true;
  return out;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Model id and token usage from a result's metadata (prompt tools), nothing else of it. */
export function modelFields(metadata: unknown): Partial<CallAudit> {
  if (!isRecord(metadata)) return {};
  return {
    ...(metadata.model !== undefined ? { model: metadata.model } : {}),
    ...(metadata.usage !== undefined ? { usage: metadata.usage } : {}),
  };
}

/** Upstream status and exit code from a failed call's error details. */
export function upstreamFields(details: Record<string, unknown> | undefined): Partial<CallAudit> {
  if (!details) return {};
  return {
    ...(typeof details.status === "number" ? { upstream_status: details.status } : {}),
    ...(typeof details.exit_code === "number" ? { exit_code: details.exit_code } : {}),
    // Which of the caller's limits refused the call (TOO_MANY_REQUESTS): requests_per_minute, concurrent_calls, ...
    ...(typeof details.limit === "string" ? { limit: details.limit } : {}),
    ...(Array.isArray(details.drift) ? { drift: details.drift as string[] } : {}),
  };
}
