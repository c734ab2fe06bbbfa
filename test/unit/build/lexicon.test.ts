import { describe, expect, it } from "vitest";
import { lexiconGroups, lexiconPairs, strongWord } from "../../../build/lexicon.js";
import { wordnetSenses } from "../../../build/wordnet.js";
import { buildSearchIndex } from "../../../build/search-index.js";
import { artifactFromFiles } from "../../../lambdas/artifact.js";
import { createFinder } from "../../../lambdas/core/find/index.js";
import { DEFAULT_SCORER_PARAMS, encode } from "../../../registry/contract/search-options.js";
import { emitTestArtifact } from "../lambdas/core/find/catalog.js";

describe("tool lexicon", () => {
  it("reaches tools through words meant alike in software, and only through the lexicon", async () => {
    const artifact = artifactFromFiles(await emitTestArtifact());
    expect(DEFAULT_SCORER_PARAMS.lexiconWeight).toBeGreaterThan(0);
    const withLexicon = createFinder(artifact);
    const without = createFinder({ ...artifact, index: await buildSearchIndex(artifact, { ...DEFAULT_SCORER_PARAMS, lexiconWeight: 0 }) });
    for (const [query, tool] of [
      ["save", "files.write_file"],
      ["folder", "files.list_directory"],
      ["搜索", "mail.searchInbox"],
    ] as const) {
      expect((await withLexicon.find({ query, min_score: 0 })).tools.map((t) => t.name)).toContain(tool);
      expect((await without.find({ query, min_score: 0 })).tools.map((t) => t.name)).not.toContain(tool);
    }
  });

  it("keeps a lexicon word below the word itself", async () => {
    const f = createFinder(artifactFromFiles(await emitTestArtifact()));
    const write = (await f.find({ query: "write", min_score: 0 })).tools.find((t) => t.name === "files.write_file")!;
    const save = (await f.find({ query: "save", min_score: 0 })).tools.find((t) => t.name === "files.write_file")!;
    expect(save.score).toBeLessThan(write.score);
  });

  it("holds groups of lower-case words, each group at least a pair", () => {
    const groups = lexiconGroups();
    expect(groups.length).toBeGreaterThan(50);
    for (const g of groups) {
      expect(g.length).toBeGreaterThan(1);
      for (const w of g) expect(w).toBe(w.toLowerCase());
    }
  });

  it("gives the capability weight only to pairs of specific words of a capability group", async () => {
    const senses = await wordnetSenses();
    const stem = (w: string) => encode(w)[0]!;
    const strong = (w: string) => strongWord(w, stem(w), senses);
    expect(["folder", "directory", "bitcoin", "diagram"].every(strong)).toBe(true);
    // Generic (many senses), a stem that is another word, marked weak.
    expect(["page", "close", "stay", "news", "listing", "directions", "compute", "html"].some(strong)).toBe(false);
    const pairs = lexiconPairs((w) => encode(w)[0], senses);
    const pair = (a: string, b: string) => pairs.find((p) => p.from === stem(a) && p.to === stem(b))!;
    expect(pair("folder", "directory").strong).toBe(true);
    expect(pair("headline", "news").strong).toBe(false);
    expect(pair("save", "write").strong).toBe(false); // a verb group
    expect(DEFAULT_SCORER_PARAMS.capabilityWeight).toBeGreaterThan(DEFAULT_SCORER_PARAMS.lexiconWeight);
    // At find: "folder" reaches the directory tool more strongly than with every pair at the verb weight.
    const artifact = artifactFromFiles(await emitTestArtifact());
    const score = async (capabilityWeight: number) => {
      const f = createFinder({ ...artifact, index: await buildSearchIndex(artifact, { ...DEFAULT_SCORER_PARAMS, capabilityWeight }) });
      return (await f.find({ query: "folder", min_score: 0 })).tools.find((t) => t.name === "files.list_directory")!.score;
    };
    expect(await score(0.7)).toBeGreaterThan(await score(0));
  });
});
