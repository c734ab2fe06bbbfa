// Error → response mapping: one shape `{error: {code, message, details}}`; a 500 carries only a request id.
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ErrorBody } from "../contract/errors.js";
import { ToolbeltError, type ErrorCode } from "../core/errors.js";
import type { Logger } from "./logger.js";

const STATUS_CODES: Partial<Record<number, ErrorCode>> = {
  400: "INVALID_REQUEST",
  401: "UNAUTHENTICATED",
  403: "FORBIDDEN",
  404: "NOT_FOUND",
  405: "METHOD_NOT_ALLOWED",
  413: "PAYLOAD_TOO_LARGE",
  414: "URI_TOO_LONG",
  415: "UNSUPPORTED_MEDIA_TYPE",
};

/** WWW-Authenticate values of authentication refusals (routes/oauth-metadata.ts: they name the request's metadata URL). */
const challenges = new WeakMap<object, string>();
export function withChallenge<E extends object>(err: E, challenge: string): E {
  challenges.set(err, challenge);
  return err;
}

/** Any thrown value as a ToolbeltError; Hono's own HTTP exceptions keep their status. */
export function asToolbeltError(err: unknown): ToolbeltError {
  if (err instanceof ToolbeltError) return err;
  if (err instanceof HTTPException && err.status < 500) {
    const code = STATUS_CODES[err.status] ?? "INVALID_REQUEST";
    return new ToolbeltError(code, err.message || code.toLowerCase().replace(/_/g, " "));
  }
  return new ToolbeltError("INTERNAL", "internal error", {}, { cause: err });
}

export function errorResponse(c: Context, err: unknown, logger: Logger, requestId: string): Response {
  const e = asToolbeltError(err);
  const status = e.status;
  const where = { request_id: requestId, code: e.code, method: c.req.method, path: c.req.path };
  // A 5xx is ours or an upstream's: error, with the cause and its stack (an unexposed error is always INTERNAL, a 500).
  // A 4xx is the caller's: warn, the message only (no stack: nothing here failed).
  if (status >= 500) logger.error("request failed", { ...where, error: e.cause ?? e });
  // The cause of a 4xx (git's stderr, redacted) goes to the log only: the answer carries a fixed message.
  else
    logger.warn("request refused", {
      ...where,
      message: e.message,
      ...(e.cause !== undefined ? { cause: String((e.cause as Error).message ?? e.cause) } : {}),
    });
  const body: ErrorBody = e.expose
    ? { error: { code: e.code, message: e.message, details: e.details } }
    : { error: { code: "INTERNAL", message: `internal error; quote request id ${requestId} when reporting it`, details: { request_id: requestId } } };
  const headers: Record<string, string> = { "x-request-id": requestId };
  const challenge = challenges.get(e) ?? (e.code === "UNAUTHENTICATED" ? 'Bearer realm="toolbelt"' : undefined);
  if (challenge) headers["www-authenticate"] = challenge;
  // An upstream's Retry-After, passed on (checked and in seconds: lambdas/backends/http.ts).
  if (e.expose && typeof e.details.retry_after_secs === "number") headers["retry-after"] = String(e.details.retry_after_secs);
  // The unread rest of an oversized body would poison a kept-alive connection.
  if (e.code === "PAYLOAD_TOO_LARGE") headers.connection = "close";
  return c.json(body, status as 400, headers);
}
