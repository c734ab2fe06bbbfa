import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { neighbourTable } from "../../../build/neighbours.js";
import { buildSearchIndex } from "../../../build/search-index.js";
import { artifactFromFiles } from "../../../lambdas/artifact.js";
import { createFinder } from "../../../lambdas/core/find/index.js";
import { DEFAULT_SCORER_PARAMS } from "../../../registry/contract/search-options.js";
import { emitTestArtifact } from "../lambdas/core/find/catalog.js";

describe("paraphrase table (build/neighbours.txt)", () => {
  it("reaches a tool through a word near one of its words in word vectors, and only through the table", async () => {
    const artifact = artifactFromFiles(await emitTestArtifact());
    expect(DEFAULT_SCORER_PARAMS.paraphraseWeight).toBeGreaterThan(0);
    const withTable = createFinder(artifact);
    const without = createFinder({ ...artifact, index: await buildSearchIndex(artifact, { ...DEFAULT_SCORER_PARAMS, paraphraseWeight: 0 }) });
    // "snow" and "gust" are in no tool text, the lexicon or their WordNet synonyms' reach.
    for (const [query, tool] of [
      ["snow", "weather.get_forecast"],
      ["gust", "weather.current_conditions"],
    ] as const) {
      expect((await withTable.find({ query, min_score: 0 })).tools.map((t) => t.name)).toContain(tool);
      expect((await without.find({ query, min_score: 0 })).tools).toEqual([]);
    }
  });

  it("keeps a neighbour below the word itself", async () => {
    const f = createFinder(artifactFromFiles(await emitTestArtifact()));
    const top = async (query: string) => (await f.find({ query, min_score: 0 })).tools[0]!;
    expect((await top("snow")).score).toBeLessThan((await top("weather")).score);
  });

  it("holds sorted unique stems (the index's encoder), each with 1 to 6 other distinct stems", async () => {
    const lines = readFileSync(new URL("../../../build/neighbours.txt", import.meta.url), "utf8")
      .trim()
      .split("\n");
    const keys = lines.map((l) => l.split(" ")[0]!);
    expect(keys).toEqual([...new Set(keys)].sort());
    const table = await neighbourTable();
    expect(table.size).toBe(lines.length);
    const bad: string[] = []; // one expect over the whole table: 13,000 lines
    for (const [key, nbs] of table) {
      const ok =
        /^[a-z]{2,20}$/.test(key) &&
        nbs.length > 0 &&
        nbs.length <= 6 &&
        new Set(nbs).size === nbs.length &&
        nbs.every((nb) => nb !== key && /^[a-z]{2,20}$/.test(nb));
      if (!ok) bad.push(key);
    }
    expect(bad).toEqual([]);
  });
});
