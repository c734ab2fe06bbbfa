import { describe, expect, it } from "vitest";
import { lexiconGroups } from "../../../build/lexicon.js";
import { buildSearchIndex } from "../../../build/search-index.js";
import { artifactFromFiles } from "../../../lambdas/artifact.js";
import { createFinder } from "../../../lambdas/core/find/index.js";
import { DEFAULT_SCORER_PARAMS } from "../../../registry/contract/search-options.js";
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
});
