// One error type for every layer above the stores; the code decides the HTTP status.

export const ERROR_STATUS = {
  BAD_JSON: 400,
  INVALID_REQUEST: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  TOOL_NOT_GRANTED: 403,
  PATH_OUTSIDE_ROOTS: 403,
  NOT_FOUND: 404,
  SESSION_NOT_FOUND: 404,
  TOOL_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  SESSION_EXPIRED: 410,
  PAYLOAD_TOO_LARGE: 413,
  URI_TOO_LONG: 414,
  UNSUPPORTED_MEDIA_TYPE: 415,
  INVALID_ARGUMENTS: 422,
  TOO_MANY_REQUESTS: 429,
  INTERNAL: 500,
  NOT_IMPLEMENTED: 501,
  UPSTREAM_ERROR: 502,
  /** A request would leave the tool's egress allow-list: the deployment's configuration, never the caller's input. */
  EGRESS_DENIED: 502,
  UPSTREAM_BAD_OUTPUT: 502,
  OUTPUT_SCHEMA_MISMATCH: 502,
  UNAVAILABLE: 503,
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
