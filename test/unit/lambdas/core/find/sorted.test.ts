import { describe, expect, it } from "vitest";
import { sortedIndexOf } from "../../../../../lambdas/core/find/sorted.js";

describe("sortedIndexOf", () => {
  it("finds strings and numbers, and answers undefined for what is absent", () => {
    const terms = ["alpha", "beta", "delta", "gamma"];
    expect(terms.map((t) => sortedIndexOf(terms, t))).toEqual([0, 1, 2, 3]);
    expect(sortedIndexOf(terms, "aa")).toBeUndefined();
    expect(sortedIndexOf(terms, "zeta")).toBeUndefined();
    expect(sortedIndexOf([], "x")).toBeUndefined();
  });

  it("searches only inside [lo, hi): a hit just past the range is not a hit", () => {
    const ids = Uint16Array.from([1, 4, 9, 10, 12]); // two posting lists: [1, 4, 9] and [10, 12]
    expect(sortedIndexOf(ids, 4, 0, 3)).toBe(1);
    expect(sortedIndexOf(ids, 12, 3, 5)).toBe(4);
    expect(sortedIndexOf(ids, 10, 0, 3)).toBeUndefined();
    expect(sortedIndexOf(ids, 4, 3, 5)).toBeUndefined();
  });
});
