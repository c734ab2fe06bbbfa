// POST /v1/find's body checked without zod when it is a plain, valid one: zod's parse of it was about a
// fiftieth of a find over HTTP. Every other body (unknown keys, a value out of bounds, anything unusual)
// is left to FindBody, which refuses it with its issues: this only ever answers what FindBody answers.
// test/unit/lambdas/contract/find-body.test.ts holds the two to the same results.
import { FIND_LIMITS, FindBody } from "./find.js";
import { SESSION_ID_RE } from "./sessions.js";

type Check = (value: unknown) => boolean;

const text =
  (min: number, max: number): Check =>
  (v) =>
    typeof v === "string" && v.length >= min && v.length <= max;
const integer =
  (min: number, max: number): Check =>
  (v) =>
    Number.isInteger(v) && (v as number) >= min && (v as number) <= max;
const fraction: Check = (v) => typeof v === "number" && v >= 0 && v <= 1;
const oneOf =
  (...values: unknown[]): Check =>
  (v) =>
    values.includes(v);

/** Each field's check as FindBody declares it (`query` is trimmed before its bounds, as z.trim() does). A Map: a body's key such as `constructor` must find nothing. */
const CHECKS = new Map<string, Check>(
  Object.entries({
    query: text(1, FIND_LIMITS.queryChars),
    limit: integer(1, FIND_LIMITS.maxResults),
    min_score: fraction,
    family: text(1, 64),
    schemas: oneOf("top", "all", "none", true, false),
    explain: (v) => typeof v === "boolean",
    mode: oneOf("keyword", "decision", "auto"),
    min_probability: fraction,
    chunk_size: integer(1, FIND_LIMITS.maxChunkSize),
    model: text(1, 64),
    session: (v: unknown) => typeof v === "string" && SESSION_ID_RE.test(v),
  } satisfies Record<string, Check>),
);
/** What FindBody fills in for a field left out. */
const DEFAULTS = new Map<string, unknown>([
  ["limit", FIND_LIMITS.defaultResults],
  ["schemas", "top"],
]);

// FindBody's fields in its order (its output's key order); were they ever other than these, FindBody alone decides.
const FIELDS = Object.keys(FindBody.shape);
const SAME_FIELDS = FIELDS.length === CHECKS.size && FIELDS.every((k) => CHECKS.has(k));

/** The body as FindBody parses it when FindBody accepts it and it is plain JSON; undefined otherwise (then ask FindBody). */
export function findBodyOf(body: unknown): FindBody | undefined {
  if (!SAME_FIELDS || typeof body !== "object" || body === null || Object.getPrototypeOf(body) !== Object.prototype) return undefined;
  const given = body as Record<string, unknown>;
  for (const key of Object.keys(given)) {
    const check = CHECKS.get(key);
    const value = given[key];
    if (check === undefined || value === undefined) return undefined;
    if (!(key === "query" ? typeof value === "string" && check(value.trim()) : check(value))) return undefined;
  }
  if (typeof given.query !== "string") return undefined;
  const out: Record<string, unknown> = {};
  for (const key of FIELDS) {
    const value = key === "query" ? (given.query as string).trim() : Object.hasOwn(given, key) ? given[key] : DEFAULTS.get(key);
    if (value !== undefined) out[key] = value;
  }
  return out as FindBody;
}
