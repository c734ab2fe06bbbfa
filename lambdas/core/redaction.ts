// What a backend answered or threw reaches a caller (and the logs) only with the deployment's secret
// values replaced. The redactor is a port: the core never sees the environment the values come from.
import { AsyncLocalStorage } from "node:async_hooks";
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

/** Values learnt while one call runs (a principal's own upstream token), redacted from that call only. */
export type CallSecrets = {
  /** The base redactor plus the values added in the current call. */
  redactor: Redactor;
  /** Runs one call with its own, empty set of values (a nested toolbelt.call shares its parent's). */
  run<T>(fn: () => Promise<T>): Promise<T>;
  /** Adds a value to the current call's set (outside a call: nothing to add it to). */
  add(value: string): void;
};

/** `extra` builds a redactor over the call's values (backends/templates.ts Secrets): the same marker as `base`. */
export function callSecrets(base: Redactor, extra: (values: readonly string[]) => Redactor): CallSecrets {
  const current = new AsyncLocalStorage<Set<string>>();
  const more = () => {
    const values = current.getStore();
    return values && values.size > 0 ? extra([...values]) : undefined;
  };
  return {
    redactor: {
      redact: (text) => {
        const out = base.redact(text);
        return more()?.redact(out) ?? out;
      },
      redactDeep: (value) => {
        const out = base.redactDeep(value);
        return more()?.redactDeep(out) ?? out;
      },
    },
    run: (fn) => current.run(new Set(), fn),
    add: (value) => void current.getStore()?.add(value),
  };
}
