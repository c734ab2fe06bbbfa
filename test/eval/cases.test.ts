// Regression check on our own small case set (agent phrasing, typos, plurals, Chinese, no-tool
// questions) over a slice of the LiveMCPBench catalog: ours must stay ahead of both baselines.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { evaluate, loadJsonlTools, loadTools, readJsonl, type EvalQuery } from "./harness.js";

const dir = join(import.meta.dirname, "cases");

describe("own cases", () => {
  it("ranks the needed tool high, ahead of BM25 and FTS5, and says none to some off-topic questions", async () => {
    const loaded = await loadTools(loadJsonlTools(join(dir, "tools.jsonl")), "cases");
    const f = await evaluate(loaded, readJsonl<EvalQuery>(join(dir, "queries.jsonl")));
    expect(f.ours.answerable).toBe(50);
    expect(f.ours.r5).toBeGreaterThanOrEqual(95);
    expect(f.ours.ndcg10).toBeGreaterThanOrEqual(90);
    expect(f.ours.ndcg10).toBeGreaterThan(f.bm25.ndcg10 + 10);
    expect(f.ours.ndcg10).toBeGreaterThan(f.fts5.ndcg10 + 10);
    expect(f.ours.false_none).toBeLessThanOrEqual(5);
    expect(f.ours.none_rate).toBeGreaterThanOrEqual(40);
  });
});
