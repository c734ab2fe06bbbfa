// The loopback service behind the example registry's http families (notes, text, time, convert,
// math, kv, random, diagnostics). It stands in for a third-party API: real behaviour, its own
// error shape `{error: {code, message}}`, one bearer-protected route family, a slow and a failing route.
import { createHash, randomBytes, randomInt, randomUUID, timingSafeEqual } from "node:crypto";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { Hono, type Context } from "hono";
import { bodyLimit } from "hono/body-limit";

export type DemoServiceOptions = {
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Defaults to 127.0.0.1: the service is for loopback use only. */
  host?: string;
  /** Bearer token the protected routes accept; a random one is generated when omitted. */
  token?: string;
};

export type DemoService = {
  /** Base URL without a trailing slash, e.g. `http://127.0.0.1:40123`. */
  url: string;
  /** The bearer token to put in `DEMO_SERVICE_TOKEN`. */
  token: string;
  close(): Promise<void>;
};

/** A client mistake: answered with its status and a message that says what to fix. */
class DemoError extends Error {
  constructor(
    readonly status: 400 | 401 | 404 | 409 | 413 | 422,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const bad = (message: string) => new DemoError(400, "BAD_REQUEST", message);
const MAX_SLOW_MS = 60_000;

// ---------- input coercion: templated values may arrive as strings, so accept both forms ----------

/** An absent optional value: missing, null or the empty string a template renders for a missing input. */
function absent(v: unknown): v is undefined | null | "" {
  return v === undefined || v === null || v === "";
}

function str(v: unknown, name: string): string {
  if (absent(v)) throw bad(`\`${name}\` is required`);
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  throw bad(`\`${name}\` must be a string`);
}

function optStr(v: unknown, name: string): string | undefined {
  return absent(v) ? undefined : str(v, name);
}

function num(v: unknown, name: string): number {
  if (absent(v)) throw bad(`\`${name}\` is required`);
  const n = typeof v === "number" ? v : typeof v === "string" ? Number(v.trim()) : NaN;
  if (!Number.isFinite(n)) throw bad(`\`${name}\` must be a finite number, got ${JSON.stringify(v)}`);
  return n;
}

function optNum(v: unknown, name: string): number | undefined {
  return absent(v) ? undefined : num(v, name);
}

function int(v: unknown, name: string, min: number, max: number): number {
  const n = num(v, name);
  if (!Number.isInteger(n) || n < min || n > max) throw bad(`\`${name}\` must be an integer from ${min} to ${max}`);
  return n;
}

function optInt(v: unknown, name: string, min: number, max: number, dflt: number): number {
  return absent(v) ? dflt : int(v, name, min, max);
}

function bool(v: unknown, dflt: boolean): boolean {
  if (absent(v)) return dflt;
  if (typeof v === "boolean") return v;
  if (v === "true" || v === "1") return true;
  if (v === "false" || v === "0") return false;
  throw bad(`expected a boolean, got ${JSON.stringify(v)}`);
}

/** An array given as a JSON array, a JSON-encoded string, or a comma/newline separated string. */
function list(v: unknown, name: string): unknown[] {
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
    return s === "" ? [] : s.split(/[,\n]/).map((x) => x.trim()).filter((x) => x !== "");
  }
  throw bad(`\`${name}\` must be an array`);
}

function numbers(v: unknown, name: string): number[] {
  const items = list(v, name);
  if (items.length === 0) throw bad(`\`${name}\` must contain at least one number`);
  return items.map((x, i) => num(x, `${name}[${i}]`));
}

function tags(v: unknown): string[] {
  if (absent(v)) return [];
  return [...new Set(list(v, "tags").map((t) => str(t, "tags[]").trim().toLowerCase()))].filter(Boolean).sort();
}

function oneOf<T extends string>(v: unknown, name: string, allowed: readonly T[], dflt?: T): T {
  if (absent(v) && dflt !== undefined) return dflt;
  const s = str(v, name).toLowerCase();
  const hit = allowed.find((a) => a === s);
  if (!hit) throw bad(`\`${name}\` must be one of ${allowed.join(", ")}`);
  return hit;
}

async function jsonBody(c: Context): Promise<Record<string, unknown>> {
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

// ---------- notes ----------

type Note = { id: string; title: string; body: string; tags: string[]; created_at: string; updated_at: string };

// ---------- time ----------

/** An IANA zone from its name or its city (`Tokyo`, `new york` → Asia/Tokyo, America/New_York). */
function checkZone(zone: string): string {
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone: zone.trim() }).resolvedOptions().timeZone;
  } catch {
    const city = zone.trim().toLowerCase().replace(/\s+/g, "_");
    const hit = Intl.supportedValuesOf("timeZone").find((z) => z.toLowerCase().split("/").pop() === city);
    if (hit) return hit;
    throw bad(`unknown time zone ${JSON.stringify(zone)}: use an IANA name such as Europe/Paris or Asia/Tokyo`);
  }
}

/** Wall-clock fields of an instant in a zone. */
function wallParts(ms: number, zone: string) {
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone: zone,
    hourCycle: "h23",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    weekday: "long",
  }).formatToParts(new Date(ms));
  const get = (t: string) => parts.find((p) => p.type === t)?.value ?? "";
  return {
    year: Number(get("year")),
    month: Number(get("month")),
    day: Number(get("day")),
    hour: Number(get("hour")),
    minute: Number(get("minute")),
    second: Number(get("second")),
    weekday: get("weekday"),
  };
}

/** Offset of `zone` from UTC at an instant, in minutes (east positive). */
function offsetMinutes(ms: number, zone: string): number {
  const p = wallParts(ms, zone);
  const asUtc = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  return Math.round((asUtc - Math.floor(ms / 1000) * 1000) / 60_000);
}

const pad = (n: number, w = 2) => String(Math.abs(n)).padStart(w, "0");
const fmtOffset = (min: number) => `${min < 0 ? "-" : "+"}${pad(Math.floor(Math.abs(min) / 60))}:${pad(Math.abs(min) % 60)}`;

function describeInstant(ms: number, zone: string) {
  const p = wallParts(ms, zone);
  const off = offsetMinutes(ms, zone);
  const date = `${pad(p.year, 4)}-${pad(p.month)}-${pad(p.day)}`;
  const time = `${pad(p.hour)}:${pad(p.minute)}:${pad(p.second)}`;
  return {
    zone,
    iso: `${date}T${time}${fmtOffset(off)}`,
    date,
    time,
    weekday: p.weekday,
    utc_offset: fmtOffset(off),
    utc: new Date(ms).toISOString(),
    unix: Math.floor(ms / 1000),
  };
}

const LOCAL_TIME_RE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?)?$/;

/** An instant from an ISO string with offset, a Unix timestamp, `now`, or a wall-clock time read in `zone`. */
function parseInstant(raw: string, zone: string): number {
  const s = raw.trim();
  if (s === "" || s.toLowerCase() === "now") return Date.now();
  if (/^-?\d{9,}$/.test(s)) return Number(s) * 1000;
  const m = LOCAL_TIME_RE.exec(s);
  if (m) {
    const [y, mo, d, h, mi, se] = m.slice(1).map((x) => (x === undefined ? 0 : Number(x))) as number[];
    const guess = Date.UTC(y!, mo! - 1, d!, h!, mi!, se!);
    // Two passes settle the offset around DST changes.
    const first = guess - offsetMinutes(guess, zone) * 60_000;
    return guess - offsetMinutes(first, zone) * 60_000;
  }
  const ms = Date.parse(s);
  if (Number.isNaN(ms)) throw bad(`cannot read ${JSON.stringify(raw)} as a time: use ISO 8601 such as 2026-03-14T09:30 or a Unix timestamp`);
  return ms;
}

const DURATION_MS = { millisecond: 1, second: 1000, minute: 60_000, hour: 3_600_000, day: 86_400_000, week: 604_800_000 } as const;
const ADD_UNITS = ["millisecond", "second", "minute", "hour", "day", "week", "month", "year"] as const;

function humanDuration(ms: number): string {
  const sign = ms < 0 ? "-" : "";
  let rest = Math.abs(Math.round(ms / 1000));
  const out: string[] = [];
  for (const [unit, size] of [["d", 86_400], ["h", 3600], ["m", 60], ["s", 1]] as const) {
    const q = Math.floor(rest / size);
    rest -= q * size;
    if (q > 0) out.push(`${q}${unit}`);
  }
  return sign + (out.length ? out.join(" ") : "0s");
}

// ---------- unit conversion ----------

type Unit = { category: string; symbol: string; factor: number; names: string[] };
const UNIT_TABLE: [string, [string, number, string[]][]][] = [
  ["length", [
    ["mm", 0.001, ["millimeter", "millimeters", "millimetre", "millimetres"]],
    ["cm", 0.01, ["centimeter", "centimeters", "centimetre", "centimetres"]],
    ["m", 1, ["meter", "meters", "metre", "metres"]],
    ["km", 1000, ["kilometer", "kilometers", "kilometre", "kilometres"]],
    ["in", 0.0254, ["inch", "inches"]],
    ["ft", 0.3048, ["foot", "feet"]],
    ["yd", 0.9144, ["yard", "yards"]],
    ["mi", 1609.344, ["mile", "miles"]],
    ["nmi", 1852, ["nautical mile", "nautical miles"]],
  ]],
  ["mass", [
    ["mg", 1e-6, ["milligram", "milligrams"]],
    ["g", 0.001, ["gram", "grams"]],
    ["kg", 1, ["kilogram", "kilograms", "kilo", "kilos"]],
    ["t", 1000, ["tonne", "tonnes", "metric ton"]],
    ["oz", 0.028349523125, ["ounce", "ounces"]],
    ["lb", 0.45359237, ["lbs", "pound", "pounds"]],
    ["st", 6.35029318, ["stone", "stones"]],
  ]],
  ["volume", [
    ["ml", 0.001, ["milliliter", "milliliters", "millilitre", "millilitres"]],
    ["l", 1, ["liter", "liters", "litre", "litres"]],
    ["m3", 1000, ["cubic meter", "cubic meters"]],
    ["tsp", 0.00492892159375, ["teaspoon", "teaspoons"]],
    ["tbsp", 0.01478676478125, ["tablespoon", "tablespoons"]],
    ["cup", 0.2365882365, ["cups"]],
    ["floz", 0.0295735295625, ["fl oz", "fluid ounce", "fluid ounces"]],
    ["pt", 0.473176473, ["pint", "pints"]],
    ["qt", 0.946352946, ["quart", "quarts"]],
    ["gal", 3.785411784, ["gallon", "gallons"]],
  ]],
  ["area", [
    ["cm2", 1e-4, ["square centimeter", "square centimeters"]],
    ["m2", 1, ["square meter", "square meters", "sqm"]],
    ["km2", 1e6, ["square kilometer", "square kilometers"]],
    ["ha", 1e4, ["hectare", "hectares"]],
    ["acre", 4046.8564224, ["acres"]],
    ["ft2", 0.09290304, ["square foot", "square feet", "sqft"]],
    ["mi2", 2589988.110336, ["square mile", "square miles"]],
  ]],
  ["speed", [
    ["m/s", 1, ["meters per second", "mps"]],
    ["km/h", 1 / 3.6, ["kph", "kmh", "kilometers per hour"]],
    ["mph", 0.44704, ["miles per hour"]],
    ["kn", 0.514444, ["knot", "knots"]],
    ["ft/s", 0.3048, ["feet per second", "fps"]],
  ]],
  ["data", [
    ["bit", 0.125, ["bits"]],
    ["b", 1, ["byte", "bytes"]],
    ["kb", 1e3, ["kilobyte", "kilobytes"]],
    ["mb", 1e6, ["megabyte", "megabytes"]],
    ["gb", 1e9, ["gigabyte", "gigabytes"]],
    ["tb", 1e12, ["terabyte", "terabytes"]],
    ["kib", 1024, ["kibibyte", "kibibytes"]],
    ["mib", 1024 ** 2, ["mebibyte", "mebibytes"]],
    ["gib", 1024 ** 3, ["gibibyte", "gibibytes"]],
    ["tib", 1024 ** 4, ["tebibyte", "tebibytes"]],
  ]],
  ["time", [
    ["ms", 0.001, ["millisecond", "milliseconds"]],
    ["s", 1, ["sec", "second", "seconds"]],
    ["min", 60, ["minute", "minutes"]],
    ["h", 3600, ["hr", "hour", "hours"]],
    ["day", 86_400, ["d", "days"]],
    ["week", 604_800, ["wk", "weeks"]],
    ["year", 31_557_600, ["yr", "years"]],
  ]],
  ["temperature", [
    ["c", NaN, ["°c", "celsius", "centigrade"]],
    ["f", NaN, ["°f", "fahrenheit"]],
    ["k", NaN, ["kelvin"]],
  ]],
];
const UNITS = new Map<string, Unit>();
for (const [category, rows] of UNIT_TABLE) {
  for (const [symbol, factor, names] of rows) {
    const unit: Unit = { category, symbol, factor, names };
    for (const alias of [symbol, ...names]) UNITS.set(alias, unit);
  }
}

function unitOf(raw: string, name: string): Unit {
  const u = UNITS.get(raw.trim().toLowerCase());
  if (!u) throw bad(`unknown unit ${JSON.stringify(raw)} in \`${name}\`: GET /convert/units/list shows the supported units`);
  return u;
}

function toKelvin(v: number, u: string): number {
  return u === "c" ? v + 273.15 : u === "f" ? (v - 32) * (5 / 9) + 273.15 : v;
}
function fromKelvin(k: number, u: string): number {
  return u === "c" ? k - 273.15 : u === "f" ? (k - 273.15) * (9 / 5) + 32 : k;
}
/** Rounds away binary noise such as 0.30000000000000004 without hiding real digits. */
const tidy = (x: number) => Number(x.toPrecision(12));

function convertUnits(value: number, fromRaw: string, toRaw: string) {
  const from = unitOf(fromRaw, "from");
  const to = unitOf(toRaw, "to");
  if (from.category !== to.category) throw bad(`cannot convert ${from.category} (${from.symbol}) to ${to.category} (${to.symbol})`);
  const result =
    from.category === "temperature" ? fromKelvin(toKelvin(value, from.symbol), to.symbol) : (value * from.factor) / to.factor;
  if (from.category === "temperature" && toKelvin(value, from.symbol) < 0) throw bad("the temperature is below absolute zero");
  return { value, from: from.symbol, to: to.symbol, category: from.category, result: tidy(result) };
}

const ROMAN: [number, string][] = [
  [1000, "M"], [900, "CM"], [500, "D"], [400, "CD"], [100, "C"], [90, "XC"],
  [50, "L"], [40, "XL"], [10, "X"], [9, "IX"], [5, "V"], [4, "IV"], [1, "I"],
];
function toRoman(n: number): string {
  let out = "";
  for (const [v, s] of ROMAN) while (n >= v) { out += s; n -= v; }
  return out;
}
function fromRoman(s: string): number {
  const up = s.toUpperCase();
  if (!/^[MDCLXVI]+$/.test(up)) throw bad(`${JSON.stringify(s)} is neither a number nor a Roman numeral`);
  let n = 0;
  let i = 0;
  for (const [v, sym] of ROMAN) while (up.startsWith(sym, i)) { n += v; i += sym.length; }
  if (i !== up.length || toRoman(n) !== up) throw bad(`${JSON.stringify(s)} is not a well-formed Roman numeral`);
  return n;
}

// ---------- arithmetic: a small expression parser (no eval) ----------

const FUNCS: Record<string, (...a: number[]) => number> = {
  sqrt: Math.sqrt, cbrt: Math.cbrt, abs: Math.abs, sin: Math.sin, cos: Math.cos, tan: Math.tan,
  asin: Math.asin, acos: Math.acos, atan: Math.atan, ln: Math.log, log: Math.log10, log2: Math.log2,
  exp: Math.exp, round: Math.round, floor: Math.floor, ceil: Math.ceil, min: Math.min, max: Math.max,
  pow: Math.pow,
};
const CONSTS: Record<string, number> = { pi: Math.PI, e: Math.E, tau: 2 * Math.PI };

function evaluate(src: string): number {
  const tokens = src.match(/\d+(?:\.\d+)?(?:e[+-]?\d+)?|\.\d+|[A-Za-z_][A-Za-z0-9_]*|\*\*|[-+*/%^(),]|\S/g) ?? [];
  let pos = 0;
  const peek = () => tokens[pos];
  const take = (t?: string) => {
    const tok = tokens[pos];
    if (t !== undefined && tok !== t) throw bad(`expected \`${t}\` at token ${pos + 1} of the expression, found ${tok === undefined ? "the end" : `\`${tok}\``}`);
    pos++;
    return tok;
  };
  // expr := term (('+'|'-') term)*; term := unary (('*'|'/'|'%') unary)*; unary := '-' unary | power; power := atom ('^' unary)?
  const expr = (): number => {
    let v = term();
    while (peek() === "+" || peek() === "-") v = take() === "+" ? v + term() : v - term();
    return v;
  };
  const term = (): number => {
    let v = unary();
    while (peek() === "*" || peek() === "/" || peek() === "%") {
      const op = take();
      const r = unary();
      v = op === "*" ? v * r : op === "/" ? v / r : v % r;
    }
    return v;
  };
  const unary = (): number => {
    if (peek() === "-") { take(); return -unary(); }
    if (peek() === "+") { take(); return unary(); }
    return power();
  };
  const power = (): number => {
    const base = atom();
    if (peek() === "^" || peek() === "**") { take(); return Math.pow(base, unary()); }
    return base;
  };
  const atom = (): number => {
    const tok = take();
    if (tok === undefined) throw bad("the expression ends too early");
    if (tok === "(") { const v = expr(); take(")"); return v; }
    if (/^[\d.]/.test(tok)) return Number(tok);
    if (/^[A-Za-z_]/.test(tok)) {
      const name = tok.toLowerCase();
      if (peek() === "(") {
        const fn = Object.hasOwn(FUNCS, name) ? FUNCS[name] : undefined; // "__proto__(1)" is unknown, not Object.prototype
        if (!fn) throw bad(`unknown function \`${tok}\`; known: ${Object.keys(FUNCS).join(", ")}`);
        take("(");
        const args = [expr()];
        while (peek() === ",") { take(); args.push(expr()); }
        take(")");
        return fn(...args);
      }
      const c = Object.hasOwn(CONSTS, name) ? CONSTS[name] : undefined;
      if (c === undefined) throw bad(`unknown name \`${tok}\`; constants: ${Object.keys(CONSTS).join(", ")}`);
      return c;
    }
    throw bad(`unexpected \`${tok}\` in the expression`);
  };
  if (tokens.length === 0) throw bad("the expression is empty");
  const v = expr();
  if (pos < tokens.length) throw bad(`unexpected \`${tokens[pos]}\` at token ${pos + 1} of the expression`);
  if (!Number.isFinite(v)) throw new DemoError(422, "NOT_FINITE", "the expression has no finite value (division by zero or out of range)");
  return v;
}

function statistics(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  const sum = sorted.reduce((a, b) => a + b, 0);
  const mean = sum / n;
  const mid = Math.floor(n / 2);
  const median = n % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  const counts = new Map<number, number>();
  for (const v of sorted) counts.set(v, (counts.get(v) ?? 0) + 1);
  const top = Math.max(...counts.values());
  const mode = top > 1 ? [...counts].filter(([, c]) => c === top).map(([v]) => v) : [];
  const variance = n > 1 ? sorted.reduce((a, v) => a + (v - mean) ** 2, 0) / (n - 1) : 0;
  return {
    count: n, sum: tidy(sum), mean: tidy(mean), median, mode, min: sorted[0]!, max: sorted[n - 1]!,
    range: tidy(sorted[n - 1]! - sorted[0]!), variance: tidy(variance), stdev: tidy(Math.sqrt(variance)),
  };
}

function factorize(n: number): number[] {
  const out: number[] = [];
  for (let p = 2; p * p <= n; p++) while (n % p === 0) { out.push(p); n /= p; }
  if (n > 1) out.push(n);
  return out;
}
const gcd = (a: number, b: number): number => (b === 0 ? Math.abs(a) : gcd(b, a % b));

// ---------- text ----------

const words = (s: string) => s.match(/[\p{L}\p{N}]+(?:['’][\p{L}]+)*/gu) ?? [];
const CASES = ["upper", "lower", "title", "sentence", "camel", "pascal", "snake", "kebab", "constant"] as const;

function changeCase(text: string, to: (typeof CASES)[number]): string {
  const w = words(text.replace(/([a-z0-9])([A-Z])/g, "$1 $2"));
  const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1).toLowerCase();
  switch (to) {
    case "upper": return text.toUpperCase();
    case "lower": return text.toLowerCase();
    case "title": return text.toLowerCase().replace(/(^|[\s\-([{"'])(\p{L})/gu, (_m, a: string, b: string) => a + b.toUpperCase());
    case "sentence": return text.toLowerCase().replace(/(^\s*|[.!?]\s+)(\p{L})/gu, (_m, a: string, b: string) => a + b.toUpperCase());
    case "camel": return w.map((x, i) => (i === 0 ? x.toLowerCase() : cap(x))).join("");
    case "pascal": return w.map(cap).join("");
    case "snake": return w.map((x) => x.toLowerCase()).join("_");
    case "kebab": return w.map((x) => x.toLowerCase()).join("-");
    case "constant": return w.map((x) => x.toUpperCase()).join("_");
  }
}

function slugify(text: string, max: number): string {
  const s = text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  return s.slice(0, max).replace(/-+$/, "");
}

const EXTRACTORS = {
  emails: /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g,
  urls: /\bhttps?:\/\/[^\s<>"')\]]+/g,
  numbers: /-?\d+(?:[.,]\d+)*(?:\.\d+)?/g,
  hashtags: /(?<![\w#])#[\p{L}\p{N}_]+/gu,
  mentions: /(?<![\w@])@[A-Za-z0-9_]{1,32}\b/g,
  phones: /\+?\d[\d\s().-]{7,}\d/g,
} as const;

/** Line diff by longest common subsequence: small inputs only (bounded by the body limit). */
function lineDiff(a: string, b: string) {
  const x = a.split("\n");
  const y = b.split("\n");
  if (x.length * y.length > 4_000_000) throw new DemoError(413, "TOO_LARGE", "the texts are too long to diff: keep each under about 2,000 lines");
  const dp = Array.from({ length: x.length + 1 }, () => new Array<number>(y.length + 1).fill(0));
  for (let i = x.length - 1; i >= 0; i--)
    for (let j = y.length - 1; j >= 0; j--)
      dp[i]![j] = x[i] === y[j] ? dp[i + 1]![j + 1]! + 1 : Math.max(dp[i + 1]![j]!, dp[i]![j + 1]!);
  const lines: string[] = [];
  let i = 0;
  let j = 0;
  let added = 0;
  let removed = 0;
  while (i < x.length || j < y.length) {
    if (i < x.length && j < y.length && x[i] === y[j]) { lines.push(`  ${x[i]}`); i++; j++; }
    else if (j < y.length && (i === x.length || dp[i]![j + 1]! >= dp[i + 1]![j]!)) { lines.push(`+ ${y[j]}`); j++; added++; }
    else { lines.push(`- ${x[i]}`); i++; removed++; }
  }
  return { identical: added === 0 && removed === 0, added, removed, diff: lines.join("\n") };
}

// ---------- random ----------

const PASSWORD_SETS = {
  lower: "abcdefghijkmnopqrstuvwxyz",
  upper: "ABCDEFGHJKLMNPQRSTUVWXYZ",
  digits: "23456789",
  symbols: "!@#$%^&*-_=+?",
};

function shuffle<T>(items: T[]): T[] {
  const a = [...items];
  for (let i = a.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a;
}

// ---------- the app ----------

// A key never starts with a dot, so `.` and `..` cannot rewrite the URL path.
const KV_KEY_RE = /^[A-Za-z0-9_:-][A-Za-z0-9_.:-]{0,127}$/;
type KvEntry = { value: string; version: number; updated_at: string; expires_at?: number };

export function createDemoApp(token: string, timers: Set<NodeJS.Timeout>): Hono {
  const app = new Hono();
  const notes = new Map<string, Note>();
  let nextNote = 1;
  const kv = new Map<string, KvEntry>();
  const started = Date.now();

  const authorized = (c: Context) => {
    const got = Buffer.from(c.req.header("authorization") ?? "");
    const want = Buffer.from(`Bearer ${token}`);
    return got.length === want.length && timingSafeEqual(got, want);
  };
  const requireAuth = (c: Context) => {
    if (!authorized(c)) throw new DemoError(401, "UNAUTHORIZED", "this route needs `Authorization: Bearer <DEMO_SERVICE_TOKEN>`");
  };
  const liveKv = (key: string) => {
    const e = kv.get(key);
    if (e?.expires_at !== undefined && e.expires_at <= Date.now()) {
      kv.delete(key);
      return undefined;
    }
    return e;
  };
  const kvKey = (c: Context) => {
    const key = c.req.param("key") ?? "";
    if (!KV_KEY_RE.test(key)) throw bad("a key is 1-128 characters of letters, digits, `_`, `.`, `:` or `-`, not starting with a dot");
    return key;
  };
  const note = (id: string) => {
    const n = notes.get(id);
    if (!n) throw new DemoError(404, "NOT_FOUND", `no note with id ${JSON.stringify(id)}: list notes to see the ids`);
    return n;
  };

  app.use(bodyLimit({ maxSize: 1024 * 1024, onError: () => { throw new DemoError(413, "TOO_LARGE", "the body is over 1 MB"); } }));

  app.onError((err, c) => {
    if (err instanceof DemoError) return c.json({ error: { code: err.code, message: err.message } }, err.status);
    return c.json({ error: { code: "INTERNAL", message: "internal error" } }, 500);
  });
  app.notFound((c) => c.json({ error: { code: "NOT_FOUND", message: `no route ${c.req.method} ${c.req.path}` } }, 404));

  app.get("/", (c) =>
    c.json({ service: "toolbelt-demo", routes: ["/notes", "/text", "/time", "/convert", "/math", "/kv", "/random", "/health", "/echo", "/slow", "/fail", "/whoami", "/malformed"] }),
  );

  // notes: an in-memory notebook
  app.post("/notes", async (c) => {
    const b = await jsonBody(c);
    const now = new Date().toISOString();
    const n: Note = { id: `n${nextNote++}`, title: str(b.title, "title"), body: optStr(b.body, "body") ?? "", tags: tags(b.tags), created_at: now, updated_at: now };
    notes.set(n.id, n);
    return c.json(n, 201);
  });
  app.get("/notes", (c) => {
    const tag = optStr(c.req.query("tag"), "tag")?.toLowerCase();
    const limit = optInt(c.req.query("limit"), "limit", 1, 500, 50);
    const all = [...notes.values()].filter((n) => !tag || n.tags.includes(tag)).reverse();
    return c.json({ count: all.length, notes: all.slice(0, limit) });
  });
  app.get("/notes/search", (c) => {
    const q = str(c.req.query("q"), "q").toLowerCase();
    const terms = q.split(/\s+/).filter(Boolean);
    const hits = [...notes.values()].filter((n) => {
      const hay = `${n.title}\n${n.body}\n${n.tags.join(" ")}`.toLowerCase();
      return terms.every((t) => hay.includes(t));
    });
    return c.json({ query: q, count: hits.length, notes: hits.reverse() });
  });
  app.get("/notes/:id", (c) => c.json(note(c.req.param("id"))));
  app.patch("/notes/:id", async (c) => {
    const n = note(c.req.param("id"));
    const b = await jsonBody(c);
    const title = optStr(b.title, "title");
    const body = optStr(b.body, "body");
    const append = optStr(b.append, "append");
    if (title === undefined && body === undefined && append === undefined && absent(b.tags)) throw bad("give at least one of title, body, append or tags");
    const updated: Note = {
      ...n,
      title: title ?? n.title,
      body: append !== undefined ? `${body ?? n.body}${(body ?? n.body) ? "\n" : ""}${append}` : (body ?? n.body),
      tags: absent(b.tags) ? n.tags : tags(b.tags),
      updated_at: new Date().toISOString(),
    };
    notes.set(n.id, updated);
    return c.json(updated);
  });
  app.post("/notes/:id/tags", async (c) => {
    const n = note(c.req.param("id"));
    const b = await jsonBody(c);
    const updated = { ...n, tags: tags([...n.tags, ...list(b.tags ?? b.tag, "tags")]), updated_at: new Date().toISOString() };
    notes.set(n.id, updated);
    return c.json(updated);
  });
  app.delete("/notes/:id", (c) => {
    requireAuth(c);
    const n = note(c.req.param("id"));
    notes.delete(n.id);
    return c.json({ deleted: true, id: n.id, title: n.title });
  });

  // text transforms
  app.post("/text/case", async (c) => {
    const b = await jsonBody(c);
    const to = oneOf(b.to, "to", CASES);
    return c.json({ to, text: changeCase(str(b.text, "text"), to) });
  });
  app.post("/text/slugify", async (c) => {
    const b = await jsonBody(c);
    return c.json({ slug: slugify(str(b.text, "text"), optInt(b.max_length, "max_length", 1, 200, 80)) });
  });
  app.post("/text/stats", async (c) => {
    const text = str((await jsonBody(c)).text, "text");
    const w = words(text).length;
    return c.json({
      characters: [...text].length,
      characters_no_spaces: [...text.replace(/\s/g, "")].length,
      words: w,
      sentences: (text.match(/[^.!?]+[.!?]+(\s|$)/g) ?? []).length || (text.trim() ? 1 : 0),
      lines: text === "" ? 0 : text.split("\n").length,
      paragraphs: text.split(/\n\s*\n/).filter((p) => p.trim()).length,
      reading_time_minutes: Math.max(w > 0 ? 1 : 0, Math.round(w / 230)),
    });
  });
  app.post("/text/reverse", async (c) => {
    const b = await jsonBody(c);
    const text = str(b.text, "text");
    const by = oneOf(b.by, "by", ["characters", "words", "lines"] as const, "characters");
    const out = by === "characters" ? [...text].reverse().join("") : by === "words" ? text.split(/(\s+)/).reverse().join("") : text.split("\n").reverse().join("\n");
    return c.json({ by, text: out });
  });
  app.post("/text/replace", async (c) => {
    const b = await jsonBody(c);
    const text = str(b.text, "text");
    const find = str(b.find, "find");
    const replacement = optStr(b.replace, "replace") ?? "";
    const ignoreCase = bool(b.ignore_case, false);
    const re = new RegExp(find.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), ignoreCase ? "gi" : "g");
    let count = 0;
    const out = text.replace(re, () => { count++; return replacement; });
    return c.json({ replacements: count, text: out });
  });
  app.post("/text/extract", async (c) => {
    const b = await jsonBody(c);
    const kind = oneOf(b.kind, "kind", Object.keys(EXTRACTORS) as (keyof typeof EXTRACTORS)[]);
    const matches = [...new Set(str(b.text, "text").match(EXTRACTORS[kind]) ?? [])];
    return c.json({ kind, count: matches.length, matches });
  });
  app.post("/text/base64", async (c) => {
    const b = await jsonBody(c);
    const direction = oneOf(b.direction, "direction", ["encode", "decode"] as const);
    const text = str(b.text, "text");
    if (direction === "encode") return c.json({ direction, text: Buffer.from(text, "utf8").toString("base64") });
    if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(text.replace(/\s/g, ""))) throw bad("`text` is not Base64");
    return c.json({ direction, text: Buffer.from(text, "base64").toString("utf8") });
  });
  app.post("/text/truncate", async (c) => {
    const b = await jsonBody(c);
    const text = str(b.text, "text");
    const max = int(b.max_length, "max_length", 1, 100_000);
    const ellipsis = optStr(b.ellipsis, "ellipsis") ?? "…";
    const chars = [...text];
    if (chars.length <= max) return c.json({ truncated: false, text });
    const keep = chars.slice(0, Math.max(0, max - [...ellipsis].length)).join("");
    const atWord = keep.replace(/\s+\S*$/, "");
    return c.json({ truncated: true, text: (atWord.length > keep.length / 2 ? atWord : keep) + ellipsis });
  });
  app.post("/text/hash", async (c) => {
    const b = await jsonBody(c);
    const algorithm = oneOf(b.algorithm, "algorithm", ["sha256", "sha1", "sha512", "md5"] as const, "sha256");
    return c.json({ algorithm, hex: createHash(algorithm).update(str(b.text, "text"), "utf8").digest("hex") });
  });
  app.post("/text/diff", async (c) => {
    const b = await jsonBody(c);
    return c.json(lineDiff(str(b.before, "before"), str(b.after, "after")));
  });

  // time and time zones
  app.get("/time/now", (c) => c.json(describeInstant(Date.now(), checkZone(optStr(c.req.query("zone"), "zone") ?? "UTC"))));
  app.get("/time/convert", (c) => {
    const from = checkZone(optStr(c.req.query("from"), "from") ?? "UTC");
    const to = checkZone(str(c.req.query("to"), "to"));
    const ms = parseInstant(optStr(c.req.query("time"), "time") ?? "now", from);
    return c.json({ from: describeInstant(ms, from), to: describeInstant(ms, to) });
  });
  app.get("/time/diff", (c) => {
    const zone = checkZone(optStr(c.req.query("zone"), "zone") ?? "UTC");
    const start = parseInstant(str(c.req.query("start"), "start"), zone);
    const end = parseInstant(optStr(c.req.query("end"), "end") ?? "now", zone);
    const ms = end - start;
    return c.json({
      start: new Date(start).toISOString(), end: new Date(end).toISOString(), milliseconds: ms,
      seconds: ms / 1000, minutes: tidy(ms / 60_000), hours: tidy(ms / 3_600_000), days: tidy(ms / 86_400_000),
      weeks: tidy(ms / 604_800_000), human: humanDuration(ms),
    });
  });
  app.get("/time/add", (c) => {
    const zone = checkZone(optStr(c.req.query("zone"), "zone") ?? "UTC");
    const ms = parseInstant(optStr(c.req.query("time"), "time") ?? "now", zone);
    const amount = num(c.req.query("amount"), "amount");
    const unit = oneOf(c.req.query("unit")?.replace(/s$/i, ""), "unit", ADD_UNITS);
    let out: number;
    if (unit === "month" || unit === "year") {
      // Calendar units move the wall clock in the zone, then read it back as an instant.
      const p = wallParts(ms, zone);
      const months = unit === "year" ? amount * 12 : amount;
      if (!Number.isInteger(months)) throw bad("months and years must be whole numbers");
      const total = p.year * 12 + (p.month - 1) + months;
      const y = Math.floor(total / 12);
      const m = (total % 12) + 1;
      const day = Math.min(p.day, new Date(Date.UTC(y, m, 0)).getUTCDate());
      out = parseInstant(`${pad(y, 4)}-${pad(m)}-${pad(day)}T${pad(p.hour)}:${pad(p.minute)}:${pad(p.second)}`, zone);
    } else out = ms + amount * DURATION_MS[unit];
    return c.json({ start: describeInstant(ms, zone), result: describeInstant(out, zone) });
  });
  app.get("/time/zones", (c) => {
    const q = optStr(c.req.query("search"), "search")?.toLowerCase().replace(/\s+/g, "_");
    const zones = ["UTC", ...Intl.supportedValuesOf("timeZone")].filter((z) => !q || z.toLowerCase().includes(q));
    return c.json({ count: zones.length, zones: zones.map((z) => ({ zone: z, utc_offset: fmtOffset(offsetMinutes(Date.now(), z)) })) });
  });
  app.get("/time/calendar", (c) => {
    const d = str(c.req.query("date"), "date");
    if (!/^\d{4}-\d{2}-\d{2}$/.test(d) || Number.isNaN(Date.parse(`${d}T00:00:00Z`))) throw bad("`date` must be YYYY-MM-DD");
    const ms = Date.parse(`${d}T00:00:00Z`);
    const dt = new Date(ms);
    const dayOfYear = Math.round((ms - Date.UTC(dt.getUTCFullYear(), 0, 1)) / 86_400_000) + 1;
    // ISO week: the week with the year's first Thursday is week 1.
    const thursday = new Date(ms + (3 - ((dt.getUTCDay() + 6) % 7)) * 86_400_000);
    const isoWeek = Math.floor((thursday.getTime() - Date.UTC(thursday.getUTCFullYear(), 0, 1)) / 604_800_000) + 1;
    const y = dt.getUTCFullYear();
    return c.json({
      date: d,
      weekday: dt.toLocaleDateString("en-US", { weekday: "long", timeZone: "UTC" }),
      day_of_year: dayOfYear,
      iso_week: isoWeek,
      is_weekend: dt.getUTCDay() === 0 || dt.getUTCDay() === 6,
      is_leap_year: (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0,
      days_in_month: new Date(Date.UTC(y, dt.getUTCMonth() + 1, 0)).getUTCDate(),
    });
  });

  // conversions
  app.get("/convert/units/list", (c) => {
    const category = optStr(c.req.query("category"), "category")?.toLowerCase();
    const out = UNIT_TABLE.filter(([cat]) => !category || cat === category).map(([cat, rows]) => ({
      category: cat,
      units: rows.map(([symbol, , names]) => ({ symbol, names })),
    }));
    if (out.length === 0) throw bad(`unknown category; known: ${UNIT_TABLE.map(([c2]) => c2).join(", ")}`);
    return c.json({ categories: out });
  });
  app.get("/convert/units", (c) =>
    c.json(convertUnits(num(c.req.query("value"), "value"), str(c.req.query("from"), "from"), str(c.req.query("to"), "to"))),
  );
  app.get("/convert/temperature", (c) => {
    const from = str(c.req.query("from"), "from");
    const to = str(c.req.query("to"), "to");
    if (unitOf(from, "from").category !== "temperature" || unitOf(to, "to").category !== "temperature") throw bad("temperature units are C, F or K (celsius, fahrenheit, kelvin)");
    return c.json(convertUnits(num(c.req.query("value"), "value"), from, to));
  });
  app.get("/convert/base", (c) => {
    const value = str(c.req.query("value"), "value").trim().toLowerCase().replace(/^0[xbo]/, "");
    const from = optInt(c.req.query("from"), "from", 2, 36, 10);
    const to = optInt(c.req.query("to"), "to", 2, 36, 16);
    const digits = "0123456789abcdefghijklmnopqrstuvwxyz".slice(0, from);
    const neg = value.startsWith("-");
    const body = neg ? value.slice(1) : value;
    if (!body || [...body].some((ch) => !digits.includes(ch))) throw bad(`${JSON.stringify(value)} is not a base-${from} number`);
    let n = 0n;
    for (const ch of body) n = n * BigInt(from) + BigInt(digits.indexOf(ch));
    return c.json({ value, from, to, result: (neg ? "-" : "") + n.toString(to), decimal: (neg ? "-" : "") + n.toString(10) });
  });
  app.get("/convert/roman", (c) => {
    const value = str(c.req.query("value"), "value").trim();
    if (/^\d+$/.test(value)) {
      const n = int(value, "value", 1, 3999);
      return c.json({ value, roman: toRoman(n), number: n });
    }
    const n = fromRoman(value);
    return c.json({ value, roman: value.toUpperCase(), number: n });
  });

  // arithmetic and statistics
  app.post("/math/evaluate", async (c) => {
    const expression = str((await jsonBody(c)).expression, "expression");
    if (expression.length > 1000) throw bad("the expression is over 1000 characters");
    return c.json({ expression, result: tidy(evaluate(expression)) });
  });
  app.post("/math/stats", async (c) => c.json(statistics(numbers((await jsonBody(c)).values, "values"))));
  app.get("/math/percentage", (c) => {
    const value = num(c.req.query("value"), "value");
    const of = num(c.req.query("of"), "of");
    if (of === 0) throw new DemoError(422, "NOT_FINITE", "`of` is zero: a percentage of zero is undefined");
    return c.json({ value, of, percent: tidy((value / of) * 100) });
  });
  app.get("/math/percent_change", (c) => {
    const from = num(c.req.query("from"), "from");
    const to = num(c.req.query("to"), "to");
    if (from === 0) throw new DemoError(422, "NOT_FINITE", "`from` is zero: a change from zero has no percentage");
    return c.json({ from, to, change: tidy(to - from), percent_change: tidy(((to - from) / Math.abs(from)) * 100) });
  });
  app.get("/math/factorize", (c) => {
    const n = int(c.req.query("n"), "n", 2, Number.MAX_SAFE_INTEGER);
    if (n > 1e15) throw bad("`n` must be at most 10^15");
    const factors = factorize(n);
    return c.json({ n, factors, is_prime: factors.length === 1 });
  });
  app.post("/math/gcd", async (c) => {
    const values = numbers((await jsonBody(c)).values, "values").map((v, i) => int(v, `values[${i}]`, 1, Number.MAX_SAFE_INTEGER));
    if (values.length < 2) throw bad("`values` needs at least two integers");
    const g = values.reduce(gcd);
    const l = values.reduce((a, b) => (a / gcd(a, b)) * b);
    return c.json({ values, gcd: g, lcm: l });
  });

  // key-value store
  app.get("/kv", (c) => {
    const prefix = optStr(c.req.query("prefix"), "prefix") ?? "";
    const keys = [...kv.keys()].filter((k) => k.startsWith(prefix) && liveKv(k)).sort();
    return c.json({ count: keys.length, keys });
  });
  app.get("/kv/:key", (c) => {
    const key = kvKey(c);
    const e = liveKv(key);
    if (!e) throw new DemoError(404, "NOT_FOUND", `no value under key ${JSON.stringify(key)}`);
    return c.json({ key, value: e.value, version: e.version, updated_at: e.updated_at, ...(e.expires_at ? { expires_at: new Date(e.expires_at).toISOString() } : {}) });
  });
  app.put("/kv/:key", async (c) => {
    const key = kvKey(c);
    const b = await jsonBody(c);
    if (b.value === undefined || b.value === null) throw bad("`value` is required");
    const value = typeof b.value === "string" ? b.value : JSON.stringify(b.value);
    const ttl = optNum(b.ttl_seconds, "ttl_seconds");
    if (ttl !== undefined && ttl <= 0) throw bad("`ttl_seconds` must be positive");
    const prev = liveKv(key);
    const e: KvEntry = { value, version: (prev?.version ?? 0) + 1, updated_at: new Date().toISOString(), ...(ttl ? { expires_at: Date.now() + ttl * 1000 } : {}) };
    kv.set(key, e);
    return c.json({ key, value, version: e.version, created: !prev }, prev ? 200 : 201);
  });
  app.delete("/kv/:key", (c) => {
    const key = kvKey(c);
    const existed = liveKv(key) !== undefined;
    kv.delete(key);
    return c.json({ key, deleted: existed });
  });
  app.post("/kv/:key/increment", async (c) => {
    const key = kvKey(c);
    const by = optNum((await jsonBody(c)).by, "by") ?? 1;
    const prev = liveKv(key);
    const current = prev ? Number(prev.value) : 0;
    if (!Number.isFinite(current)) throw new DemoError(409, "NOT_A_NUMBER", `the value under ${JSON.stringify(key)} is not a number`);
    const value = String(tidy(current + by));
    kv.set(key, { value, version: (prev?.version ?? 0) + 1, updated_at: new Date().toISOString(), ...(prev?.expires_at ? { expires_at: prev.expires_at } : {}) });
    return c.json({ key, value: Number(value), version: (prev?.version ?? 0) + 1 });
  });

  // randomness
  app.get("/random/uuid", (c) => c.json({ uuids: Array.from({ length: optInt(c.req.query("count"), "count", 1, 100, 1) }, () => randomUUID()) }));
  app.get("/random/integer", (c) => {
    const min = optInt(c.req.query("min"), "min", -1e12, 1e12, 1);
    const max = optInt(c.req.query("max"), "max", -1e12, 1e12, 100);
    if (max < min) throw bad("`max` must be at least `min`");
    const count = optInt(c.req.query("count"), "count", 1, 1000, 1);
    // randomInt's range is limited to 2^48; larger spans fall back to scaled bytes.
    const span = max - min + 1;
    const one = () => (span <= 2 ** 48 ? min + randomInt(span) : min + Math.floor((randomBytes(6).readUIntBE(0, 6) / 2 ** 48) * span));
    return c.json({ min, max, values: Array.from({ length: count }, one) });
  });
  app.get("/random/password", (c) => {
    const length = optInt(c.req.query("length"), "length", 8, 128, 20);
    const symbols = bool(c.req.query("symbols"), true);
    const sets = [PASSWORD_SETS.lower, PASSWORD_SETS.upper, PASSWORD_SETS.digits, ...(symbols ? [PASSWORD_SETS.symbols] : [])];
    const all = sets.join("");
    // One character from each set, then the rest from all of them, shuffled.
    const chars = [...sets.map((s) => s[randomInt(s.length)]!), ...Array.from({ length: length - sets.length }, () => all[randomInt(all.length)]!)];
    return c.json({ length, password: shuffle(chars).join("") });
  });
  app.post("/random/choice", async (c) => {
    const b = await jsonBody(c);
    const items = list(b.items, "items");
    if (items.length === 0) throw bad("`items` is empty");
    const count = optInt(b.count, "count", 1, items.length, 1);
    return c.json({ choices: shuffle(items).slice(0, count) });
  });
  app.post("/random/shuffle", async (c) => c.json({ items: shuffle(list((await jsonBody(c)).items, "items")) }));
  app.get("/random/dice", (c) => {
    const notation = (optStr(c.req.query("notation"), "notation") ?? "1d6").trim().toLowerCase();
    // A `+` left unescaped in a query string arrives as a space: read a space before the modifier as `+`.
    const m = /^(\d*)d(\d+)\s*(?:([+\- ])\s*(\d+))?$/.exec(notation);
    if (!m) throw bad("`notation` must look like 2d6, d20 or 3d8+2");
    const dice = m[1] ? Number(m[1]) : 1;
    const sides = Number(m[2]);
    const modifier = m[4] ? (m[3] === "-" ? -1 : 1) * Number(m[4]) : 0;
    if (dice < 1 || dice > 100 || sides < 2 || sides > 1000) throw bad("roll 1-100 dice of 2-1000 sides");
    const rolls = Array.from({ length: dice }, () => 1 + randomInt(sides));
    return c.json({ notation, rolls, modifier, total: rolls.reduce((a, b) => a + b, 0) + modifier });
  });

  // diagnostics: for testing gateways and clients
  app.get("/health", (c) => c.json({ ok: true, uptime_seconds: Math.floor((Date.now() - started) / 1000), notes: notes.size, keys: kv.size }));
  app.all("/echo", async (c) => {
    const text = await c.req.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      // not JSON: echoed as text
    }
    // Header names only: values may carry credentials.
    return c.json({ method: c.req.method, path: c.req.path, query: c.req.query(), header_names: Object.keys(c.req.header()).sort(), body });
  });
  app.get("/slow", async (c) => {
    const ms = optInt(c.req.query("ms"), "ms", 0, MAX_SLOW_MS, 1000);
    await new Promise<void>((resolve) => {
      const t = setTimeout(() => { timers.delete(t); resolve(); }, ms);
      timers.add(t);
    });
    return c.json({ waited_ms: ms });
  });
  app.get("/fail", (c) => {
    const status = optInt(c.req.query("status"), "status", 400, 599, 500);
    const message = optStr(c.req.query("message"), "message") ?? "failure requested by /fail";
    return c.json({ error: { code: "REQUESTED_FAILURE", message } }, status as 500);
  });
  app.get("/whoami", (c) => {
    requireAuth(c);
    return c.json({ authenticated: true, scheme: "bearer" });
  });
  app.get("/malformed", (c) => c.body("this is not JSON {", 200, { "content-type": "application/json" }));

  return app;
}

/** Start the demo service on loopback; `close()` stops it, pending slow requests included. */
export async function startDemoService(opts: DemoServiceOptions = {}): Promise<DemoService> {
  const token = opts.token ?? randomBytes(24).toString("hex");
  const host = opts.host ?? "127.0.0.1";
  const timers = new Set<NodeJS.Timeout>();
  const app = createDemoApp(token, timers);
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const s = serve({ fetch: app.fetch, port: opts.port ?? 0, hostname: host }, () => resolve(s));
    s.once("error", reject);
  });
  const { port } = server.address() as AddressInfo;
  const urlHost = host.includes(":") ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${port}`,
    token,
    close: () =>
      new Promise<void>((resolve, reject) => {
        for (const t of timers) clearTimeout(t);
        timers.clear();
        server.close((err) => (err ? reject(err) : resolve()));
        if ("closeAllConnections" in server) server.closeAllConnections();
      }),
  };
}
