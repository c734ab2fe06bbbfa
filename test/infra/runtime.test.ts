// The construct's default Lambda runtime must be one AWS still creates functions on, with room to spare.
// Regression: the default stayed nodejs20.x after AWS blocked creating functions on it (2026-08-31), so a
// first `cdk deploy` failed at CloudFormation, and the nag findings that said so were suppressed.
import { describe, expect, it } from "vitest";
import { DEFAULT_RUNTIME, NODE_RUNTIME_DATES } from "../../infra/lambda-runtimes.js";

const SIX_MONTHS_MS = 183 * 24 * 3600 * 1000;

describe("the default Lambda runtime", () => {
  it("is in the table of AWS's dates", () => {
    expect(NODE_RUNTIME_DATES[DEFAULT_RUNTIME.name], DEFAULT_RUNTIME.name).toBeDefined();
  });

  it("can be created on for at least six more months (move the default, and test the bundles on it, before then)", () => {
    const dates = NODE_RUNTIME_DATES[DEFAULT_RUNTIME.name]!;
    const left = Date.parse(`${dates.createBlocked}T00:00:00Z`) - Date.now();
    expect(left, `${DEFAULT_RUNTIME.name}: create blocked from ${dates.createBlocked}`).toBeGreaterThan(SIX_MONTHS_MS);
  });

  it("is the listed runtime with the latest create block", () => {
    const latest = Object.entries(NODE_RUNTIME_DATES)
      .sort(([, a], [, b]) => a.createBlocked.localeCompare(b.createBlocked))
      .at(-1)![0];
    expect(DEFAULT_RUNTIME.name).toBe(latest);
  });
});
