import { beforeAll, describe, expect, it } from "vitest";
import { artifactFromFiles } from "../../../../../lambdas/artifact.js";
import { FindResult } from "../../../../../lambdas/contract/find.js";
import * as z from "../../../../../lambdas/core/zod-mini.js";
import { createFinder } from "../../../../../lambdas/core/find/index.js";
import type { Finder } from "../../../../../lambdas/core/find/types.js";
import { apiFinder, emitTestArtifact, smallFinder } from "./catalog.js";

let finder: Finder;
beforeAll(async () => {
  finder = createFinder(artifactFromFiles(await emitTestArtifact()));
});

const explained = (f: Finder, query: string, extra: Record<string, unknown> = {}) => f.find({ query, schemas: false, explain: true, ...extra });
const rulesOf = (rules: { stage: string; rule: string }[] | undefined) => (rules ?? []).map((r) => `${r.stage}/${r.rule}`);

describe("explain's rules", () => {
  it("lists every rule that shaped a tool's score, stage by stage, beside the matched words, as the contract says", async () => {
    const r = await explained(finder, "weather forecast for Paris", { limit: 1 });
    expect(z.safeParse(FindResult, r).success).toBe(true);
    const t = r.tools[0]!;
    expect(t.explain).toEqual([
      { word: "weather", fields: ["description", "family"] },
      { word: "forecast", fields: ["name", "description", "family"] },
    ]);
    // The name holds "forecast": the name-coverage boost fired; the tool has no hints: the fit model judged; the
    // catalog's builtin tools can run and this one cannot: it ranks after them.
    expect(rulesOf(t.rules)).toEqual(["retrieve/bm25f", "retrieve/name-coverage", "retrieve/calibration", "judge/fit-model", "present/not-callable"]);
    expect(t.rules!.find((x) => x.rule === "name-coverage")!.effect).toMatch(/^×1\.\d\d$/);
    expect(t.stages!.map((s) => s.stage)).toEqual(["retrieve", "rerank", "judge"]);
    expect(t.stages!.at(-1)!.score).toBe(t.score);
    expect(rulesOf(r.verdict_reasons)).toEqual(["judge/fit-model", "judge/verdict"]);
    expect(r.verdict_reasons!.at(-1)).toMatchObject({ effect: "match", detail: expect.stringContaining("weather.get_forecast") });
  });

  it("shows a task's lifts in the rerank stage with their effect on the score", async () => {
    const r = await explained(finder, "create a document then convert it to pdf and send an email to my boss with it", { limit: 5 });
    const lifted = r.tools.flatMap((t) => (t.rules ?? []).filter((x) => x.stage === "rerank").map((x) => ({ t, x })));
    expect(lifted.length).toBeGreaterThan(0);
    for (const { t, x } of lifted) {
      expect(x.rule).toMatch(/^(step|family)-lift$/);
      expect(x.effect).toMatch(/^\+\d\.\d+$/);
      // The tool it moves towards, with that tool's score (regression: the tool's index in the catalog was shown as its score).
      const head = Number(/\((?:\S+, )?(\d+\.\d\d)\)/.exec(x.detail)?.[1]);
      expect(head).toBeGreaterThan(0);
      expect(head).toBeLessThanOrEqual(1);
      const [retrieved, reranked] = t.stages!;
      expect(reranked!.score).toBeGreaterThanOrEqual(retrieved!.score);
    }
    expect(r.tools.every((t) => t.rules!.some((x) => x.rule === "steps"))).toBe(true);
  });

  it("says which rule answered none, with the word that made it fire", async () => {
    const f = await smallFinder({
      "random.shuffle": { description: "Return the items of a list in a random order.", aliases: ["shuffle"], examples: ["put these names in a random order"] },
      "kitchen.recipes": { description: "Recipes for dinner: soup, salad or pizza dough.", aliases: ["recipe"], examples: ["how do I make soup"] },
    });
    const r = await explained(f, "order a pizza");
    expect(r.verdict).toBe("none");
    expect(r.verdict_reasons).toEqual([
      { stage: "judge", rule: "one-word", effect: "×0.80", detail: expect.stringContaining('("pizza")') },
      { stage: "judge", rule: "verdict", effect: "none", detail: expect.stringMatching(/random\.shuffle at 0\.\d\d, is under min_score 0\.40/) },
    ]);
    // The same rule on the tool's own list, when it is shown at a lower bar.
    const low = await explained(f, "order a pizza", { min_score: 0 });
    expect(rulesOf(low.tools[0]!.rules)).toContain("judge/one-word");
  });

  it("names the best tool under min_score when nothing reached it, and the exact name when one was asked for", async () => {
    const r = await explained(finder, "weather forecast for Paris", { min_score: 0.99 });
    expect(r.verdict_reasons).toEqual([
      { stage: "retrieve", rule: "min-score", effect: "none", detail: expect.stringMatching(/min_score 0\.99: the best was weather\.get_forecast at 0\.\d\d/) },
    ]);
    const exact = await explained(finder, "files.write_file", { limit: 1 });
    expect(exact.verdict_reasons).toEqual([{ stage: "analyse", rule: "exact-name", effect: "match", detail: expect.any(String) }]);
    expect(exact.tools[0]!.rules).toEqual([{ stage: "analyse", rule: "exact-name", effect: "=1.00", detail: expect.any(String) }]);
  });

  it("says what it read from the request, and when a request is too long for the rerank to weigh its action", async () => {
    // Prepare: an API's operations (scope words in their names), where the rerank weighs requests of up to 14 words.
    const f = await apiFinder([
      ["packages.get-package-version-for-org", "Gets a package version in an organization."],
      ["packages.delete-package-version-for-org", "Deletes a package version in an organization."],
      ["repos.list-for-org", "List the repositories of an organization."],
      ["users.get-authenticated", "Get the authenticated user."],
    ]);
    // Act
    const short = await explained(f, "delete version 12 of the widgets package of the acme org");
    const long = await explained(f, "delete version 12 of the widgets package that the acme org published last spring by mistake, we never used it");
    const plain = await explained(finder, "weather forecast for Paris");
    // Assess
    expect(short.verdict_reasons![0]).toEqual({
      stage: "analyse",
      rule: "request",
      effect: "delete",
      detail: "the request asks to delete, about an organisation's; 10 words: the rerank weighs its action (up to 14 in this catalog)",
    });
    expect(long.verdict_reasons![0]).toMatchObject({
      stage: "analyse",
      rule: "request",
      effect: "delete, not weighed",
      detail: expect.stringContaining("more than the 14"),
    });
    // A request that names no action and no owner reads nothing worth saying.
    expect(rulesOf(plain.verdict_reasons)).not.toContain("analyse/request");
  });

  it("adds nothing to an answer that did not ask for explain", async () => {
    const r = await finder.find({ query: "weather forecast for Paris", schemas: false });
    expect(r).not.toHaveProperty("verdict_reasons");
    expect(r.tools[0]).not.toHaveProperty("rules");
    expect(r.tools[0]).not.toHaveProperty("stages");
  });
});
