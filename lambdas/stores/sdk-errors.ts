// SDK errors become domain errors here, one rule for every store, so nothing above the stores knows the SDK.
import { ToolbeltError } from "../core/errors.js";

const THROTTLES = new Set(["ProvisionedThroughputExceededException", "ThrottlingException", "RequestLimitExceeded"]);
/** The table could not be reached or answered in time (dynalite stopped, a network fault): the caller may retry. */
const UNREACHABLE_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "EHOSTUNREACH", "ENETUNREACH", "ENOTFOUND", "EAI_AGAIN"]);
const UNREACHABLE_NAMES = new Set(["TimeoutError", "RequestTimeout", "InternalServerError", "ServiceUnavailable"]);

function unreachable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const e = err as Error & { code?: string; $metadata?: { httpStatusCode?: number } };
  return UNREACHABLE_NAMES.has(e.name) || UNREACHABLE_CODES.has(e.code ?? "") || (e.$metadata?.httpStatusCode ?? 0) >= 500;
}

/** `store` names the store in the message (e.g. "session store"); the SDK error is kept as the cause for the log. */
export function translateSdkError(err: unknown, store: string, op: string): ToolbeltError {
  if (err instanceof ToolbeltError) return err;
  const name = err instanceof Error ? err.name : "";
  if (THROTTLES.has(name)) return new ToolbeltError("UNAVAILABLE", `${store} is throttling; retry shortly`, { operation: op }, { cause: err });
  if (unreachable(err)) return new ToolbeltError("UNAVAILABLE", `${store} is unavailable; retry shortly`, { operation: op }, { cause: err });
  return new ToolbeltError("INTERNAL", `${store} ${op} failed`, { operation: op }, { cause: err });
}
