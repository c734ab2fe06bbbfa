// What a backend answered or threw reaches a caller (and the logs) only with the deployment's secret
// values replaced. The redactor is a port: the core never sees the environment the values come from.
import { AsyncLocalStorage } from "node:async_hooks";
import { ToolbeltError } from "./errors.js";

/** Replaces secret values in text and in JSON values (`Secrets` below is one). */
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

/** `extra` builds a redactor over the call's values (`Secrets`): the same marker as `base`. */
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

/** Values shorter than this are not worth redacting (and would mangle ordinary text). */
export const MIN_SECRET_LENGTH = 4;
export const REDACTED = "[redacted]";

/** Secret values of one request (declared secrets, and every value substituted); redacts them from anything shown to the caller. */
export class Secrets {
  private readonly values = new Set<string>();

  constructor(known: Iterable<string> = []) {
    for (const v of known) this.add(v);
  }

  add(value: string): void {
    if (value.length >= MIN_SECRET_LENGTH) this.values.add(value);
  }

  redact(text: string): string {
    let out = text;
    for (const v of this.values) out = out.split(v).join(REDACTED);
    return out;
  }

  /** A copy of a JSON value with every secret occurrence in its strings (and keys) redacted. */
  redactDeep(value: unknown): unknown {
    if (this.values.size === 0) return value;
    if (typeof value === "string") return this.redact(value);
    if (Array.isArray(value)) return value.map((v) => this.redactDeep(v));
    if (value && typeof value === "object") {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [this.redact(k), this.redactDeep(v)]));
    }
    return value;
  }
}

/**
 * The gateway's own credentials, redacted from every tool's output even though no family can read
 * them: a tool that reaches them another way (a file, an upstream echo) still cannot hand them out.
 */
export const GATEWAY_CREDENTIALS = ["TOOLBELT_API_KEY", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"] as const;

/** The values of the gateway's credentials, of `extra` names and of every variable a family declares secret. */
export function secretValuesOf(
  families: readonly { variables?: Readonly<Record<string, { secret?: boolean }>> | undefined }[],
  env: Readonly<Record<string, string | undefined>>,
  extra: readonly string[] = [],
): string[] {
  const names = new Set<string>([...GATEWAY_CREDENTIALS, ...extra]);
  for (const f of families) for (const [name, v] of Object.entries(f.variables ?? {})) if (v.secret) names.add(name);
  return [...names]
    .map((n) => (Object.hasOwn(env, n) && typeof env[n] === "string" ? env[n] : undefined))
    .filter((v): v is string => v !== undefined && v !== "");
}
