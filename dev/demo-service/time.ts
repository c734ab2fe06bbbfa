// time: the current time in a zone, conversions between zones, differences, calendar arithmetic.
import type { Hono } from "hono";
import { bad, num, oneOf, optStr, str, tidy } from "./common.js";

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
  for (const [unit, size] of [
    ["d", 86_400],
    ["h", 3600],
    ["m", 60],
    ["s", 1],
  ] as const) {
    const q = Math.floor(rest / size);
    rest -= q * size;
    if (q > 0) out.push(`${q}${unit}`);
  }
  return sign + (out.length ? out.join(" ") : "0s");
}

export function timeRoutes(app: Hono): void {
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
      start: new Date(start).toISOString(),
      end: new Date(end).toISOString(),
      milliseconds: ms,
      seconds: ms / 1000,
      minutes: tidy(ms / 60_000),
      hours: tidy(ms / 3_600_000),
      days: tidy(ms / 86_400_000),
      weeks: tidy(ms / 604_800_000),
      human: humanDuration(ms),
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
}
