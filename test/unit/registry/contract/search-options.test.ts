import { describe, expect, it } from "vitest";
import { buildSearchIndex } from "../../../../build/search-index.js";
import { artifactFromFiles } from "../../../../lambdas/artifact.js";
import { createFinder } from "../../../../lambdas/core/find/index.js";
import { segments } from "../../../../lambdas/core/find/segment.js";
import { DEFAULT_SCORER_PARAMS, encode, encodeQuery, splitIdentifier } from "../../../../registry/contract/search-options.js";
import { emitTestArtifact } from "../../lambdas/core/find/catalog.js";

describe("encoder", () => {
  it("splits snake, kebab, dotted and camel case, including acronyms", () => {
    expect(splitIdentifier("get_weather-forecast.v2")).toBe("get weather forecast v2");
    expect(splitIdentifier("getHTTPServerStatus")).toBe("get HTTP Server Status");
  });

  it('regression (URLs and IDs were split as camelCase into "UR Ls", "I Ds"): a plural acronym encodes as its singular', () => {
    expect(encode("extract URLs and IDs")).toEqual(encode("extract url id"));
    expect(encode("listCPUsNow")).toEqual(encode("list cpu now"));
    expect(encode("SMS")).toEqual(["sms"]);
  });

  it("stems plurals and tenses to the same term and drops stopwords and bare numbers", () => {
    expect(encode("files")).toEqual(encode("file"));
    expect(encode("converted")).toEqual(encode("converting"));
    expect(encode("the 42 of")).toEqual([]);
  });

  it("turns CJK runs into character bigrams", () => {
    expect(encode("必应搜索")).toEqual(["必应", "应搜", "搜索"]);
    expect(encode("图")).toEqual(["图"]);
  });

  it("drops opaque identifiers but keeps short alphanumerics", () => {
    expect(encode("device A1b2C3d4 id hXQ7qFFt")).toEqual(encode("device id"));
    expect(encode("mp3 sha256 k8s")).toEqual(["mp3", "sha256", "k8s"]);
  });

  it("strips agent phrasing from queries, and keeps a query that is only phrasing", () => {
    expect(encodeQuery("Can you find me a tool that can resize images?")).toEqual(encode("resize images"));
    expect(encodeQuery("I need to send an email")).toEqual(encode("send email"));
    expect(encodeQuery("find a tool").length).toBeGreaterThan(0);
  });

  it('regression ("what is 2^10 times 3" ranked time.convert first): spells arithmetic symbols as words, leaves dates and ranges alone', () => {
    expect(encodeQuery("what is 17% of 240")).toEqual(encode("percent"));
    expect(encodeQuery("what is 2^10 times 3")).toEqual(encode("power multiply calculate"));
    expect(encodeQuery("2**8")).toEqual(encode("power"));
    expect(encodeQuery("12 * 7 + 3")).toEqual(encode("calculate calculate"));
    expect(encodeQuery("100 / 4")).toEqual(encode("calculate"));
    expect(encodeQuery("√2")).toEqual(encode("square root"));
    expect(encodeQuery("run it 3 times")).toEqual(encode("run times"));
    expect(encodeQuery("meetings on 2026-12-01 or 3/4, open 9-5")).toEqual(encode("meetings open"));
  });
});

describe("segments", () => {
  it("splits a task into steps and leaves one capability whole", () => {
    expect(segments("Create a document, then convert it to PDF. Finally email it.")).toEqual(["Create a document", "convert it to PDF.", "email it."]);
    expect(segments("convert a Word document to PDF")).toEqual(["convert a Word document to PDF"]);
  });
});

describe("build-time expansions", () => {
  it("reaches a tool through a WordNet synonym, and only through the expansion", async () => {
    const artifact = artifactFromFiles(await emitTestArtifact());
    expect(DEFAULT_SCORER_PARAMS.synonymWeight).toBeGreaterThan(0);
    const expanded = createFinder(artifact);
    expect((await expanded.find({ query: "prognosis", min_score: 0 })).tools[0]?.name).toBe("weather.get_forecast");
    const plain = createFinder({ ...artifact, index: await buildSearchIndex(artifact, { ...DEFAULT_SCORER_PARAMS, synonymWeight: 0 }) });
    expect((await plain.find({ query: "prognosis", min_score: 0 })).tools).toEqual([]);
  });

  it("keeps a synonym below the word itself", async () => {
    const f = createFinder(artifactFromFiles(await emitTestArtifact()));
    const forecast = (await f.find({ query: "forecast", min_score: 0 })).tools[0]!;
    const prognosis = (await f.find({ query: "prognosis", min_score: 0 })).tools[0]!;
    expect(prognosis.name).toBe(forecast.name);
    expect(prognosis.score).toBeLessThan(forecast.score);
  });
});
