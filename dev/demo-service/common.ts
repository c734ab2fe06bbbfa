// What every demo family shares: the error the service answers with, and input coercion
// (templated values may arrive as strings, so each reader accepts both forms).
import type { Context } from "hono";

/** A client mistake: answered with its status and a message that says what to fix. */
export class DemoError extends Error {
  constructor(
    readonly status: 400 | 401 | 404 | 409 | 413 | 422,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export const bad = (message: string) => new DemoError(400, "BAD_REQUEST", message);

/** An absent optional value: missing, null or the empty string a template renders for a missing input. */
export function absent(v: unknown): v is undefined | null | "" {
  return v === undefined || v === null || v === "";
}

export function str(v: unknown, name: string): string {
  if (absent(v)) throw bad(`\`${name}\` is required`);
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  throw bad(`\`${name}\` must be a string`);
}

export function optStr(v: unknown, name: string): string | undefined {
  return absent(v) ? undefined : str(v, name);
}

export function num(v: unknown, name: string): number {
  if (absent(v)) throw bad(`\`${name}\` is required`);
  const n = typeof v === "number" ? v : typeof v === "string" ? Number(v.trim()) : NaN;
  if (!Number.isFinite(n)) throw bad(`\`${name}\` must be a finite number, got ${JSON.stringify(v)}`);
  return n;
}

export function optNum(v: unknown, name: string): number | undefined {
  return absent(v) ? undefined : num(v, name);
}

export function int(v: unknown, name: string, min: number, max: number): number {
  const n = num(v, name);
  if (!Number.isInteger(n) || n < min || n > max) throw bad(`\`${name}\` must be an integer from ${min} to ${max}`);
  return n;
}

export function optInt(v: unknown, name: string, min: number, max: number, dflt: number): number {
  return absent(v) ? dflt : int(v, name, min, max);
}

export function bool(v: unknown, dflt: boolean): boolean {
  if (absent(v)) return dflt;
  if (typeof v === "boolean") return v;
  if (v === "true" || v === "1") return true;
  if (v === "false" || v === "0") return false;
  throw bad(`expected a boolean, got ${JSON.stringify(v)}`);
}

/** An array given as a JSON array, a JSON-encoded string, or a comma/newline separated string. */
export function list(v: unknown, name: string): unknown[] {
  if (Array.isArray(v)) return v;
  if (typeof v === "string") {
    const s = v.trim();
    if (s.startsWith("[")) {
      try {
        const parsed: unknown = JSON.parse(s);
        if (Array.isArray(parsed)) return parsed;
      } catch {
        // fall through to the separated form
      }
    }
    return s === ""
      ? []
      : s
          .split(/[,\n]/)
          .map((x) => x.trim())
          .filter((x) => x !== "");
  }
  throw bad(`\`${name}\` must be an array`);
}

export function numbers(v: unknown, name: string): number[] {
  const items = list(v, name);
  if (items.length === 0) throw bad(`\`${name}\` must contain at least one number`);
  return items.map((x, i) => num(x, `${name}[${i}]`));
}

export function tags(v: unknown): string[] {
  if (absent(v)) return [];
  return [...new Set(list(v, "tags").map((t) => str(t, "tags[]").trim().toLowerCase()))].filter(Boolean).sort();
}

export function oneOf<T extends string>(v: unknown, name: string, allowed: readonly T[], dflt?: T): T {
  if (absent(v) && dflt !== undefined) return dflt;
  const s = str(v, name).toLowerCase();
  const hit = allowed.find((a) => a === s);
  if (!hit) throw bad(`\`${name}\` must be one of ${allowed.join(", ")}`);
  return hit;
}

export async function jsonBody(c: Context): Promise<Record<string, unknown>> {
  const text = await c.req.text();
  if (text.trim() === "") return {};
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw bad("the request body is not valid JSON");
  }
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw bad("the request body must be a JSON object");
  return v as Record<string, unknown>;
}

/** Rounds away binary noise such as 0.30000000000000004 without hiding real digits. */
/**
 * A result rounded to 12 significant digits. A result out of a double's range is the caller's input
 * (JSON has no Infinity: it would go out as null and break the tool's output schema), so it is a 422.
 */
export function tidy(x: number): number {
  if (!Number.isFinite(x)) throw new DemoError(422, "NOT_FINITE", "the result is out of range (not a finite number): use smaller values");
  return Number(x.toPrecision(12));
}
