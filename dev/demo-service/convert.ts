// convert: units of measure, temperatures, number bases and Roman numerals.
import type { Hono } from "hono";
import { bad, int, num, optInt, optStr, str, tidy } from "./common.js";

type Unit = { category: string; symbol: string; factor: number; names: string[] };
const UNIT_TABLE: [string, [string, number, string[]][]][] = [
  [
    "length",
    [
      ["mm", 0.001, ["millimeter", "millimeters", "millimetre", "millimetres"]],
      ["cm", 0.01, ["centimeter", "centimeters", "centimetre", "centimetres"]],
      ["m", 1, ["meter", "meters", "metre", "metres"]],
      ["km", 1000, ["kilometer", "kilometers", "kilometre", "kilometres"]],
      ["in", 0.0254, ["inch", "inches"]],
      ["ft", 0.3048, ["foot", "feet"]],
      ["yd", 0.9144, ["yard", "yards"]],
      ["mi", 1609.344, ["mile", "miles"]],
      ["nmi", 1852, ["nautical mile", "nautical miles"]],
    ],
  ],
  [
    "mass",
    [
      ["mg", 1e-6, ["milligram", "milligrams"]],
      ["g", 0.001, ["gram", "grams"]],
      ["kg", 1, ["kilogram", "kilograms", "kilo", "kilos"]],
      ["t", 1000, ["tonne", "tonnes", "metric ton"]],
      ["oz", 0.028349523125, ["ounce", "ounces"]],
      ["lb", 0.45359237, ["lbs", "pound", "pounds"]],
      ["st", 6.35029318, ["stone", "stones"]],
    ],
  ],
  [
    "volume",
    [
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
    ],
  ],
  [
    "area",
    [
      ["cm2", 1e-4, ["square centimeter", "square centimeters"]],
      ["m2", 1, ["square meter", "square meters", "sqm"]],
      ["km2", 1e6, ["square kilometer", "square kilometers"]],
      ["ha", 1e4, ["hectare", "hectares"]],
      ["acre", 4046.8564224, ["acres"]],
      ["ft2", 0.09290304, ["square foot", "square feet", "sqft"]],
      ["mi2", 2589988.110336, ["square mile", "square miles"]],
    ],
  ],
  [
    "speed",
    [
      ["m/s", 1, ["meters per second", "mps"]],
      ["km/h", 1 / 3.6, ["kph", "kmh", "kilometers per hour"]],
      ["mph", 0.44704, ["miles per hour"]],
      ["kn", 0.514444, ["knot", "knots"]],
      ["ft/s", 0.3048, ["feet per second", "fps"]],
    ],
  ],
  [
    "data",
    [
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
    ],
  ],
  [
    "time",
    [
      ["ms", 0.001, ["millisecond", "milliseconds"]],
      ["s", 1, ["sec", "second", "seconds"]],
      ["min", 60, ["minute", "minutes"]],
      ["h", 3600, ["hr", "hour", "hours"]],
      ["day", 86_400, ["d", "days"]],
      ["week", 604_800, ["wk", "weeks"]],
      ["year", 31_557_600, ["yr", "years"]],
    ],
  ],
  [
    "temperature",
    [
      ["c", NaN, ["°c", "celsius", "centigrade"]],
      ["f", NaN, ["°f", "fahrenheit"]],
      ["k", NaN, ["kelvin"]],
    ],
  ],
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

function convertUnits(value: number, fromRaw: string, toRaw: string) {
  const from = unitOf(fromRaw, "from");
  const to = unitOf(toRaw, "to");
  if (from.category !== to.category) throw bad(`cannot convert ${from.category} (${from.symbol}) to ${to.category} (${to.symbol})`);
  const result = from.category === "temperature" ? fromKelvin(toKelvin(value, from.symbol), to.symbol) : (value * from.factor) / to.factor;
  if (from.category === "temperature" && toKelvin(value, from.symbol) < 0) throw bad("the temperature is below absolute zero");
  return { value, from: from.symbol, to: to.symbol, category: from.category, result: tidy(result) };
}

const ROMAN: [number, string][] = [
  [1000, "M"],
  [900, "CM"],
  [500, "D"],
  [400, "CD"],
  [100, "C"],
  [90, "XC"],
  [50, "L"],
  [40, "XL"],
  [10, "X"],
  [9, "IX"],
  [5, "V"],
  [4, "IV"],
  [1, "I"],
];
function toRoman(n: number): string {
  let out = "";
  for (const [v, s] of ROMAN)
    while (n >= v) {
      out += s;
      n -= v;
    }
  return out;
}
function fromRoman(s: string): number {
  const up = s.toUpperCase();
  if (!/^[MDCLXVI]+$/.test(up)) throw bad(`${JSON.stringify(s)} is neither a number nor a Roman numeral`);
  let n = 0;
  let i = 0;
  for (const [v, sym] of ROMAN)
    while (up.startsWith(sym, i)) {
      n += v;
      i += sym.length;
    }
  if (i !== up.length || toRoman(n) !== up) throw bad(`${JSON.stringify(s)} is not a well-formed Roman numeral`);
  return n;
}

export function convertRoutes(app: Hono): void {
  app.get("/convert/units/list", (c) => {
    const category = optStr(c.req.query("category"), "category")?.toLowerCase();
    const out = UNIT_TABLE.filter(([cat]) => !category || cat === category).map(([cat, rows]) => ({
      category: cat,
      units: rows.map(([symbol, , names]) => ({ symbol, names })),
    }));
    if (out.length === 0) throw bad(`unknown category; known: ${UNIT_TABLE.map(([c2]) => c2).join(", ")}`);
    return c.json({ categories: out });
  });
  app.get("/convert/units", (c) => c.json(convertUnits(num(c.req.query("value"), "value"), str(c.req.query("from"), "from"), str(c.req.query("to"), "to"))));
  app.get("/convert/temperature", (c) => {
    const from = str(c.req.query("from"), "from");
    const to = str(c.req.query("to"), "to");
    if (unitOf(from, "from").category !== "temperature" || unitOf(to, "to").category !== "temperature")
      throw bad("temperature units are C, F or K (celsius, fahrenheit, kelvin)");
    return c.json(convertUnits(num(c.req.query("value"), "value"), from, to));
  });
  app.get("/convert/base", (c) => {
    const value = str(c.req.query("value"), "value")
      .trim()
      .toLowerCase()
      .replace(/^0[xbo]/, "");
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
}
