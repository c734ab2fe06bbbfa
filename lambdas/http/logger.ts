// Structured JSON logging (one line per event); CloudWatch and the local terminal both read it.
export type LogFields = Record<string, unknown>;
export type Logger = {
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
};

function describe(value: unknown): unknown {
  if (value instanceof Error) {
    const cause = (value as Error & { cause?: unknown }).cause;
    return { name: value.name, message: value.message, stack: value.stack, ...(cause ? { cause: describe(cause) } : {}) };
  }
  return value;
}

export function jsonLogger(write: (line: string) => void = (l) => process.stdout.write(l)): Logger {
  const log =
    (level: string) =>
    (message: string, fields: LogFields = {}) => {
      const out: LogFields = { level, message, time: new Date().toISOString() };
      for (const [k, v] of Object.entries(fields)) out[k] = describe(v);
      write(JSON.stringify(out) + "\n");
    };
  return { info: log("info"), warn: log("warn"), error: log("error") };
}

const AUDIT_KEYS = [
  "principal",
  "session",
  "via",
  "correlation_id",
  "upstream_status",
  "exit_code",
  "affects",
  "idempotency",
  "pins_evicted",
  "model",
] as const;

/** One record as a terminal line: `call` records as a summary, `find` metric lines dropped, others as `key=value`. */
export function readableLine(level: string, message: string, fields: LogFields, at?: Date): string | undefined {
  if (message === "find") return undefined;
  const time = (at ?? new Date()).toISOString().slice(11, 23);
  if (message === "call") {
    const f = fields as Record<string, unknown>;
    const sent = f.resolved_from !== undefined ? ` (sent ${JSON.stringify(f.resolved_from)})` : "";
    const rest = AUDIT_KEYS.filter((k) => f[k] !== undefined).map((k) => `${k}=${typeof f[k] === "string" ? f[k] : JSON.stringify(f[k])}`);
    return `${time} call ${String(f.outcome)} ${String(f.status)} ${String(f.tool)}${sent} ${String(f.latency_ms)}ms ${rest.join(" ")}`.trimEnd();
  }
  const rest = Object.entries(fields).map(([k, v]) => {
    const d = describe(v);
    const shown = d && typeof d === "object" && "message" in d ? (level === "error" ? (d as { stack?: string }).stack : (d as { message: string }).message) : d;
    return `${k}=${typeof shown === "string" ? shown : JSON.stringify(shown)}`;
  });
  return `${time} ${level.toUpperCase()} ${message}${rest.length ? ` ${rest.join(" ")}` : ""}`;
}

/** `npm start`'s logger: the same records as the JSON logger, one readable line each. */
export function readableLogger(write: (line: string) => void = (l) => process.stdout.write(l)): Logger {
  const log =
    (level: string) =>
    (message: string, fields: LogFields = {}) => {
      const line = readableLine(level, message, fields);
      if (line !== undefined) write(line + "\n");
    };
  return { info: log("info"), warn: log("warn"), error: log("error") };
}

/** Collects entries in memory: tests assert on what was logged (e.g. a 500's cause). */
export function memoryLogger(): Logger & { entries: { level: string; message: string; fields: LogFields }[] } {
  const entries: { level: string; message: string; fields: LogFields }[] = [];
  const log =
    (level: string) =>
    (message: string, fields: LogFields = {}) =>
      void entries.push({ level, message, fields: Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, describe(v)])) });
  return { entries, info: log("info"), warn: log("warn"), error: log("error") };
}
