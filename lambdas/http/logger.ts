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

// Characters a terminal may act on or that disguise text: C0/DEL/C1 controls (ESC, CSI, OSC), format
// characters (bidi overrides, zero-width), line and paragraph separators, lone surrogates.
const UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;
const UNSAFE_ALL = new RegExp(UNSAFE.source, "gu");
// Per UTF-16 unit: an astral format character becomes its two surrogate escapes, as JSON spells it.
const uEscape = (ch: string) => ch.replace(/[\s\S]/g, (u) => `\\u${u.charCodeAt(0).toString(16).padStart(4, "0")}`);

/** `text` with every unsafe character as a `\uXXXX` escape (valid inside a JSON string, inert on a terminal). */
export function escapeUnsafe(text: string): string {
  return UNSAFE.test(text) ? text.replace(UNSAFE_ALL, uEscape) : text;
}

// A value made only of these prints bare; anything else (spaces, quotes, `=`, non-ASCII) is JSON-quoted.
const BARE = /^[\w.:/@+,-]+$/;

/** One field value as a single inert token of a readable line: numbers and booleans bare, safe words bare, the rest JSON-quoted and escaped. */
export function shown(value: unknown): string {
  if (typeof value === "number" || typeof value === "boolean" || value === null || value === undefined) return String(value);
  if (typeof value === "string") return BARE.test(value) ? value : escapeUnsafe(JSON.stringify(value));
  return escapeUnsafe(JSON.stringify(value) ?? String(value));
}

export function jsonLogger(write: (line: string) => void = (l) => process.stdout.write(l)): Logger {
  const log =
    (level: string) =>
    (message: string, fields: LogFields = {}) => {
      const out: LogFields = { level, message, time: new Date().toISOString() };
      // Keys, not entries: no pair array per field on a line written for every request.
      for (const k of Object.keys(fields)) out[k] = describe(fields[k]);
      // JSON.stringify leaves C1 controls and bidi characters raw: `tail -f` of the log must not run them.
      write(escapeUnsafe(JSON.stringify(out)) + "\n");
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

/**
 * One record as a terminal line: `call` and `find` records as summaries, others as `key=value`. Every
 * value goes through shown(): a caller's text can neither start a line of its own nor reach the terminal raw.
 */
export function readableLine(level: string, message: string, fields: LogFields, at?: Date): string {
  const time = timeOfDay(at === undefined ? Date.now() : at.getTime(), at);
  const f = fields as Record<string, unknown>;
  if (message === "call") {
    const sent = f.resolved_from !== undefined ? ` (sent ${shown(String(f.resolved_from))})` : "";
    return `${time} call ${shown(f.outcome)} ${shown(f.status)} ${shown(f.tool)}${sent} ${shown(f.latency_ms)}ms ${keyed(f, AUDIT_KEYS)}`.trimEnd();
  }
  if (message === "find") {
    // The find record's metric fields (Finds, FindNone, _aws) are for CloudWatch, not the terminal.
    const query = typeof f.query === "string" ? shown(clipped(f.query, READABLE_QUERY_CHARS)) : "-";
    const ms = f.latency_ms !== undefined ? ` ${shown(f.latency_ms)}ms` : "";
    return `${time} find ${shown(f.verdict)} ${query} top=${shown(f.top_tool ?? "-")}${ms} ${keyed(f, FIND_KEYS)}`.trimEnd();
  }
  const rest = Object.entries(fields).map(([k, v]) => {
    const d = describe(v);
    const text = d && typeof d === "object" && "message" in d ? (level === "error" ? (d as { stack?: string }).stack : (d as { message: string }).message) : d;
    return `${shown(k)}=${shown(text)}`;
  });
  return `${time} ${level.toUpperCase()} ${escapeUnsafe(message)}${rest.length ? ` ${rest.join(" ")}` : ""}`;
}

const FIND_KEYS = ["principal", "session", "via", "correlation_id", "mode", "family"] as const;

/** `key=value` of each key present, space-separated: a loop, not filter/map/join, on a line written per request. */
function keyed(f: Record<string, unknown>, keys: readonly string[]): string {
  let out = "";
  for (const k of keys) {
    const v = f[k];
    if (v !== undefined) out += `${out ? " " : ""}${k}=${shown(v)}`;
  }
  return out;
}

const two = (n: number) => (n < 10 ? `0${n}` : String(n));
const DAY_MS = 86_400_000;
// Years 0000 to 9999: outside them toISOString writes a six-digit year, and its slice is no longer the time.
const FIRST_MS = -62_167_219_200_000;
const LAST_MS = 253_402_300_799_999;

/**
 * `HH:MM:SS.mmm` (UTC) of a time in ms, as `toISOString().slice(11, 23)` spells it, by arithmetic: building
 * the ISO string cost about 2 µs a line. Other times (invalid, or beyond four-digit years) go through toISOString.
 */
function timeOfDay(ms: number, at?: Date): string {
  if (!(ms >= FIRST_MS && ms <= LAST_MS)) return (at ?? new Date(ms)).toISOString().slice(11, 23);
  const d = ((ms % DAY_MS) + DAY_MS) % DAY_MS;
  const milli = d % 1000;
  const s = Math.floor(d / 1000);
  return `${two(Math.floor(s / 3600))}:${two(Math.floor(s / 60) % 60)}:${two(s % 60)}.${milli < 10 ? "00" : milli < 100 ? "0" : ""}${milli}`;
}
/** A find's query on a readable line is cut here (the record keeps what the route sent). */
export const READABLE_QUERY_CHARS = 80;
const clipped = (s: string, max: number) => (s.length <= max ? s : `${s.slice(0, max).replace(/[\uD800-\uDBFF]$/, "")}…`);

/** `npm start`'s logger: the same records as the JSON logger, one readable line each. */
export function readableLogger(write: (line: string) => void = (l) => process.stdout.write(l)): Logger {
  const log =
    (level: string) =>
    (message: string, fields: LogFields = {}) => {
      write(readableLine(level, message, fields) + "\n");
    };
  return { info: log("info"), warn: log("warn"), error: log("error") };
}

/**
 * A line writer that hands `write` all the lines of one event-loop turn at once. `npm start` writes its log
 * to a terminal, file or pipe, where each write is a system call made synchronously: one per request cost a
 * busy server about as much as a find's ranking. Order is kept; `flush()` writes what waits at once (on exit).
 * Not for Lambda: a function may be frozen once it answers, before the next turn.
 */
export function coalescedWriter(write: (text: string) => void): { write: (line: string) => void; flush: () => void } {
  let pending: string[] = [];
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (pending.length === 0) return;
    const text = pending.join("");
    pending = [];
    write(text);
  };
  return {
    write(line) {
      pending.push(line);
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    flush,
  };
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
