// text: case, slugs, statistics, reversing, replacing, extracting, Base64, truncation, hashes, diffs.
import { createHash } from "node:crypto";
import type { Hono } from "hono";
import { bad, bool, DemoError, int, jsonBody, oneOf, optInt, optStr, str } from "./common.js";

const words = (s: string) => s.match(/[\p{L}\p{N}]+(?:['’][\p{L}]+)*/gu) ?? [];
const CASES = ["upper", "lower", "title", "sentence", "camel", "pascal", "snake", "kebab", "constant"] as const;

function changeCase(text: string, to: (typeof CASES)[number]): string {
  const w = words(text.replace(/([a-z0-9])([A-Z])/g, "$1 $2"));
  const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1).toLowerCase();
  switch (to) {
    case "upper":
      return text.toUpperCase();
    case "lower":
      return text.toLowerCase();
    case "title":
      return text.toLowerCase().replace(/(^|[\s\-([{"'])(\p{L})/gu, (_m, a: string, b: string) => a + b.toUpperCase());
    case "sentence":
      return text.toLowerCase().replace(/(^\s*|[.!?]\s+)(\p{L})/gu, (_m, a: string, b: string) => a + b.toUpperCase());
    case "camel":
      return w.map((x, i) => (i === 0 ? x.toLowerCase() : cap(x))).join("");
    case "pascal":
      return w.map(cap).join("");
    case "snake":
      return w.map((x) => x.toLowerCase()).join("_");
    case "kebab":
      return w.map((x) => x.toLowerCase()).join("-");
    case "constant":
      return w.map((x) => x.toUpperCase()).join("_");
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
    for (let j = y.length - 1; j >= 0; j--) dp[i]![j] = x[i] === y[j] ? dp[i + 1]![j + 1]! + 1 : Math.max(dp[i + 1]![j]!, dp[i]![j + 1]!);
  const lines: string[] = [];
  let i = 0;
  let j = 0;
  let added = 0;
  let removed = 0;
  while (i < x.length || j < y.length) {
    if (i < x.length && j < y.length && x[i] === y[j]) {
      lines.push(`  ${x[i]}`);
      i++;
      j++;
    } else if (j < y.length && (i === x.length || dp[i]![j + 1]! >= dp[i + 1]![j]!)) {
      lines.push(`+ ${y[j]}`);
      j++;
      added++;
    } else {
      lines.push(`- ${x[i]}`);
      i++;
      removed++;
    }
  }
  return { identical: added === 0 && removed === 0, added, removed, diff: lines.join("\n") };
}

export function textRoutes(app: Hono): void {
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
    const out =
      by === "characters" ? [...text].reverse().join("") : by === "words" ? text.split(/(\s+)/).reverse().join("") : text.split("\n").reverse().join("\n");
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
    const out = text.replace(re, () => {
      count++;
      return replacement;
    });
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
}
