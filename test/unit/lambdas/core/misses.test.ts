// The find-miss log's core: what counts as a miss, how a hostile query is bounded, and that
// recording never makes find wait (an in-memory store: this is the core's unit test).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { FindResult } from "../../../../lambdas/contract/find.js";
import { cleanQuery, createFindMissLog, findMissOutcome, MAX_QUERY_CHARS, queryKey } from "../../../../lambdas/core/misses.js";
import type { Caller, Miss } from "../../../../lambdas/core/ports.js";

const caller = { principal: "alice" } as Caller;
const tool = (name: string, score: number) => ({ name, model_name: name.replace(".", "_"), family: name.split(".")[0]!, description: "", score });
const none: FindResult = { mode: "keyword", verdict: "none", tools: [] };
const weak: FindResult = { mode: "keyword", verdict: "match", tools: [tool("git.log", 0.3)] };
const good: FindResult = { mode: "keyword", verdict: "match", tools: [tool("git.log", 0.8)] };

describe("findMissOutcome", () => {
  it("is none for verdict none, low_score for a keyword best below the floor, nothing for a good match", () => {
    expect(findMissOutcome(none, 0.4)).toBe("none");
    expect(findMissOutcome(weak, 0.4)).toBe("low_score");
    expect(findMissOutcome(good, 0.4)).toBeUndefined();
    expect(findMissOutcome({ ...weak, mode: "decision" }, 0.4)).toBeUndefined();
  });
});

/** Queries made of what hurts: controls, bidi and zero-width characters, lone and paired surrogates, letters that lengthen when lowercased. */
const hostile = fc
  .array(fc.constantFrom("a", "Z", " ", "\t", "\n", "\u0000", "\u001b", "\u007f", "\u0085", "\u202e", "\u200b", "\ud800", "\udc00", "😀", "İ", "ß"), {
    maxLength: 600,
  })
  .map((parts) => parts.join(""));

describe("cleanQuery and queryKey", () => {
  it("fold case and whitespace, turn control characters into spaces and drop format characters", () => {
    expect(queryKey("  Book A\tTable\n\nfor  Two ")).toBe("book a table for two");
    expect(cleanQuery("red\u001b[31m alert\u0000")).toBe("red [31m alert");
    expect(cleanQuery("abc\u202edef\u200b")).toBe("abcdef");
    expect(cleanQuery("lone \ud800 surrogate")).toBe("lone \ufffd surrogate");
    expect(queryKey("İ".repeat(MAX_QUERY_CHARS)).length).toBe(MAX_QUERY_CHARS);
  });

  it("bound any query: at most MAX_QUERY_CHARS, no control or format characters, no lone surrogate, idempotent", () => {
    fc.assert(
      fc.property(hostile, (q) => {
        const key = queryKey(q);
        expect(key.length).toBeLessThanOrEqual(MAX_QUERY_CHARS);
        expect(key).not.toMatch(/[\p{Cc}\p{Cf}\p{Cs}]/u);
        expect(queryKey(key)).toBe(key);
      }),
      { numRuns: 200 },
    );
  });

  it("cuts a long query on a code point, not inside a surrogate pair", () => {
    const key = cleanQuery(`a${"😀".repeat(MAX_QUERY_CHARS)}`);
    expect(key).toBe(`a${"😀".repeat((MAX_QUERY_CHARS - 2) / 2)}`);
  });
});

describe("createFindMissLog", () => {
  const setup = (record: (m: Miss, times?: number) => Promise<void>, maxInFlight = 4, more: { now?: () => Date; perMinute?: number } = {}) => {
    const logs: { level: string; message: string; fields: Record<string, unknown> }[] = [];
    let lookups = 0;
    const log = createFindMissLog({
      store: { record },
      find: async () => {
        lookups++;
        return weak;
      },
      floor: 0.4,
      log: (level, message, fields) => logs.push({ level, message, fields }),
      now: () => new Date("2026-12-01T00:00:00Z"),
      maxInFlight,
      ...more,
    });
    return { log, logs, lookups: () => lookups };
  };

  it("records a miss answered none with the best tool found below min_score, and nothing for a good match", async () => {
    const recorded: Miss[] = [];
    const { log } = setup(async (m) => void recorded.push(m));
    log.observe({ query: "Show the  weather" }, none, caller);
    log.observe({ query: "git history" }, good, caller);
    await log.idle();
    expect(recorded).toEqual([
      { name: "Show the  weather", principal: "alice", at: "2026-12-01T00:00:00.000Z", outcome: "none", best_tool: "git.log", best_score: 0.3 },
    ]);
  });

  it("folds a burst of one query into one write per round trip: the count is kept, the latest miss's fields win, one look-up per write", async () => {
    const writes: [Miss, number | undefined][] = [];
    let release = () => {};
    const { log, lookups } = setup((m, times) => {
      writes.push([m, times]);
      return writes.length === 1 ? new Promise<void>((r) => (release = r)) : Promise.resolve();
    });
    log.observe({ query: "Order pizza" }, none, caller);
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    // 50 more while the first is being written (spellings differ, the key is the same).
    for (let i = 0; i < 50; i++) log.observe({ query: i % 2 ? "order  PIZZA" : "order pizza" }, none, { principal: `p${i}` } as Caller);
    release();
    await log.idle();
    expect(writes.map(([m, times]) => [m.name, m.principal, times])).toEqual([
      ["Order pizza", "alice", 1],
      ["order  PIZZA", "p49", 50],
    ]);
    expect(lookups()).toBe(2);
  });

  it("a store that never answers does not hold find: observe returns at once, misses of other queries past the in-flight bound are dropped and counted", async () => {
    const { log, logs } = setup(() => new Promise<void>(() => undefined), 4);
    for (let i = 0; i < 14; i++) log.observe({ query: `q${i}` }, none, caller);
    expect(logs.map((l) => [l.message, l.fields.dropped])).toEqual([
      ["find-miss log busy: misses dropped", 1],
      ["find-miss log busy: misses dropped", 10],
    ]);
  });

  it("any principal could have every distinct query stored: one principal's misses are limited per minute, another's and the next minute's are not", async () => {
    const recorded: Miss[] = [];
    let clock = Date.parse("2026-12-01T00:00:10Z");
    const { log, logs } = setup(async (m) => void recorded.push(m), 1000, { now: () => new Date(clock), perMinute: 5 });
    for (let i = 0; i < 100; i++) log.observe({ query: `flood ${i}` }, none, { principal: "mallory" } as Caller);
    log.observe({ query: "a real miss" }, none, caller);
    await log.idle();
    expect(recorded.filter((m) => m.principal === "mallory")).toHaveLength(5);
    expect(recorded.filter((m) => m.principal === "alice")).toHaveLength(1);
    expect(logs.map((l) => l.fields.limited)).toEqual([1, 10]);
    clock += 60_000;
    log.observe({ query: "flood next minute" }, none, { principal: "mallory" } as Caller);
    await log.idle();
    expect(recorded.at(-1)).toMatchObject({ name: "flood next minute", principal: "mallory" });
  });

  it("a store that fails is logged, never thrown", async () => {
    const { log, logs } = setup(async () => {
      throw new Error("table gone");
    });
    log.observe({ query: "nothing fits" }, none, caller);
    await log.idle();
    expect(logs).toMatchObject([{ level: "error", message: "could not record a find miss", fields: { query: "nothing fits" } }]);
  });
});
