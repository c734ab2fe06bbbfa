// The cold-start bench runs end to end (figures are printed by the bench, never asserted here).
import { describe, expect, it } from "vitest";
import { formatColdStart, measureColdStart, syntheticCatalog } from "../bench/cold-start-bench.js";

describe("measureColdStart", () => {
  it("bundles find, builds a catalog and answers a first find in fresh processes", async () => {
    const report = await measureColdStart({ sizes: [60], runs: 2 });
    expect(report.rows).toHaveLength(1);
    const [row] = report.rows;
    expect(row).toMatchObject({ label: "synthetic-60", tools: 60, runs: 2 });
    expect(row!.firstAnswerMs.median).toBeGreaterThanOrEqual(row!.loadMs.median);
    expect(row!.loadMs.min).toBeGreaterThan(0);
    expect(report.bundleBytes).toBeGreaterThan(0);
    expect(formatColdStart(report)).toContain("synthetic-60");
  }, 120_000);

  it("builds the same synthetic catalog every time, with unique names", () => {
    const a = syntheticCatalog(300);
    expect(syntheticCatalog(300)).toEqual(a);
    expect(new Set(a.tools.map((t) => t.name)).size).toBe(300);
    expect(a.families.reduce((n, f) => n + f.tool_count, 0)).toBe(300);
  });
});
