// One error type for every layer above the stores; the code decides the HTTP status.

export const ERROR_STATUS = {
  /** The call was held for approval (policy `approvals`) and did not run: an approver decides, then the caller completes it. */
  APPROVAL_REQUIRED: 202,
  BAD_JSON: 400,
  INVALID_REQUEST: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  TOOL_NOT_GRANTED: 403,
  /** An approver refused the held call: it never runs. */
  APPROVAL_REFUSED: 403,
  PATH_OUTSIDE_ROOTS: 403,
  NOT_FOUND: 404,
  /** The tool's upstream says what the caller asked for does not exist (http 404/410, an exec tool's `not_found_exit_codes`). */
  UPSTREAM_NOT_FOUND: 404,
  SESSION_NOT_FOUND: 404,
  TOOL_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  /** The first call with this idempotency key is still running: retry after it finished. */
  IDEMPOTENCY_IN_PROGRESS: 409,
  /** The idempotency key was used before with other arguments: use a new key for a new call. */
  IDEMPOTENCY_KEY_REUSED: 409,
  /** The held call has not been decided yet: retry after an approver approved it. */
  APPROVAL_PENDING: 409,
  /** The approval is for another tool or other arguments than this completion sent. */
  APPROVAL_MISMATCH: 409,
  SESSION_EXPIRED: 410,
  /** The held call was not decided or completed in time (TOOLBELT_APPROVAL_TTL_SECS): make the call again. */
  APPROVAL_EXPIRED: 410,
  /** The tool is retired (registry `deprecated`): call the tool it names as its replacement. */
  TOOL_DEPRECATED: 410,
  PAYLOAD_TOO_LARGE: 413,
  URI_TOO_LONG: 414,
  UNSUPPORTED_MEDIA_TYPE: 415,
  INVALID_ARGUMENTS: 422,
  /** The tool's upstream refused the caller's input (http 400/409/413/422, MCP invalid params): change the arguments, not the deployment. */
  UPSTREAM_REJECTED_INPUT: 422,
  TOO_MANY_REQUESTS: 429,
  /** The tool's upstream is rate limiting (HTTP 429): back off and retry, after `Retry-After` seconds when it said so. */
  UPSTREAM_RATE_LIMITED: 429,
  INTERNAL: 500,
  NOT_IMPLEMENTED: 501,
  UPSTREAM_ERROR: 502,
  /** A request would leave the tool's egress allow-list: the deployment's configuration, never the caller's input. */
  EGRESS_DENIED: 502,
  /** The MCP upstream's live definition of the tool is not the one pulled and reviewed (registry `mcp.drift`): the deployment's to fix. */
  UPSTREAM_DRIFT: 502,
  UPSTREAM_BAD_OUTPUT: 502,
  OUTPUT_SCHEMA_MISMATCH: 502,
  UNAVAILABLE: 503,
  /** A prompt tool's model role has no model in this deployment's TOOLBELT_MODELS. */
  MODEL_NOT_CONFIGURED: 503,
  UPSTREAM_TIMEOUT: 504,
} as const;
export type ErrorCode = keyof typeof ERROR_STATUS;

export class ToolbeltError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown>;

  /** `options.cause` keeps the error this one replaces, for the log (never for the client). */
  constructor(code: ErrorCode, message: string, details: Record<string, unknown> = {}, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ToolbeltError";
    this.code = code;
    this.details = details;
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }

  /** Clients see the message and details of 4xx and upstream errors; a 500 carries only a request id. */
  get expose(): boolean {
    return this.code !== "INTERNAL";
  }
}

/**
 * Most problems one request or argument error lists (SPEC §4); the rest are only counted, so a hostile
 * body cannot amplify the answer (5,000 unknown keys once made a 920 KB error). The registry check is
 * not a request: it still reports every problem.
 */
export const MAX_LISTED_PROBLEMS = 20;
/** Longest stretch of a caller's own text (a key, a path) echoed in one problem. */
export const MAX_ECHOED_CHARS = 200;

/** The first MAX_LISTED_PROBLEMS problems, how many more there were (of `total`), and the `; and N more` tail for a message. */
export function listProblems<T>(all: readonly T[], total = all.length): { listed: T[]; more: number; tail: string } {
  const listed = all.slice(0, MAX_LISTED_PROBLEMS);
  const more = Math.max(0, total - listed.length);
  return { listed, more, tail: more ? `; and ${more} more` : "" };
}

/** A caller's text cut to MAX_ECHOED_CHARS in the middle (a path keeps its start and its last key), marked where it was cut. */
export function clipEchoed(s: string): string {
  if (s.length <= MAX_ECHOED_CHARS) return s;
  const head = Math.floor((MAX_ECHOED_CHARS - 1) / 2);
  return `${s.slice(0, head)}…${s.slice(s.length - (MAX_ECHOED_CHARS - 1 - head))}`;
}
