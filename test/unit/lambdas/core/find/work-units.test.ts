// A cost regression fails here without timing anything: find's work units over a fixed request set
// (work-units.ts) against the committed baseline (work-baseline.json), each kind within its margin.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { newWork, type WorkUnits, workRegressions } from "../../../../../lambdas/core/find/work.js";
import { EveryTouched, measureWork } from "./work-units.js";

const baseline = JSON.parse(readFileSync(join(import.meta.dirname, "work-baseline.json"), "utf8")) as { margin: number; units: WorkUnits };

describe("find's work units", () => {
  it("name each kind of work that grew beyond the margin, and only those", () => {
    const base = { ...newWork(), postings: 1000, scored: 100, judged: 0 };
    expect(workRegressions({ ...base, postings: 1100, scored: 111 }, base, 0.1)).toEqual(["scored: 111 against 100 (+11%)"]);
    expect(workRegressions({ ...base, judged: 1 }, base, 0.1)).toEqual(["judged: 1 against 0 (+∞%)"]);
    expect(workRegressions({ ...base, postings: 10 }, base, 0.1)).toEqual([]);
  });

  it("stay within the baseline's margin over the example registry's requests", async () => {
    const now = await measureWork();
    expect(workRegressions(now, baseline.units, baseline.margin)).toEqual([]);
    // Every kind is exercised by the set, so each one can fail.
    for (const [k, v] of Object.entries(now)) expect(v, k).toBeGreaterThan(0);
  });

  it("catch a deliberately doubled rerank", async () => {
    const doubled = await measureWork({ rerankPasses: 2 });
    expect(workRegressions(doubled, baseline.units, baseline.margin)).toEqual(expect.arrayContaining([expect.stringMatching(/^rerankPasses: /)]));
  });

  it("catch a retrieve that hands every touched tool to the later stages", async () => {
    const every = await measureWork({ retriever: EveryTouched });
    expect(workRegressions(every, baseline.units, baseline.margin)).toEqual(expect.arrayContaining([expect.stringMatching(/^ranked: /)]));
  });
});
