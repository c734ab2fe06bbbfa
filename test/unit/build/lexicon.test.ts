import { describe, expect, it } from "vitest";
import { readdirSync, readFileSync } from "node:fs";
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
    expect(groups.length).toBeGreaterThan(25);
    for (const g of groups) {
      expect(g.length).toBeGreaterThan(1);
      for (const w of g) expect(w).toBe(w.toLowerCase());
    }
  });

  it("gives the capability weight only to pairs of specific words of a capability group", async () => {
    const senses = await wordnetSenses();
    const stem = (w: string) => encode(w)[0]!;
    const strong = (w: string) => strongWord(w, stem(w), senses);
    expect(["folder", "directory", "spreadsheet", "diagram"].every(strong)).toBe(true);
    // Generic (many senses), a stem that is another word, marked weak.
    expect(["page", "close", "listing", "dependency", "compute", "html"].some(strong)).toBe(false);
    const pairs = lexiconPairs((w) => encode(w)[0], senses);
    const pair = (a: string, b: string) => pairs.find((p) => p.from === stem(a) && p.to === stem(b))!;
    expect(pair("folder", "directory").strong).toBe(true);
    expect(pair("page", "webpage").strong).toBe(false); // "page" has 9 senses
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

  // Issue 27: the shipped lexicon held product names, office formats and Chinese words that each
  // mirrored one server of an eval catalog. A deployment adds its own words; the default stays general.
  it("names no product, service or vendor format, and writes only plain lower-case Latin words", () => {
    const words = new Set(lexiconGroups().flat());
    for (const w of ["airbnb", "youtube", "powerpoint", "excel", "bitcoin", "btc", "ethereum", "ppt", "pptx", "xlsx", "docx", "whois"])
      expect(words.has(w)).toBe(false);
    for (const w of words) expect(w).toMatch(/^[a-z]+$/);
  });

  it("keeps every word list in a data file whose header says its source and purpose", () => {
    const dir = new URL("../../../build/data/", import.meta.url);
    const lists = readdirSync(dir).filter((f) => f.startsWith("lexicon-"));
    expect(lists.length).toBeGreaterThanOrEqual(3);
    for (const file of lists) {
      const header = readFileSync(new URL(file, dir), "utf8")
        .split("\n")
        .filter((l) => l.startsWith("#"))
        .join("\n");
      expect(header).toMatch(/source/i);
      expect(header).toMatch(/purpose|measured/i);
    }
  });
});
