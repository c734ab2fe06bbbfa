// The cutter alone, on any text: parts join back into it, each fits the budget by the counter it was cut
// with, none splits a surrogate pair, and an answer that fits is passed through as it came.
import fc from "fast-check";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { describe, expect, it } from "vitest";
import { createResultBudget, estimateTokens, partEnd, type ContinuationStore, type StoredResult } from "../../../../lambdas/core/call/result-budget.js";

const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff;

function parts(text: string, budget: number, count: (s: string) => number): string[] {
  const out: string[] = [];
  for (let from = 0; from < text.length; ) {
    const to = partEnd(text, from, budget, count);
    expect(to).toBeGreaterThan(from);
    out.push(text.slice(from, to));
    from = to;
  }
  return out;
}

describe("partEnd", () => {
  it("cuts any text into parts that join back, fit the budget and keep surrogate pairs whole", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", minLength: 200, maxLength: 3000 }), fc.integer({ min: 20, max: 400 }), (text, budget) => {
        const cut = parts(text, budget, estimateTokens);
        expect(cut.join("")).toBe(text);
        for (const p of cut) {
          // A lone code unit costs at most 3 bytes: a part of one may exceed a tiny budget only by itself.
          if (p.length > 1) expect(estimateTokens(p)).toBeLessThanOrEqual(budget);
          if (p.length > 0 && p !== cut.at(-1)) expect(isHigh(p.charCodeAt(p.length - 1))).toBe(false);
        }
      }),
      { numRuns: 200 },
    );
  });

  it("with the exact counter, parts of JSON rows are near the budget, never over", () => {
    const text = JSON.stringify(Array.from({ length: 3000 }, (_, i) => ({ id: i, name: `row ${i}`, hex: (i * 2654435761).toString(16) })));
    const cut = parts(text, 2000, countTokens);
    expect(cut.join("")).toBe(text);
    const sizes = cut.map((p) => countTokens(p));
    expect(Math.max(...sizes)).toBeLessThanOrEqual(2000);
    expect(Math.min(...sizes.slice(0, -1))).toBeGreaterThan(1700);
  });
});

describe("createResultBudget", () => {
  const memory = (): ContinuationStore & { items: Map<string, StoredResult> } => {
    const items = new Map<string, StoredResult>();
    return { items, put: async (id, r) => void items.set(id, r), get: async (id) => items.get(id) };
  };
  const now = new Date("2026-12-02T08:00:00Z");

  it("passes an answer that fits, stores nothing", async () => {
    const store = memory();
    const budget = createResultBudget({ store, defaultBudget: 100 });
    const result = { rows: [1, 2, 3] };
    expect(await budget.cut(result, "t.x", undefined, "alice", now)).toEqual({ result });
    expect(await budget.cut("x".repeat(150), "t.x", undefined, "alice", now)).toEqual({ result: "x".repeat(150) });
    expect(store.items.size).toBe(0);
  });

  it("a string result is cut as text, a tool's own budget wins over the default", async () => {
    const store = memory();
    const budget = createResultBudget({ store, defaultBudget: 100_000 });
    const text = "word ".repeat(2000);
    const first = await budget.cut(text, "t.x", 300, "alice", now);
    expect(first.continuation).toMatchObject({ format: "text", from: 0, total_chars: text.length });
    let joined = first.result as string;
    let token = first.continuation!.token;
    while (token) {
      const next = await budget.next(token, "t.x", 300, "alice", now);
      joined += next.result as string;
      token = next.continuation.token;
    }
    expect(joined).toBe(text);
  });
});
