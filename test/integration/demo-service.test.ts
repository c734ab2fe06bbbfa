// The demo service behind the example http families, through a real listening socket on loopback.
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDemoService, type DemoService } from "../../dev/demo-service/index.js";

const TOKEN = "test-token-0123456789";
let svc: DemoService;

type Json = Record<string, unknown> & { error?: { code: string; message: string } };

async function req(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; json: Json }> {
  const res = await fetch(svc.url + path, {
    method,
    headers: { ...(body !== undefined ? { "content-type": "application/json" } : {}), ...headers },
    ...(body !== undefined ? { body: typeof body === "string" ? body : JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, json: (text ? JSON.parse(text) : {}) as Json };
}
const get = (path: string, headers?: Record<string, string>) => req("GET", path, undefined, headers);
const post = (path: string, body: unknown) => req("POST", path, body);
const auth = { authorization: `Bearer ${TOKEN}` };

beforeAll(async () => {
  svc = await startDemoService({ port: 0, token: TOKEN });
});
afterAll(async () => {
  await svc.close();
});

describe("startDemoService", () => {
  it("binds loopback on a random port and generates a token when none is given", async () => {
    expect(svc.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const other = await startDemoService();
    try {
      expect(other.token).toMatch(/^[0-9a-f]{48}$/);
      expect(other.url).not.toBe(svc.url);
      expect((await fetch(`${other.url}/health`)).status).toBe(200);
    } finally {
      await other.close();
    }
  });

  it("close() returns while a slow request is still waiting", async () => {
    const other = await startDemoService();
    const pending = fetch(`${other.url}/slow?ms=60000`).then(
      () => "answered",
      () => "cut",
    );
    await new Promise((r) => setTimeout(r, 50));
    await other.close();
    expect(await pending).toBe("cut");
  });
});

describe("notes", () => {
  it("creates, lists, searches, reads, updates, appends, tags and deletes a note", async () => {
    const created = await post("/notes", { title: "Groceries", body: "milk", tags: ["Home", "shopping"] });
    expect(created.status).toBe(201);
    const id = created.json.id as string;
    expect(id).toMatch(/^n\d+$/);
    expect(created.json).toMatchObject({ title: "Groceries", body: "milk", tags: ["home", "shopping"] });

    await post("/notes", { title: "Work plan", tags: "work" });
    const list = await get("/notes?tag=home");
    expect(list.json.count).toBe(1);
    expect((list.json.notes as Json[])[0]!.id).toBe(id);
    expect((await get("/notes?limit=1")).json.notes).toHaveLength(1);

    const found = await get("/notes/search?q=MILK%20groceries");
    expect((found.json.notes as Json[]).map((n) => n.id)).toEqual([id]);
    expect((await get("/notes/search?q=absent")).json.count).toBe(0);

    expect((await get(`/notes/${id}`)).json.title).toBe("Groceries");
    const updated = await req("PATCH", `/notes/${id}`, { title: "Shopping", body: "" });
    expect(updated.json).toMatchObject({ title: "Shopping", body: "milk" });
    const appended = await req("PATCH", `/notes/${id}`, { append: "eggs" });
    expect(appended.json.body).toBe("milk\neggs");
    const tagged = await post(`/notes/${id}/tags`, { tags: ["urgent", "home"] });
    expect(tagged.json.tags).toEqual(["home", "shopping", "urgent"]);
    expect((await req("PATCH", `/notes/${id}`, {})).status).toBe(400);

    expect((await req("DELETE", `/notes/${id}`)).status).toBe(401);
    expect((await req("DELETE", `/notes/${id}`, undefined, { authorization: "Bearer wrong" })).status).toBe(401);
    const deleted = await req("DELETE", `/notes/${id}`, undefined, auth);
    expect(deleted.json).toEqual({ deleted: true, id, title: "Shopping" });
    const gone = await get(`/notes/${id}`);
    expect(gone.status).toBe(404);
    expect(gone.json.error?.code).toBe("NOT_FOUND");
  });

  it("refuses a note without a title and a body that is not JSON", async () => {
    const missing = await post("/notes", { body: "x" });
    expect(missing.status).toBe(400);
    expect(missing.json.error?.message).toContain("title");
    const broken = await req("POST", "/notes", "{not json");
    expect(broken.status).toBe(400);
    expect(broken.json.error?.message).toContain("not valid JSON");
  });
});

describe("text", () => {
  it.each([
    ["upper", "Hello world", "HELLO WORLD"],
    ["title", "hello big world", "Hello Big World"],
    ["sentence", "HELLO. WORLD", "Hello. World"],
    ["camel", "hello big world", "helloBigWorld"],
    ["pascal", "hello big world", "HelloBigWorld"],
    ["snake", "helloBig World", "hello_big_world"],
    ["kebab", "Hello Big World", "hello-big-world"],
    ["constant", "hello world", "HELLO_WORLD"],
  ])("changes case to %s", async (to, text, expected) => {
    expect((await post("/text/case", { text, to })).json.text).toBe(expected);
  });

  it("slugifies, counts, reverses and replaces", async () => {
    expect((await post("/text/slugify", { text: "Crème brûlée: a recipe!" })).json.slug).toBe("creme-brulee-a-recipe");
    expect((await post("/text/slugify", { text: "one two three", max_length: "7" })).json.slug).toBe("one-two");
    expect((await post("/text/stats", { text: "One two. Three four five!\n\nSix." })).json).toMatchObject({
      words: 6,
      sentences: 3,
      lines: 3,
      paragraphs: 2,
    });
    expect((await post("/text/reverse", { text: "stressed" })).json.text).toBe("desserts");
    expect((await post("/text/reverse", { text: "a b c", by: "words" })).json.text).toBe("c b a");
    const replaced = await post("/text/replace", { text: "Fish, fish (fish).", find: "fish", replace: "bird", ignore_case: "true" });
    expect(replaced.json).toEqual({ replacements: 3, text: "bird, bird (bird)." });
    expect((await post("/text/replace", { text: "a.b.c", find: ".", replace: "" })).json.text).toBe("abc");
  });

  it("extracts, encodes, truncates, hashes and diffs", async () => {
    const text = "Mail ada@example.com, see https://example.com/docs #launch @bob or 42.5";
    expect((await post("/text/extract", { text, kind: "emails" })).json.matches).toEqual(["ada@example.com"]);
    expect((await post("/text/extract", { text, kind: "urls" })).json.matches).toEqual(["https://example.com/docs"]);
    expect((await post("/text/extract", { text, kind: "hashtags" })).json.matches).toEqual(["#launch"]);
    expect((await post("/text/extract", { text, kind: "mentions" })).json.matches).toEqual(["@bob"]);
    expect((await post("/text/extract", { text: "a", kind: "colors" })).status).toBe(400);

    expect((await post("/text/base64", { text: "héllo", direction: "encode" })).json.text).toBe("aMOpbGxv");
    expect((await post("/text/base64", { text: "aMOpbGxv", direction: "decode" })).json.text).toBe("héllo");
    expect((await post("/text/base64", { text: "not base64!", direction: "decode" })).status).toBe(400);

    const cut = await post("/text/truncate", { text: "The quick brown fox jumps over the lazy dog", max_length: 20 });
    expect(cut.json).toEqual({ truncated: true, text: "The quick brown…" });
    expect((await post("/text/truncate", { text: "short", max_length: 20 })).json.truncated).toBe(false);

    const sha = createHash("sha256").update("hello").digest("hex");
    expect((await post("/text/hash", { text: "hello" })).json).toEqual({ algorithm: "sha256", hex: sha });
    expect((await post("/text/hash", { text: "hello", algorithm: "md5" })).json.hex).toBe("5d41402abc4b2a76b9719d911017c592");

    const diff = await post("/text/diff", { before: "a\nb\nc", after: "a\nc\nd" });
    expect(diff.json).toEqual({ identical: false, added: 1, removed: 1, diff: "  a\n- b\n  c\n+ d" });
  });
});

describe("time", () => {
  it("tells the time in a zone given by IANA name or by city", async () => {
    const tokyo = await get("/time/now?zone=Asia/Tokyo");
    expect(tokyo.json).toMatchObject({ zone: "Asia/Tokyo", utc_offset: "+09:00" });
    expect(tokyo.json.iso).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+09:00$/);
    expect(Math.abs((tokyo.json.unix as number) - Date.now() / 1000)).toBeLessThan(120);
    expect((await get("/time/now?zone=new%20york")).json.zone).toBe("America/New_York");
    expect((await get("/time/now")).json.zone).toBe("UTC");
    const bad = await get("/time/now?zone=Mars/Olympus");
    expect(bad.status).toBe(400);
    expect(bad.json.error?.message).toContain("IANA");
  });

  it("converts wall-clock times between zones, across daylight saving", async () => {
    const winter = await get("/time/convert?time=2026-01-15T09:00&from=Europe/London&to=America/New_York");
    expect((winter.json.to as Json).iso).toBe("2026-01-15T04:00:00-05:00");
    const summer = await get("/time/convert?time=2026-07-15T09:00&from=Europe/London&to=Asia/Tokyo");
    expect((summer.json.from as Json).utc).toBe("2026-07-15T08:00:00.000Z");
    expect((summer.json.to as Json).iso).toBe("2026-07-15T17:00:00+09:00");
    const unix = await get("/time/convert?time=0000000000&to=UTC");
    expect((unix.json.to as Json).iso).toBe("1970-01-01T00:00:00+00:00");
  });

  it("measures durations, adds calendar units, lists zones and describes dates", async () => {
    const diff = await get("/time/diff?start=2026-01-01&end=2026-03-01T12:00");
    expect(diff.json).toMatchObject({ days: 59.5, hours: 1428, human: "59d 12h" });
    const added = await get("/time/add?time=2026-01-31T10:00&amount=1&unit=months&zone=Europe/Paris");
    expect((added.json.result as Json).iso).toBe("2026-02-28T10:00:00+01:00");
    const back = await get("/time/add?time=2026-03-29T12:00:00Z&amount=-36&unit=hour");
    expect((back.json.result as Json).utc).toBe("2026-03-28T00:00:00.000Z");
    expect((await get("/time/add?amount=1.5&unit=month")).status).toBe(400);

    const zones = await get("/time/zones?search=tokyo");
    expect(zones.json.zones).toEqual([{ zone: "Asia/Tokyo", utc_offset: "+09:00" }]);
    expect((await get("/time/zones")).json.count as number).toBeGreaterThan(300);

    const cal = await get("/time/calendar?date=2024-02-29");
    expect(cal.json).toEqual({
      date: "2024-02-29",
      weekday: "Thursday",
      day_of_year: 60,
      iso_week: 9,
      is_weekend: false,
      is_leap_year: true,
      days_in_month: 29,
    });
    expect((await get("/time/calendar?date=2026-01-01")).json.iso_week).toBe(1);
    expect((await get("/time/calendar?date=tomorrow")).status).toBe(400);
  });
});

describe("convert", () => {
  it("converts temperatures and units by symbol or name", async () => {
    expect((await get("/convert/temperature?value=100&from=C&to=F")).json.result).toBe(212);
    expect((await get("/convert/temperature?value=-40&from=fahrenheit&to=celsius")).json.result).toBe(-40);
    expect((await get("/convert/temperature?value=0&from=K&to=C")).json.result).toBe(-273.15);
    expect((await get("/convert/temperature?value=-1&from=K&to=C")).status).toBe(400);
    expect((await get("/convert/temperature?value=1&from=km&to=C")).status).toBe(400);

    expect((await get("/convert/units?value=26.2&from=miles&to=km")).json.result).toBeCloseTo(42.1648, 4);
    expect((await get("/convert/units?value=1&from=GiB&to=MB")).json.result).toBe(1073.741824);
    expect((await get("/convert/units?value=10&from=lb&to=kg")).json).toMatchObject({ category: "mass", result: 4.5359237 });
    const mismatch = await get("/convert/units?value=5&from=km&to=kg");
    expect(mismatch.status).toBe(400);
    expect(mismatch.json.error?.message).toBe("cannot convert length (km) to mass (kg)");
    expect((await get("/convert/units?value=abc&from=km&to=m")).status).toBe(400);

    const units = await get("/convert/units/list?category=speed");
    expect((units.json.categories as Json[])[0]!.category).toBe("speed");
    expect((await get("/convert/units/list")).json.categories).toHaveLength(8);
  });

  it("converts number bases and Roman numerals", async () => {
    expect((await get("/convert/base?value=255&to=2")).json.result).toBe("11111111");
    expect((await get("/convert/base?value=0xff&from=16&to=10")).json.result).toBe("255");
    expect((await get("/convert/base?value=12345678901234567890&from=10&to=16")).json.result).toBe("ab54a98ceb1f0ad2");
    expect((await get("/convert/base?value=129&from=8")).status).toBe(400);
    expect((await get("/convert/roman?value=1994")).json.roman).toBe("MCMXCIV");
    expect((await get("/convert/roman?value=mcmxciv")).json.number).toBe(1994);
    expect((await get("/convert/roman?value=IIII")).status).toBe(400);
    expect((await get("/convert/roman?value=4000")).status).toBe(400);
  });
});

describe("math", () => {
  it.each([
    ["(3 + 4) * 2 ^ 3 / sqrt(16)", 14],
    ["-2 ^ 2", -4],
    ["2 ^ 3 ^ 2", 512],
    ["max(1, 7, 3) % 4", 3],
    ["0.1 + 0.2", 0.3],
    ["round(pi * 100) / 100", 3.14],
    ["log(1000) + ln(e)", 4],
  ])("evaluates %s", async (expression, result) => {
    expect((await post("/math/evaluate", { expression })).json).toEqual({ expression, result });
  });

  it("refuses what is not arithmetic", async () => {
    expect((await post("/math/evaluate", { expression: "1/0" })).status).toBe(422);
    expect((await post("/math/evaluate", { expression: "process.exit(1)" })).status).toBe(400);
    expect((await post("/math/evaluate", { expression: "(1 + 2" })).json.error?.message).toContain("expected `)`");
  });

  it("computes statistics, percentages, factors and divisors", async () => {
    const stats = await post("/math/stats", { values: [2, 4, 4, 4, 5, 5, 7, 9] });
    expect(stats.json).toMatchObject({ count: 8, sum: 40, mean: 5, median: 4.5, mode: [4], min: 2, max: 9, range: 7 });
    expect(stats.json.stdev).toBeCloseTo(2.138, 3);
    expect((await post("/math/stats", { values: "1, 2, 3" })).json.mean).toBe(2);
    expect((await post("/math/stats", { values: [] })).status).toBe(400);
    expect((await get("/math/percentage?value=30&of=120")).json.percent).toBe(25);
    expect((await get("/math/percentage?value=1&of=0")).status).toBe(422);
    expect((await get("/math/percent_change?from=80&to=100")).json).toMatchObject({ change: 20, percent_change: 25 });
    expect((await get("/math/factorize?n=360")).json).toEqual({ n: 360, factors: [2, 2, 2, 3, 3, 5], is_prime: false });
    expect((await get("/math/factorize?n=97")).json.is_prime).toBe(true);
    expect((await post("/math/gcd", { values: [12, 18, 30] })).json).toEqual({ values: [12, 18, 30], gcd: 6, lcm: 180 });
    expect((await post("/math/gcd", { values: [12] })).status).toBe(400);
  });
});

describe("kv", () => {
  it("sets, reads, lists, increments, expires and deletes values", async () => {
    const first = await req("PUT", "/kv/settings:theme", { value: "dark" });
    expect(first.status).toBe(201);
    expect(first.json).toEqual({ key: "settings:theme", value: "dark", version: 1, created: true });
    const second = await req("PUT", "/kv/settings:theme", { value: "light" });
    expect(second.status).toBe(200);
    expect(second.json.version).toBe(2);
    expect((await get("/kv/settings:theme")).json).toMatchObject({ value: "light", version: 2 });

    expect((await post("/kv/visits/increment", {})).json.value).toBe(1);
    expect((await post("/kv/visits/increment", { by: "-3" })).json.value).toBe(-2);
    expect((await post("/kv/settings:theme/increment", {})).status).toBe(409);
    expect((await get("/kv?prefix=settings")).json.keys).toEqual(["settings:theme"]);

    await req("PUT", "/kv/short-lived", { value: "x", ttl_seconds: 0.05 });
    await new Promise((r) => setTimeout(r, 120));
    expect((await get("/kv/short-lived")).status).toBe(404);

    expect((await req("DELETE", "/kv/settings:theme")).json).toEqual({ key: "settings:theme", deleted: true });
    expect((await req("DELETE", "/kv/settings:theme")).json.deleted).toBe(false);
    expect((await get("/kv/settings:theme")).status).toBe(404);
    expect((await get("/kv/.hidden")).status).toBe(400);
    expect((await req("PUT", "/kv/k", {})).status).toBe(400);
  });
});

describe("random", () => {
  it("draws UUIDs, integers in range, passwords, choices, shuffles and dice", async () => {
    const uuids = (await get("/random/uuid?count=3")).json.uuids as string[];
    expect(new Set(uuids).size).toBe(3);
    for (const u of uuids) expect(u).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);

    const ints = (await get("/random/integer?min=1&max=6&count=200")).json.values as number[];
    expect(ints).toHaveLength(200);
    expect(ints.every((n) => Number.isInteger(n) && n >= 1 && n <= 6)).toBe(true);
    expect((await get("/random/integer?min=5&max=1")).status).toBe(400);

    const pw = (await get("/random/password?length=16&symbols=false")).json.password as string;
    expect(pw).toHaveLength(16);
    expect(pw).toMatch(/[a-z]/);
    expect(pw).toMatch(/[A-Z]/);
    expect(pw).toMatch(/[0-9]/);
    expect(pw).toMatch(/^[A-Za-z0-9]+$/);

    const items = ["a", "b", "c", "d"];
    const picked = (await post("/random/choice", { items, count: 2 })).json.choices as string[];
    expect(picked).toHaveLength(2);
    expect(new Set(picked).size).toBe(2);
    expect(picked.every((p) => items.includes(p))).toBe(true);
    expect(((await post("/random/shuffle", { items })).json.items as string[]).sort()).toEqual(items);

    const roll = await get("/random/dice?notation=3d6%2B2");
    const rolls = roll.json.rolls as number[];
    expect(rolls).toHaveLength(3);
    expect(roll.json.total).toBe(rolls.reduce((a, b) => a + b, 0) + 2);
    expect((await get("/random/dice?notation=3d6+2")).json.modifier).toBe(2);
    expect((await get("/random/dice?notation=banana")).status).toBe(400);
  });
});

describe("diagnostics", () => {
  it("reports health, echoes without header values, waits, fails on demand and checks the token", async () => {
    expect((await get("/health")).json.ok).toBe(true);
    const echo = await req("POST", "/echo?tag=x", { message: "hi" }, auth);
    expect(echo.json).toMatchObject({ method: "POST", path: "/echo", query: { tag: "x" }, body: { message: "hi" } });
    expect(echo.json.header_names).toContain("authorization");
    expect(JSON.stringify(echo.json)).not.toContain(TOKEN);

    expect((await get("/slow?ms=20")).json).toEqual({ waited_ms: 20 });
    expect((await get("/slow?ms=600000")).status).toBe(400);

    const fail = await get("/fail?status=503&message=down%20for%20maintenance");
    expect(fail.status).toBe(503);
    expect(fail.json.error).toEqual({ code: "REQUESTED_FAILURE", message: "down for maintenance" });
    expect((await get("/fail")).status).toBe(500);

    expect((await get("/whoami")).status).toBe(401);
    expect((await get("/whoami", auth)).json).toEqual({ authenticated: true, scheme: "bearer" });

    const malformed = await fetch(`${svc.url}/malformed`);
    expect(malformed.headers.get("content-type")).toContain("application/json");
    expect(await malformed.text()).toBe("this is not JSON {");

    const index = await get("/");
    expect(index.json.service).toBe("toolbelt-demo");
    const missing = await get("/nope");
    expect(missing.status).toBe(404);
    expect(missing.json.error?.message).toBe("no route GET /nope");
  });

  it("refuses a body over 1 MB with 413", async () => {
    const big = await post("/text/stats", { text: "x".repeat(1024 * 1024 + 10) });
    expect(big.status).toBe(413);
  });
});
