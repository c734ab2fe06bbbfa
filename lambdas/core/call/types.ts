// The call contract and the ports the gateway needs; adapters (routes, handlers, backends, stores) fill them.
import type { CatalogTool } from "../../../registry/contract/artifact.js";
import type { ToolKind } from "../../../registry/contract/tool.js";
import type { Caller, MissRecorder, SessionRecord } from "../ports.js";
import type { ResolutionRule } from "./resolve.js";

export type CallRequest = { tool: string; args?: unknown; session?: string };

export type CallResponse = {
  /** The full name of the tool that ran. */
  tool: string;
  /** The name the caller sent, when it was a near-miss that resolved. */
  resolved_from?: string;
  /** Which tolerance rule resolved it. */
  resolution?: ResolutionRule;
  result: unknown;
};

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
};

export type ToolBackend = {
  invoke(tool: CatalogTool, args: Record<string, unknown>, ctx: BackendContext): Promise<BackendOutput>;
};

export type Backends = Partial<Record<ToolKind, ToolBackend>>;

export type Logger = (level: "info" | "warn" | "error", message: string, fields?: Record<string, unknown>) => void;

/** What the call core needs of sessions (the sessions core provides it). */
export type CallSessions = {
  /** The session if it exists, is the caller's and has not expired; throws otherwise. */
  get(id: string, caller: Caller): Promise<SessionRecord>;
  /** Pin-on-use; `known` is the record `get` returned for this call, so a use that writes reads the session once. */
  recordUse(id: string, caller: Caller, tool: string, known?: SessionRecord): Promise<unknown>;
};

export type CallPorts = {
  tools: ReadonlyMap<string, CatalogTool>;
  backends: Backends;
  misses?: MissRecorder;
  /** Calls in a session: checked before dispatch, the tool pinned on its surface after. */
  sessions?: CallSessions;
  log?: Logger;
  now?: () => Date;
};
