import { describe, expect, it } from "vitest";
import { englishWordsNear } from "../../../build/english-words.js";
import { wordnetTaggedLemmas } from "../../../build/wordnet.js";

describe("everyday English words near a catalog's terms (build/english-words.ts)", () => {
  // Encoded terms, as the index holds them: list, live, weekly, summarize, color, wether's neighbour weather.
  const terms = ["color", "list", "live", "summar", "weather", "weekli"];

  it("lists a word a typo's distance from a term it does not extend: last → list, love → live, summer → summar", async () => {
    const words = await englishWordsNear(terms);
    expect(words).toEqual(expect.arrayContaining(["last", "love", "summer"]));
    expect(words).toEqual([...words].sort());
  });

  it("leaves out a word whose near terms all extend it (week → weekly), another spelling of itself (colour → color), and a term itself", async () => {
    const words = await englishWordsNear(terms);
    expect(words).not.toContain("week");
    expect(words).not.toContain("colour");
    expect(await englishWordsNear([...terms, "last"])).not.toContain("last");
  });

  it("counts as everyday English only the lemmas WordNet's tagged corpus met: a rare word stays a possible typo (wether → weather)", async () => {
    const lemmas = new Set(await wordnetTaggedLemmas());
    expect(lemmas.has("last") && lemmas.has("love")).toBe(true);
    expect(lemmas.has("wether")).toBe(false);
    expect(await englishWordsNear(terms)).not.toContain("wether");
  });

  // A 5,000-letter token (a test tool's description) made millions of deletions and held a test run for minutes.
  it("skips a term longer than every word by more than two letters: it is no typo of one", async () => {
    expect(await englishWordsNear([...terms, "x".repeat(5000)])).toEqual(await englishWordsNear(terms));
  });
});
