// Background term weights (measured, off by default): a word generic among tools in general weighs
// less in a small catalog, a word specific to it keeps its weight.
import { describe, expect, it } from "vitest";
import { buildSearchIndex } from "../../../build/search-index.js";
import { DEFAULT_SCORER_PARAMS } from "../../../registry/contract/search-options.js";
import { catalog } from "../lambdas/core/find/catalog.js";

describe("background term weights", () => {
  it("cap a generic word ('get') and leave a word tools rarely say (必应, Bing) at full weight and are off by default", async () => {
    const on = await buildSearchIndex(catalog(), { ...DEFAULT_SCORER_PARAMS, backgroundWeight: 1 });
    const weight = (t: string) => on.termWeight[on.terms.indexOf(t)]!;
    expect(weight("get")).toBeLessThan(60);
    expect(weight("必应")).toBe(100);
    expect((await buildSearchIndex(catalog())).termWeight).toEqual([]);
  });
});
