import { beforeAll, describe, expect, it } from "vitest";
import { artifactFromFiles, type Artifact } from "../../../../../lambdas/artifact.js";
import { createFinder, DEFAULT_MIN_SCORE } from "../../../../../lambdas/core/find/index.js";
import type { Finder } from "../../../../../lambdas/core/find/types.js";
import { Verdict, VERDICT_MODEL, type VerdictFeatures } from "../../../../../lambdas/core/find/verdict.js";
import type { SearchIndexData } from "../../../../../registry/contract/search-options.js";
import { emitTestArtifact } from "./catalog.js";

let artifact: Artifact;
let verdict: Verdict;
let withVerdict: Finder;
let lexical: Finder;
const doc = (name: string) => artifact.tools.findIndex((t) => t.name === name);

beforeAll(async () => {
  artifact = artifactFromFiles(await emitTestArtifact());
  verdict = new Verdict(artifact.index as SearchIndexData);
  withVerdict = createFinder(artifact);
  lexical = createFinder(artifact, { verdict: false });
});

describe("verdict features", () => {
  it("coverage is the idf-weighted share of the query's known words the top tool contains", () => {
    expect(verdict.features("weather forecast", doc("weather.get_forecast"), 0.8).coverage).toBe(1);
    const partial = verdict.features("weather forecast email", doc("weather.get_forecast"), 0.8).coverage;
    expect(partial).toBeGreaterThan(0.3);
    expect(partial).toBeLessThan(1);
    expect(verdict.features("weather forecast", doc("mail.send_email"), 0.8).coverage).toBe(0);
  });

  it("language does not count a word the top tool itself says: 'write text to a file' is the tool's business (issue 27, 'give alice write perms')", () => {
    // files.write_file says "write"; the fit model's language sign is for text the agent writes itself.
    expect(verdict.features("write the notes to a file", doc("files.write_file"), 0.8).language).toBe(0);
    expect(verdict.features("write the notes to a file", doc("files.read_file"), 0.8).language).toBe(1);
    // Every such word must be the tool's: "write a poem" into a file is still a language task.
    expect(verdict.features("write a poem into a file", doc("files.write_file"), 0.8).language).toBe(1);
  });

  it("known is the share of the query the catalog knows; an unknown word weighs as the rarest", () => {
    expect(verdict.features("weather forecast", 0, 0.5).known).toBe(1);
    const f = verdict.features("weather xylophonist", 0, 0.5);
    expect(f.known).toBeGreaterThan(0);
    expect(f.known).toBeLessThan(0.5);
    expect(verdict.features("xylophonist", 0, 0.5)).toMatchObject({ known: 0, coverage: 0, terms: 1 });
    // Words that name Object's own properties are plain unknown words.
    expect(verdict.features("constructor", 0, 0.5)).toMatchObject({ known: 0, terms: 1 });
    // A data blob is input, not dozens of unknown words.
    expect(verdict.features(`weather forecast ${"QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo".repeat(3)}`, 0, 0.5)).toMatchObject({ known: 1, terms: 2 });
  });

  it("regression (a labelled input answered none): an unknown word of the input after a label is data, not an unknown request word", () => {
    expect(verdict.features("weather forecast: xylophonist", 0, 0.5).known).toBe(1);
    // The label's own words count as before, and so does an unknown word outside a labelled input.
    expect(verdict.features("xylophonist forecast: weather", 0, 0.5).known).toBeLessThan(1);
    expect(verdict.features("weather forecast xylophonist", 0, 0.5).known).toBeLessThan(1);
    // A language task's text is the agent's own work: its unknown words still count.
    expect(verdict.features("describe the weather forecast: xylophonist", 0, 0.5).known).toBeLessThan(1);
  });

  it.each([
    ["Why is the sky blue?", "question", 1],
    ["Can planets orbit twin stars?", "question", 1],
    ["Can you get the weather forecast for Paris?", "question", 0],
    ["Translate 'how are you?' into French", "question", 0],
    ["John was late, so his boss did what?", "narrative", 1],
    ["send an email to my boss", "narrative", 0],
    ["Explain the ending of the movie", "language", 1],
    ["Write a poem about autumn", "language", 1],
    ["read a file from disk", "language", 0],
    ["Summarize the following text. It was a dark night.", "selfContained", 1],
    ["Classify this sentence as positive or negative", "selfContained", 1],
    ["Extract the names. Text: Ann met Bob", "selfContained", 1],
    ["list the entries of a directory", "selfContained", 0],
    ["latest news about the election", "fresh", 1],
    ["weather in Paris over the last few days", "fresh", 1],
    ["Write a story set in a 'live' village", "fresh", 0],
    ["Why do cats purr?", "why", 1],
    ["How come the tide rises twice a day?", "why", 1],
    ["show why the build failed in the log", "why", 1],
    ["what is the weather in Paris", "why", 0],
    ["If the moon vanished, what would happen to the tides?", "hypothetical", 1],
    ["What if dinosaurs had survived?", "hypothetical", 1],
    // "would like" is a request, not a hypothetical (a seal-tools dev request the first candidate turned none).
    ["If the file exists, I would like to delete it", "hypothetical", 0],
    ["convert 5 km to miles", "hypothetical", 0],
  ] as const)("%j → %s = %d", (query, key, value) => {
    expect(verdict.features(query, 0, 0.5)[key]).toBe(value);
  });
});

describe("fit factor", () => {
  const base: VerdictFeatures = {
    score: 0.8,
    coverage: 1,
    known: 1,
    terms: 3,
    question: 0,
    narrative: 0,
    language: 0,
    selfContained: 0,
    fresh: 0,
    why: 0,
    hypothetical: 0,
    minIdf: 0.5,
  };

  it("stays in (0, 1] and falls with each sign of a question the agent can answer itself", () => {
    const c0 = verdict.factor(base, DEFAULT_MIN_SCORE);
    expect(c0).toBe(1);
    // Each sign added to a weakly covered query lowers the factor further (once under the cap).
    let f: VerdictFeatures = { ...base, score: 0.5, coverage: 0, known: 0.3 };
    let prev = verdict.factor(f, DEFAULT_MIN_SCORE);
    for (const key of ["question", "language", "selfContained", "narrative"] as const) {
      f = { ...f, [key]: 1 };
      const c = verdict.factor(f, DEFAULT_MIN_SCORE);
      expect(c).toBeGreaterThan(0);
      expect(c).toBeLessThan(prev);
      prev = c;
    }
    expect(prev).toBeLessThan(0.5);
  });

  it("at the default min_score, score·factor ≥ min_score exactly when the margin is ≥ 0 (score ≥ min_score)", () => {
    for (const score of [0.45, 0.6, 0.9]) {
      for (const coverage of [0, 0.3, 0.7, 1]) {
        for (const question of [0, 1]) {
          const f = { ...base, score, coverage, question, known: 0.6 };
          const shown = score * verdict.factor(f, DEFAULT_MIN_SCORE) >= DEFAULT_MIN_SCORE - 1e-12;
          expect(shown).toBe(verdict.margin(f) >= -1e-12);
        }
      }
    }
  });

  it("the shipped model has the signs its features argue for", () => {
    expect(VERDICT_MODEL.logScore).toBeGreaterThan(0);
    expect(VERDICT_MODEL.coverage).toBeGreaterThan(0);
    expect(VERDICT_MODEL.known).toBeGreaterThan(0);
    expect(VERDICT_MODEL.fresh).toBeGreaterThan(0);
    for (const k of ["question", "narrative", "language", "selfContained", "why", "hypothetical", "minIdf"] as const) {
      expect(VERDICT_MODEL[k]).toBeLessThan(0);
    }
  });

  it("minIdf is the relative idf of the request's commonest word the catalog knows, 1 without one", () => {
    expect(verdict.features("xylophonist", 0, 0.5).minIdf).toBe(1);
    const common = verdict.features("weather forecast", 0, 0.5).minIdf;
    expect(common).toBeGreaterThan(0);
    expect(common).toBeLessThan(1);
    // An unknown word does not lower it; a word the catalog knows can only lower it.
    expect(verdict.features("weather forecast xylophonist", 0, 0.5).minIdf).toBe(common);
    expect(verdict.features("weather", 0, 0.5).minIdf).toBeGreaterThanOrEqual(common);
  });
});

describe("find with the verdict", () => {
  const TASK = "Summarize the following email: Dear team, the meeting moved.";

  it("answers none to a language task the catalog only touches by a word, and still matches a request", async () => {
    expect((await lexical.find({ query: TASK })).verdict).toBe("match");
    expect(await withVerdict.find({ query: TASK })).toMatchObject({ verdict: "none", tools: [] });
    const r = await withVerdict.find({ query: "weather forecast for Paris", schemas: false });
    expect(r.verdict).toBe("match");
    expect(r.tools[0]!.name).toBe("weather.get_forecast");
  });

  it("keeps the order and scales every score of a query by one factor in (0, 1]", async () => {
    const q = TASK;
    const a = (await withVerdict.find({ query: q, min_score: 0, schemas: false })).tools;
    const b = (await lexical.find({ query: q, min_score: 0, schemas: false })).tools;
    expect(a.map((t) => t.name)).toEqual(b.map((t) => t.name));
    const ratios = a.map((t, i) => t.score / b[i]!.score);
    for (const r of ratios) {
      expect(r).toBeGreaterThan(0);
      expect(r).toBeLessThan(1);
      expect(r).toBeCloseTo(ratios[0]!, 2);
    }
    for (let i = 1; i < a.length; i++) expect(a[i]!.score).toBeLessThanOrEqual(a[i - 1]!.score);
  });

  it("min_score still filters the scores it returns", async () => {
    const q = TASK;
    const all = (await withVerdict.find({ query: q, min_score: 0, schemas: false })).tools;
    expect(all.length).toBeGreaterThan(1);
    const cut = (all[0]!.score + all[1]!.score) / 2;
    const r = await withVerdict.find({ query: q, min_score: cut, schemas: false });
    expect(r.tools.map((t) => t.name)).toEqual([all[0]!.name]);
  });

  it("doubts a hypothetical about a tool's subject (sixth round's form signs) and not the request itself", async () => {
    const score = async (f: Finder, query: string) => (await f.find({ query, min_score: 0, limit: 1, schemas: false })).tools[0]!.score;
    const hypothetical = "If it rained all week, what would the weather forecast say?";
    expect(await score(withVerdict, hypothetical)).toBeLessThan(0.6 * (await score(lexical, hypothetical)));
    const request = "weather forecast for Paris";
    expect(await score(withVerdict, request)).toBe(await score(lexical, request));
  });

  it("leaves an exact tool name at score 1", async () => {
    expect((await withVerdict.find({ query: "files.write_file" })).tools[0]).toMatchObject({ name: "files.write_file", score: 1 });
  });
});
