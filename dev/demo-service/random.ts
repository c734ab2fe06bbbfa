// random: UUIDs, integers, passwords, choices, shuffles and dice.
import { randomBytes, randomInt, randomUUID } from "node:crypto";
import type { Hono } from "hono";
import { bad, bool, jsonBody, list, optInt, optStr } from "./common.js";

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

export function randomRoutes(app: Hono): void {
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
}
