// The call contract and the ports the gateway needs; adapters (routes, handlers, backends, stores) fill them.
import type { CatalogTool } from "../../../registry/contract/artifact.js";
import type { ToolKind } from "../../../registry/contract/tool.js";
import type { GrantFilter } from "../find/types.js";
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

/** Who is calling: an authenticated principal and its grants (surface is not authority). */
export type Caller = { principal: string; granted: GrantFilter };

export type BackendContext<C extends Caller = Caller> = {
  /** Aborted when the tool's timeout passes or the request goes away. */
  signal: AbortSignal;
  timeoutMs: number;
  caller: C;
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
  // Backends see the base caller only (principal id and grants), whatever the adapter adds.
  invoke(tool: CatalogTool, args: Record<string, unknown>, ctx: BackendContext): Promise<BackendOutput>;
};

export type Backends = Partial<Record<ToolKind, ToolBackend>>;

export type MissOutcome = "resolved" | "ambiguous" | "not_found";

export type Miss = {
  /** The name as the caller sent it. */
  name: string;
  principal: string;
  /** ISO 8601 time. */
  at: string;
  outcome: MissOutcome;
  resolved_to?: string;
};

/** Where misses go; the operator reads them back through the store (see stores/misses.ts). */
export type MissRecorder = { record(miss: Miss): Promise<void> };

export type Logger = (level: "info" | "warn" | "error", message: string, fields?: Record<string, unknown>) => void;

/** `C` lets an adapter carry its own principal record to its session ports. */
export type CallPorts<C extends Caller = Caller> = {
  tools: ReadonlyMap<string, CatalogTool>;
  backends: Backends;
  misses?: MissRecorder;
  /** Refuses (throws) when the session does not exist, is expired, or is not the caller's. */
  checkSession?: (session: string, caller: C) => Promise<void>;
  /** Pin-on-use: the tool joins the session's surface. */
  recordUse?: (session: string, caller: C, tool: string) => Promise<void>;
  log?: Logger;
  now?: () => Date;
};
