// Request parsing: content type, size, JSON syntax and the zod schema, each failing with a 4xx that says what to fix.
import type { Context } from "hono";
import { clipEchoed, listProblems, ToolbeltError } from "../core/errors.js";
import type * as z from "../core/zod-mini.js";

type Issue = { path: string; code: string; message: string };

// Paths may carry a caller's key of any length: each is clipped.
const where = (path: readonly PropertyKey[]) => (path.length ? clipEchoed(path.map(String).join(".")) : "(body)");

/** zod issues as data an agent can act on: every issue, its path, and a sentence naming the fix. */
/** zod's int() also bounds every integer by ±(2^53 − 1): beside a field's own bound, that issue only adds noise. */
const safeIntegerBound = (i: z.core.$ZodIssue): boolean =>
  (i.code === "too_big" && Number(i.maximum) === Number.MAX_SAFE_INTEGER) || (i.code === "too_small" && Number(i.minimum) === Number.MIN_SAFE_INTEGER);

export function formatIssues(error: z.core.$ZodError, allowedKeys: readonly string[] = []): Issue[] {
  const at = (i: z.core.$ZodIssue) => i.path.join("\0");
  const issues = error.issues.filter((i) => !safeIntegerBound(i) || !error.issues.some((o) => o !== i && at(o) === at(i)));
  return issues.flatMap((i): Issue[] => {
    if (i.code === "unrecognized_keys") {
      return i.keys.map((k) => ({
        path: where([...i.path, k]),
        code: "unknown_field",
        message: `unknown field "${clipEchoed(k)}": remove it${allowedKeys.length && !i.path.length ? ` (allowed: ${allowedKeys.join(", ")})` : ""}`,
      }));
    }
    if (i.code === "invalid_type" && /received undefined/.test(i.message)) {
      return [{ path: where(i.path), code: "missing_field", message: `${where(i.path)} is required (${i.expected})` }];
    }
    const msg = i.message.replace(/^Invalid input: /, "");
    return [{ path: where(i.path), code: i.code, message: `${where(i.path)}: ${msg}` }];
  });
}

/**
 * Deepest nesting of arrays and objects a body may have: far beyond real arguments, far below the
 * few thousand levels at which the recursive code after parsing (structuredClone of call
 * arguments, ajv, JSON.stringify) overflows the stack and would end the request as a 500.
 */
export const MAX_JSON_DEPTH = 256;

/** Nesting depth of JSON text, read without recursion (strings skipped, escapes honoured). */
export function jsonDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 0x5c)
        i++; // backslash: skip the escaped character
      else if (ch === 0x22) inString = false;
    } else if (ch === 0x22) inString = true;
    else if (ch === 0x5b || ch === 0x7b) deepest = Math.max(deepest, ++depth);
    else if (ch === 0x5d || ch === 0x7d) depth--;
  }
  return deepest;
}

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

export type BodyOptions = { maxBytes: number; optional?: boolean };

/** Read and parse a JSON body, then check it against the schema. */
export async function parseJsonBody<S extends z.ZodMiniType>(c: Context, schema: S, opts: BodyOptions): Promise<z.infer<S>> {
  return checkBody(schema, await readJsonBody(c, opts));
}

/**
 * Read a JSON body as sent, before any schema (zod copies objects without an own `__proto__` key, so a
 * route that must refuse such keys keeps this value). `optional` bodies may be absent (no bytes at all),
 * read as `{}`. The body-limit middleware has already refused oversized streams; the length is checked
 * again for adapters without it.
 */
export async function readJsonBody(c: Context, opts: BodyOptions): Promise<unknown> {
  const text = await c.req.text();
  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes > opts.maxBytes) {
    throw new ToolbeltError("PAYLOAD_TOO_LARGE", `request body is ${bytes} bytes; the limit is ${opts.maxBytes}`, { limit_bytes: opts.maxBytes });
  }
  let value: unknown;
  if (bytes === 0) {
    if (!opts.optional) {
      throw new ToolbeltError("INVALID_REQUEST", "request body is empty: send a JSON object", { issues: [] });
    }
    value = {};
  } else {
    const type = c.req.header("content-type") ?? "";
    if (!JSON_TYPE.test(type)) {
      throw new ToolbeltError(
        "UNSUPPORTED_MEDIA_TYPE",
        `content type ${JSON.stringify(type || "(none)")} is not accepted: send \`Content-Type: application/json\``,
        {
          received: type || null,
          accepted: ["application/json"],
        },
      );
    }
    try {
      value = JSON.parse(text);
    } catch (err) {
      throw new ToolbeltError("BAD_JSON", `request body is not valid JSON: ${(err as Error).message}`);
    }
    const depth = jsonDepth(text);
    if (depth > MAX_JSON_DEPTH) {
      const message = `request body nests arrays and objects ${depth} levels deep; the limit is ${MAX_JSON_DEPTH}: send flatter JSON`;
      throw new ToolbeltError("INVALID_REQUEST", message, { issues: [{ path: "(body)", code: "too_deep", message }], limit_depth: MAX_JSON_DEPTH });
    }
  }
  return value;
}

/** A parsed body checked against its schema as INVALID_REQUEST: the first MAX_LISTED_PROBLEMS issues with their paths, and the count of the rest. */
export function checkBody<S extends z.ZodMiniType>(schema: S, value: unknown): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const shape = (schema as unknown as { shape?: Record<string, unknown> }).shape;
    const { listed, more, tail } = listProblems(formatIssues(parsed.error, shape ? Object.keys(shape) : []));
    throw new ToolbeltError("INVALID_REQUEST", listed.map((i) => i.message).join("; ") + tail, { issues: listed, ...(more ? { more_issues: more } : {}) });
  }
  return parsed.data;
}
