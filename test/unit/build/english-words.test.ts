import { describe, expect, it } from "vitest";
import { englishWordsNear } from "../../../build/english-words.js";
import { wordnetTaggedLemmas } from "../../../build/wordnet.js";

describe("everyday English words near a catalog's terms (build/english-words.ts)", () => {
  // Encoded terms, as the index holds them: color, health, list, live, summarize, tile, timer, weather.
  const terms = ["color", "health", "list", "live", "summar", "tile", "timer", "weather"];

  it("lists a word a typo's distance from another word: last → list, love → live, summer → summar, time → tile", async () => {
    const words = await englishWordsNear(terms);
    expect(words).toEqual(expect.arrayContaining(["last", "love", "summer", "time"]));
    expect(words).toEqual([...words].sort());
  });

  it("leaves out a word whose near terms are only other forms of it (timer → time, healthy → health) or a term itself", async () => {
    const words = await englishWordsNear(["health", "timer"]);
    expect(words).not.toContain("time");
    expect(words).not.toContain("healthi");
    expect(await englishWordsNear([...terms, "last"])).not.toContain("last");
  });

  it("leaves out a word whose near term is another spelling of it, among its synonym expansions (colour → color)", async () => {
    expect(await englishWordsNear(["color"])).toContain("colour");
    expect(await englishWordsNear(["color"], { colour: [0] })).not.toContain("colour");
  });

  it("counts as everyday English only the lemmas WordNet's tagged corpus met: a rare word stays a possible typo (wether → weather)", async () => {
    const lemmas = new Set(await wordnetTaggedLemmas());
    expect(lemmas.has("last") && lemmas.has("love")).toBe(true);
    expect(lemmas.has("wether")).toBe(false);
    expect(await englishWordsNear(terms)).not.toContain("wether");
  });

  // A 5,000-letter token (a test tool's description) made millions of deletions and held a test run for minutes.
  it("skips a term longer than every word by more than two letters: it is no typo of one", { timeout: 10_000 }, async () => {
    expect(await englishWordsNear([...terms, "x".repeat(5000)])).toEqual(await englishWordsNear(terms));
  });
});
