// A cost regression fails here without timing anything: find's work units over a fixed request set
// (work-units.ts) against the committed baseline (work-baseline.json), each kind within its margin.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { newWork, type WorkUnits, workRegressions } from "../../../../../lambdas/core/find/work.js";
import { EveryTouched, measureWork } from "./work-units.js";

const baseline = JSON.parse(readFileSync(join(import.meta.dirname, "work-baseline.json"), "utf8")) as { margin: number; units: WorkUnits; github: WorkUnits };

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

  it("stay within the baseline's margin over an imported API's requests (GitHub's REST API: the rules only such catalogs run)", async () => {
    const now = await measureWork({}, "github");
    expect(workRegressions(now, baseline.github, baseline.margin)).toEqual([]);
    expect(now.rankings).toBeGreaterThan(0);
  }, 60_000);

  it("catch a deliberately doubled rerank, on either catalog", async () => {
    for (const [catalog, base] of [
      ["example", baseline.units],
      ["github", baseline.github],
    ] as const) {
      const doubled = await measureWork({ rerankPasses: 2 }, catalog);
      expect(workRegressions(doubled, base, baseline.margin), catalog).toEqual(expect.arrayContaining([expect.stringMatching(/^rerankPasses: /)]));
    }
  }, 60_000);

  it("catch a retrieve that hands every touched tool to the later stages", async () => {
    const every = await measureWork({ retriever: EveryTouched });
    expect(workRegressions(every, baseline.units, baseline.margin)).toEqual(expect.arrayContaining([expect.stringMatching(/^ranked: /)]));
  });
});
