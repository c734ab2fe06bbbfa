// The task lifts (rerank.ts, `stepLift` and `familyLift`; 0.4 / 0.3 by default, test/eval/README.md "Fifth
// round: ranking") over the own cases' slice of the LiveMCPBench catalog: 33 servers, so families of related tools.
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { createFinder } from "../../lambdas/core/find/index.js";
import type { Finder } from "../../lambdas/core/find/types.js";
import { loadJsonlTools, loadTools, readJsonl, type EvalQuery } from "./harness.js";

const dir = join(import.meta.dirname, "cases");
const queries = readJsonl<EvalQuery>(join(dir, "queries.jsonl")).map((q) => q.query);
let lifted: Finder;
let plain: Finder;

beforeAll(async () => {
  const { artifact } = await loadTools(loadJsonlTools(join(dir, "tools.jsonl")), "cases");
  lifted = createFinder(artifact, { verdict: false });
  plain = createFinder(artifact, { verdict: false, query: { stepLift: 0, familyLift: 0 } });
});

const ranking = async (f: Finder, query: string, min_score: number) =>
  (await f.find({ query, min_score, limit: 20, schemas: false })).tools.map((t) => `${t.name} ${t.score}`);

describe("task lifts", () => {
  // The first family lift lowered the MaxScore floor so that pruned siblings could be lifted (1.6×
  // slower at 10,000 tools); with the floor kept, a sibling it pruned must be scored exactly afterwards.
  it("pruned siblings scored exactly: the tools shown at a min_score are the unpruned ranking's above it", async () => {
    for (const query of queries) {
      const all = await ranking(lifted, query, 0);
      for (const m of [0.2, 0.3, 0.4, 0.5]) {
        const above = all.filter((r) => Number(r.split(" ")[1]) >= m);
        const shown = await ranking(lifted, query, m);
        expect({ query, m, shown }).toEqual({ query, m, shown: above.slice(0, shown.length) });
        if (shown.length < 20) expect(shown.length).toBe(above.length);
      }
    }
  });

  it("moves tools up on some tasks, never the top tool or its score (the verdict's input)", async () => {
    let moved = 0;
    for (const query of queries) {
      const [on, off] = [await ranking(lifted, query, 0), await ranking(plain, query, 0)];
      expect(on[0]).toBe(off[0]);
      if (on.join() !== off.join()) moved++;
    }
    expect(moved).toBeGreaterThan(0);
  });
});
