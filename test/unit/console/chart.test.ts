// The calls view's pictures read the stats answer's bucket_secs: a day is 96 buckets of 15 minutes, not 96 minutes.
import { describe, expect, it } from "vitest";
import { CallsChart, LatencyChart } from "../../../console/src/chart.js";

const buckets = (n: number, secs: number) =>
  Array.from({ length: n }, (_, i) => ({
    t: new Date(Date.UTC(2026, 11, 7) + i * secs * 1000).toISOString(),
    calls: 2,
    errors: i ? 0 : 1,
    p50_ms: 10,
    p95_ms: 40,
  }));
const label = (vnode: unknown) => (vnode as { props: Record<string, unknown> }).props["aria-label"];

describe("CallsChart and LatencyChart", () => {
  it("say the window and the bucket the answer used: a day in 15-minute buckets", () => {
    // Prepare: what /v1/admin/audit/stats?minutes=1440 answers (bucket_secs 900).
    const day = buckets(96, 900);
    // Act
    const calls = label(CallsChart({ family: "notes", buckets: day, bucketSecs: 900 }));
    const latency = label(LatencyChart({ family: "notes", buckets: day, bucketSecs: 900 }));
    // Assess
    expect(calls).toBe("notes: 192 calls and 1 errors over 1440 minutes, per 15 minutes");
    expect(latency).toBe("notes: latency per 15 minutes, p95 at most 40 ms");
  });

  it("an hour is still a minute per bucket", () => {
    const hour = buckets(60, 60);
    expect(label(CallsChart({ family: "notes", buckets: hour, bucketSecs: 60 }))).toBe("notes: 120 calls and 1 errors over 60 minutes, per minute");
    expect(label(LatencyChart({ family: "notes", buckets: hour, bucketSecs: 60 }))).toBe("notes: latency per minute, p95 at most 40 ms");
  });
});
