// Abbreviations by initials (issue 27: "everyday abbreviations and jargon for the API's central objects
// not bridged"): a two-letter request word written in capitals reaches the word pair most of the
// catalog's tools say with those initials, from the catalog's own text, no word list.
import { describe, expect, it } from "vitest";
import { smallFinder } from "./catalog.js";

const REGISTRY = {
  "pulls.create": "Create a pull request.",
  "pulls.merge": "Merge a pull request.",
  "pulls.list-files": "List the files of a pull request.",
  "repos.delete-file": "Delete a file in a repository.",
  "repos.get-file": "Get the contents of a file in a repository.",
  "issues.create": "Create an issue.",
};

describe("abbreviations by initials", () => {
  it("which files are in PR 57: the pull request's files first, where the words alone tie them with a repository's files", async () => {
    // Prepare
    const [wired, wordsOnly] = [await smallFinder(REGISTRY), await smallFinder(REGISTRY, { acronymWeight: 0 })];
    const query = "which files are in PR 57";
    // Act
    const [r, before] = [
      await wired.find({ query, min_score: 0, schemas: false, explain: true }),
      await wordsOnly.find({ query, min_score: 0, schemas: false }),
    ];
    // Assess
    const score = (a: typeof r, name: string) => a.tools.find((t) => t.name === name)!.score;
    expect(score(before, "pulls.list-files")).toBe(score(before, "repos.get-file"));
    expect(r.tools[0]!.name).toBe("pulls.list-files");
    expect(score(r, "pulls.list-files")).toBeGreaterThan(score(r, "repos.get-file"));
    expect(r.tools[0]!.explain).toContainEqual(expect.objectContaining({ word: "pr", expansion: "pull request" }));
  });

  it("reads a plural the same way: 'PRs' is the abbreviation 'PR'", async () => {
    const r = await (await smallFinder(REGISTRY)).find({ query: "which files are in these PRs", min_score: 0, schemas: false, explain: true });
    expect(r.tools[0]!.name).toBe("pulls.list-files");
    expect(r.tools[0]!.explain).toContainEqual(expect.objectContaining({ word: "pr", expansion: "pull request" }));
  });

  it("reads only a word written in capitals as an abbreviation: 'pr' in lower case is a word like any other", async () => {
    const r = await (await smallFinder(REGISTRY)).find({ query: "which files are in pr 57", min_score: 0, schemas: false, explain: true });
    expect(r.tools.flatMap((t) => t.explain ?? []).some((m) => m.word === "pr")).toBe(false);
  });

  it("leaves a pair fewer than three tools say alone", async () => {
    const f = await smallFinder({ ...REGISTRY, "pulls.create": "Create a change.", "pulls.merge": "Merge a change." });
    const r = await f.find({ query: "which files are in PR 57", min_score: 0, schemas: false, explain: true });
    expect(r.tools.flatMap((t) => t.explain ?? []).some((m) => m.word === "pr")).toBe(false);
  });
});
