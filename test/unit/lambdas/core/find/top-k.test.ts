// topK against the plain definition: sort the accepted documents by tier, then score, then catalog order.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { topK } from "../../../../../lambdas/core/find/top-k.js";

const bySort = (docs: number[], score: Float64Array, tier: (d: number) => number, k: number, accept: (d: number) => boolean) =>
  docs
    .filter(accept)
    .sort((a, b) => tier(b) - tier(a) || score[b]! - score[a]! || a - b)
    .slice(0, k);

describe("topK", () => {
  it("selects what sorting every accepted document would, ties and tiers included", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 0, max: 199 }), { maxLength: 200 }),
        fc.array(fc.constantFrom(0, 0.1, 0.25, 0.4, 0.5, 0.9, 1), { minLength: 200, maxLength: 200 }),
        fc.integer({ min: 1, max: 30 }),
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 1, max: 5 }),
        (docs, scores, k, tiers, mod) => {
          const score = Float64Array.from(scores);
          const tier = (d: number) => d % tiers;
          const accept = (d: number) => d % mod !== 1 && score[d]! > 0;
          expect(topK(docs, score, tier, k, accept)).toEqual(bySort(docs, score, tier, k, accept));
        },
      ),
      { numRuns: 500, seed: 27 },
    );
  });
});
