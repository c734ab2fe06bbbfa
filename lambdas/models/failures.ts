// The errors every model adapter throws, so decision mode can name a fallback reason and a prompt
// tool can answer 502/504 with the same codes as other upstreams. Messages never carry a credential.
import { ToolbeltError } from "../core/errors.js";
import type { ModelPort } from "../core/ports.js";

/** Why a model call failed: find's `fallback_reason` starts with it. */
export type ModelFailure = "timeout" | "http_error" | "unparsable" | "no_logprobs";

type Who = Pick<ModelPort, "role" | "model">;

export function modelError(who: Who, reason: Exclude<ModelFailure, "timeout">, message: string, details: Record<string, unknown> = {}): ToolbeltError {
  return new ToolbeltError(reason === "http_error" ? "UPSTREAM_ERROR" : "UPSTREAM_BAD_OUTPUT", `model role "${who.role}" (${who.model}): ${message}`, {
    role: who.role,
    model: who.model,
    reason,
    ...details,
  });
}

export function modelTimeout(who: Who, timeoutMs: number): ToolbeltError {
  return new ToolbeltError("UPSTREAM_TIMEOUT", `model role "${who.role}" (${who.model}) did not answer within ${timeoutMs} ms`, {
    role: who.role,
    model: who.model,
    reason: "timeout",
    timeout_ms: timeoutMs,
  });
}

/** The budget of one model call: the role's timeout, cut short by the caller's signal. */
export function callSignal(outer: AbortSignal, timeoutMs: number): { signal: AbortSignal; timedOut: () => boolean } {
  const timeout = AbortSignal.timeout(timeoutMs);
  return { signal: AbortSignal.any([outer, timeout]), timedOut: () => timeout.aborted || outer.aborted };
}

/** Probabilities from stated or exponentiated numbers: negatives and NaN dropped, scaled down when they sum past 1. */
export function normalized(values: number[]): number[] {
  const clean = values.map((v) => (Number.isFinite(v) && v > 0 ? v : 0));
  const sum = clean.reduce((a, b) => a + b, 0);
  return sum > 1 ? clean.map((v) => v / sum) : clean;
}
