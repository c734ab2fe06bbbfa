// What a backend answered or threw reaches a caller (and the logs) only with the deployment's secret
// values replaced. The redactor is a port: the core never sees the environment the values come from.
import { ToolbeltError } from "./errors.js";

/** Replaces secret values in text and in JSON values (backends/templates.ts `Secrets` is one). */
export type Redactor = {
  redact(text: string): string;
  redactDeep(value: unknown): unknown;
};

/** For gateways built without secrets (tests, tools that hold none). */
export const NO_REDACTION: Redactor = { redact: (text) => text, redactDeep: (value) => value };

/**
 * The error with its message and details redacted. A changed one is rebuilt without its cause (which may
 * hold the same value) so the log line writes the redacted message and stack.
 */
export function redactedError(e: unknown, redactor: Redactor): unknown {
  if (!(e instanceof ToolbeltError)) return e;
  const message = redactor.redact(e.message);
  const details = redactor.redactDeep(e.details) as Record<string, unknown>;
  if (message === e.message && JSON.stringify(details) === JSON.stringify(e.details)) return e;
  return new ToolbeltError(e.code, message, details);
}
