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

/** Collects entries in memory: tests assert on what was logged (e.g. a 500's cause). */
export function memoryLogger(): Logger & { entries: { level: string; message: string; fields: LogFields }[] } {
  const entries: { level: string; message: string; fields: LogFields }[] = [];
  const log =
    (level: string) =>
    (message: string, fields: LogFields = {}) =>
      void entries.push({ level, message, fields: Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, describe(v)])) });
  return { entries, info: log("info"), warn: log("warn"), error: log("error") };
}
