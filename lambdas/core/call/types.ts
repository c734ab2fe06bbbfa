// The call contract and the ports the gateway needs; adapters (routes, handlers, backends, stores) fill them.
import type { CatalogTool } from "../../../registry/contract/artifact.js";
import type { ToolKind } from "../../../registry/contract/tool.js";
import type { CallBody, CallMetadata, CallResponse } from "../../contract/call.js";
import type { Caller, MissRecorder, SessionRecord } from "../ports.js";
import type { CallAudit } from "./audit.js";
import type { IdempotencyOptions } from "./idempotency.js";
import type * as z from "../zod-mini.js";

export type { CallResponse };

/** POST /v1/call's body; `args` may be anything here (a nested toolbelt.call passes what it got): the tool's schema checks it. */
export type CallRequest = Omit<z.input<typeof CallBody>, "args"> & { args?: unknown };

export type BackendContext = {
  /** Aborted when the tool's timeout passes or the request goes away. */
  signal: AbortSignal;
  timeoutMs: number;
  caller: Caller;
  session?: string;
  /** Nesting depth: 0 for a direct call, 1 inside toolbelt.call. */
  depth: number;
  /** A nested call through the same gateway, with the same caller and authorization. */
  call(request: CallRequest): Promise<CallResponse>;
};

export type BackendOutput = {
  result: unknown;
  /** What `output_schema` is checked against, when it is not `result` itself (MCP structured content). */
  checked?: unknown;
  /** The upstream's HTTP status (http tools), for the audit record. */
  upstream_status?: number;
  /** Prompt tools: the model that answered and its token usage (into the response and the audit line). */
  metadata?: CallMetadata;
};

export type ToolBackend = {
  invoke(tool: CatalogTool, args: Record<string, unknown>, ctx: BackendContext): Promise<BackendOutput>;
};

export type Backends = Partial<Record<ToolKind, ToolBackend>>;

export type Logger = (level: "info" | "warn" | "error", message: string, fields?: Record<string, unknown>) => void;

/** What the call core needs of sessions (the sessions core provides it). */
export type CallSessions = {
  /** The session if it exists, is the caller's and has not expired; throws otherwise. */
  check(id: string, caller: Caller): Promise<SessionRecord>;
  /** Pin-on-use; `known` is the record `check` returned for this call, so the use reads nothing more. */
  recordUse(id: string, caller: Caller, tool: string, known?: SessionRecord): Promise<{ evicted?: readonly string[] } | undefined>;
};

export type CallPorts = {
  tools: ReadonlyMap<string, CatalogTool>;
  backends: Backends;
  misses?: MissRecorder;
  /** Calls in a session: checked before dispatch, the tool pinned on its surface after. */
  sessions?: CallSessions;
  /** How long a call waits for its pin once the tool has answered (default PIN_WAIT_MS); the write then finishes on its own. */
  pinWaitMs?: number;
  log?: Logger;
  /** Receives one record per call, whatever its outcome (the adapter writes it as a log line with metrics). */
  audit?: (record: CallAudit) => void;
  /** Idempotency keys: where they are kept and for how long. Without it, keys are accepted and ignored. */
  idempotency?: IdempotencyOptions;
  now?: () => Date;
};
