// The core's ports: what find, sessions, surface and call need from outside, declared here and
// implemented by the adapters (stores/, the artifact loader, handlers/). Adapters import this
// file; the core imports no adapter.
import type { Catalog, CatalogTool, Manifest } from "../../registry/contract/artifact.js";
import type { Miss, MissOutcome, MissSummary } from "../contract/misses.js";
import type { Pin } from "../contract/sessions.js";

// Pins and misses are stored and answered as they are: their shapes are the wire contract's.
export type { Miss, MissOutcome, MissSummary, Pin };

/** Which tool names a caller may find and call (allowed by some grant, denied by none). */
export type GrantFilter = (name: string) => boolean;

/**
 * Who is calling, as every core function takes it: the authenticated principal's id, whether it may
 * read operator data, and its grants. Built by the policy (auth.ts) once per request; a surface does
 * not grant anything, `granted` does.
 */
export type Caller = {
  /**
   * Who is calling: sessions, pins, audit, rate limits and upstream credentials belong to it. A key's
   * policy principal id, or (identity issue) the subject of an access token, never equal to a key principal's id.
   */
  principal: string;
  /** The policy principal whose grants and limits apply when it is not `principal` itself (a token mapped by its claims). */
  role?: string;
  admin: boolean;
  granted: GrantFilter;
};

/** The artifact as the core reads it: catalog, manifest, the opaque search index and a name lookup. */
export type Artifact = Catalog & {
  manifest: Manifest;
  /** Opaque to everyone but the find core. */
  index: unknown;
  byName: ReadonlyMap<string, CatalogTool>;
};

/** Epoch milliseconds. */
export type Clock = () => number;

export type SurfaceBounds = {
  /** Narrow when the granted catalog has more tools than this. */
  maxTools: number;
  /** Narrow when the granted catalog's serialized schemas exceed this many bytes. */
  maxSchemaBytes: number;
  /** Schema-byte budget for pinned tools (declared and always-loaded tools do not count). */
  pinBudgetBytes: number;
  /** Token budget of the whole surface (o200k_base): the capability manifest gets what the tools leave. */
  maxTokens: number;
  /** The manifest's own cap within that budget. */
  manifestMaxTokens: number;
};

export type SessionRecord = {
  id: string;
  /** Principal id that opened the session; nobody else may read or use it. */
  principal: string;
  brief?: string;
  /** The brief's declaration as written: tool names or `*` globs (intersected with the grants when read). */
  declared: string[];
  /** Least recently used first (by each pin's recorded last use). */
  pins: Pin[];
  /** Stored pins outside the budget as read (evicted, not yet removed): the next use that writes removes them. */
  lapsed?: Pin[];
  /** Epoch milliseconds. */
  created_at: number;
  /** Epoch seconds (the DynamoDB TTL attribute); an item past it is treated as gone even if still stored. */
  expires_at: number;
};

/**
 * Session persistence: DynamoDB on Lambda and `npm start`, an in-memory fake in unit tests. Each pin
 * is its own item, so writers of different pins never contend and no write is retried on a conflict.
 */
export interface SessionStore {
  /** Store a new session (and its pins, if any); CONFLICT if the id exists. */
  create(session: SessionRecord): Promise<void>;
  /** The stored session with every stored pin, expired or not (the core decides), or undefined. */
  get(id: string): Promise<SessionRecord | undefined>;
  /** Write one pin (its last use) unless a later use of that tool is stored: the latest use wins, nothing is retried. */
  putPin(id: string, pin: Pin, expiresAt: number): Promise<void>;
  /** Remove an evicted pin, unless it was used again since (its stored last use differs): then keep it. */
  dropPin(id: string, pin: Pin): Promise<void>;
  /** Move the session's expiry later (never earlier, never onto a missing session). */
  renew(id: string, expiresAt: number): Promise<void>;
}

/** Where the call core writes misses. */
export type MissRecorder = {
  /** `times`: how many misses of the same key this one stands for (folded by the caller; 1 by default). */
  record(miss: Miss, times?: number): Promise<void>;
};

/** The miss log: written by the call core, read back by operators. */
export interface MissStore extends MissRecorder {
  /** The most frequent misses, most frequent first. */
  top(limit: number): Promise<MissSummary[]>;
  /** The latest events for one name (any spelling), newest first. */
  recent(name: string, limit: number): Promise<Miss[]>;
}

/** One message of a chat with a model. */
export type ChatMessage = { role: "system" | "user" | "assistant"; content: string };

/** Tokens a model call consumed, as the endpoint reported them. */
export type ModelUsage = { input_tokens: number; output_tokens: number };

export type CompletionRequest = {
  messages: ChatMessage[];
  /** Ask for structured output matching this JSON Schema (response format or forced tool use, per adapter). */
  schema?: { name: string; schema: Record<string, unknown> };
  maxTokens?: number;
  signal: AbortSignal;
};

export type Completion = {
  /** The answer's text (with `schema`: the JSON text, or the forced tool's input serialized). */
  text: string;
  /** The model id the endpoint says answered (or the configured one). */
  model: string;
  usage: ModelUsage;
};

export type ChoiceRequest = {
  messages: ChatMessage[];
  /** Option labels, each meant to be one token ("0" … "255"). */
  labels: string[];
  signal: AbortSignal;
};

export type Choice = {
  /** Probability per label (same order); labels the model gave no mass are 0. */
  probabilities: number[];
  /** `logprobs`: the endpoint's token log-probabilities; `stated`: the model's own numbers (no logprobs offered). */
  source: "logprobs" | "stated";
  model: string;
  usage: ModelUsage;
};

/**
 * A language model behind one role. Failures are ToolbeltErrors: UPSTREAM_TIMEOUT, or UPSTREAM_ERROR /
 * UPSTREAM_BAD_OUTPUT with `details.reason` one of `http_error`, `unparsable`, `no_logprobs`.
 */
export interface ModelPort {
  readonly role: string;
  readonly provider: "openai" | "bedrock";
  /** The configured model id. */
  readonly model: string;
  /** Budget of one call in milliseconds (the role's `timeout_ms`). */
  readonly timeoutMs: number;
  complete(request: CompletionRequest): Promise<Completion>;
  /** A one-token answer among `labels`, with a probability for each. */
  choose(request: ChoiceRequest): Promise<Choice>;
}

/** The deployment's models by role (`decider`, `prompt` or a role a prompt tool names). */
export type Models = {
  get(role: string): ModelPort | undefined;
  /** Configured role names, sorted. */
  roles(): string[];
  /** Why a configured role has no model in this function (its key is not loaded here), if it has none. */
  unavailable(role: string): string | undefined;
};
