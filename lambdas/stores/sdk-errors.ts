// SDK errors become domain errors here, one rule for every store, so nothing above the stores knows the SDK.
import { ToolbeltError } from "../core/errors.js";

const THROTTLES = new Set(["ProvisionedThroughputExceededException", "ThrottlingException", "RequestLimitExceeded"]);

/** `store` names the store in the message (e.g. "session store"); the SDK error is kept as the cause for the log. */
export function translateSdkError(err: unknown, store: string, op: string): ToolbeltError {
  if (err instanceof ToolbeltError) return err;
  const name = err instanceof Error ? err.name : "";
  return THROTTLES.has(name)
    ? new ToolbeltError("UNAVAILABLE", `${store} is throttling; retry shortly`, { operation: op }, { cause: err })
    : new ToolbeltError("INTERNAL", `${store} ${op} failed`, { operation: op }, { cause: err });
}
