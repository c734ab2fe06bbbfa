import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeArtifact } from "../../../../../build/artifact.js";
import { artifactFromFiles, loadArtifact, type Artifact } from "../../../../../lambdas/artifact.js";
import { createFinder, DEFAULT_MIN_SCORE } from "../../../../../lambdas/core/find/index.js";
import type { CatalogTool } from "../../../../../registry/contract/artifact.js";
import type { Finder } from "../../../../../lambdas/core/find/types.js";
import { emitTestArtifact, smallFinder } from "./catalog.js";

let artifact: Artifact;
let finder: Finder;
const top = async (query: string, extra: Record<string, unknown> = {}) => (await finder.find({ query, schemas: false, ...extra })).tools.map((t) => t.name);

beforeAll(async () => {
  artifact = artifactFromFiles(await emitTestArtifact());
  finder = createFinder(artifact);
});

describe("ranking", () => {
  it.each([
    ["weather forecast for Paris", "weather.get_forecast"],
    ["read the contents of a file", "files.read_file"],
    ["send an email to my boss", "mail.send_email"],
    ["latest stock quote for AAPL", "stocks.get_share_price"],
    ["create a calendar event tomorrow at 10", "calendar.createEvent"],
  ])("ranks the obvious tool first for %j", async (query, expected) => {
    expect((await top(query))[0]).toBe(expected);
  });

  it("forgives typos through the FlexSearch vocabulary", async () => {
    expect((await top("wether forcast"))[0]).toBe("weather.get_forecast");
    expect((await top("calender evnt"))[0]).toBe("calendar.createEvent");
  });

  it("matches plurals and tenses", async () => {
    expect((await top("sending emails"))[0]).toBe("mail.send_email");
    expect((await top("converted documents"))[0]).toBe("docs.convertToPdf");
    expect((await top("listing directories"))[0]).toBe("files.list_directory");
  });

  it("splits camelCase, snake_case and dotted names into words", async () => {
    expect((await top("search inbox"))[0]).toBe("mail.searchInbox");
    expect((await top("convert to pdf"))[0]).toBe("docs.convertToPdf");
    expect((await top("share price"))[0]).toBe("stocks.get_share_price");
  });

  it("strips agent phrasing", async () => {
    expect((await top("Find a tool that can list the entries of a directory"))[0]).toBe("files.list_directory");
    expect((await top("I need to write text into a file"))[0]).toBe("files.write_file");
  });

  it("finds tools described in Chinese with a Chinese query (character bigrams)", async () => {
    expect((await top("必应搜索关键词"))[0]).toBe("bing.bing_search");
  });

  it("finds a tool by an alias or an example its author wrote, words its description does not contain", async () => {
    expect((await top("how much RAM is left"))[0]).toBe("system.memory");
    expect((await top("feet in a mile", { min_score: 0 }))[0]).toBe("system.quantity");
  });

  it("explains per tool which query words matched, in which fields, and through which word an expansion reached", async () => {
    const r = await finder.find({ query: "how much RAM is left", schemas: false, explain: true, limit: 1 });
    expect(r.tools[0]).toMatchObject({ name: "system.memory", explain: [{ word: "ram", fields: ["aliases"] }] });
    const typo = await finder.find({ query: "wether forcast", schemas: false, explain: true, limit: 1 });
    expect(typo.tools[0]!.explain).toEqual([
      { word: "wether", fields: ["description", "family"], expansion: "weather" },
      { word: "forcast", fields: ["name", "description", "family"], expansion: "forecast" },
    ]);
    const exact = await finder.find({ query: "files.write_file", schemas: false, explain: true, limit: 1 });
    expect(exact.tools[0]).toMatchObject({ name: "files.write_file", explain: [{ word: "files.write_file", fields: ["name"] }] });
    expect((await finder.find({ query: "how much RAM is left", schemas: false, limit: 1 })).tools[0]).not.toHaveProperty("explain");
  });

  it("returns a tool named exactly first, with score 1", async () => {
    const r = await finder.find({ query: "files.write_file" });
    expect(r.tools[0]).toMatchObject({ name: "files.write_file", score: 1 });
    expect((await top("write-file"))[0]).toBe("files.write_file");
  });
});

type Hints = Pick<CatalogTool, "aliases" | "examples">;

describe("stray matches of everyday requests", () => {
  const reach = async (f: Finder, query: string, family: string) => (await f.find({ query, schemas: false, min_score: 0, family })).tools.map((t) => t.name);

  it("swim ten laps in the pool: a number word is an amount, like a bare digit, and matches no tool", async () => {
    const f = await smallFinder({ "search.top": "Return the top ten results of a web search.", "weather.forecast": "Weather for the next days." });
    expect(await reach(f, "swim ten laps in the pool", "search")).toEqual([]);
    expect(await reach(f, "top 10 search results", "search")).toEqual(["search.top"]);
  });

  // "lose five kilos before summer" reached a summarize tool through the typo match summer → summar(ize): an
  // everyday English word the catalog lacks is meant as written (docs/find-decisions.md, "Session 15").
  it("reads an everyday English word as meant, not as a misspelling: summer does not reach summarize, sumarize does", async () => {
    const f = await smallFinder({
      "writing.summarize": "Summarize a text into a few sentences.",
      "weather.get_forecast": "Weather forecast for the next days.",
    });
    expect(await reach(f, "lose weight before summer", "writing")).toEqual([]);
    expect(await reach(f, "sumarize this text", "writing")).toEqual(["writing.summarize"]);
  });

  it("lets an everyday English word reach another form of itself, not another word spelt alike: time → timer, not tile", async () => {
    const f = await smallFinder({ "kitchen.timer": "Start a countdown timer.", "windows.tile": "Tile the open windows side by side." });
    expect((await f.find({ query: "how much time is left", schemas: false, min_score: 0 })).tools.map((t) => t.name)).toEqual(["kitchen.timer"]);
  });
});

describe("an example's phrase", () => {
  it("square root of 1764: a request saying an example's phrase beats a tool with the same words apart", async () => {
    const f = await smallFinder({
      "math.evaluate": { description: "Calculate an arithmetic expression.", examples: ["what's the square root of 2"] },
      "land.area": "Area of a square plot measured from the root marker of a survey.",
    });
    const ranked = (await f.find({ query: "square root of 1764", schemas: false, min_score: 0 })).tools.map((t) => t.name);
    expect(ranked).toEqual(["math.evaluate", "land.area"]);
  });
});

describe("stray matches on tools with search hints", () => {
  const archive = "Move a note out of the list into the archive, like leaves raked off a lawn, kept searchable.";
  const hints: Hints = { aliases: ["hide note", "shelve note"], examples: ["archive my shopping list note"] };
  const shown = async (f: Finder, query: string) => (await f.find({ query, schemas: false })).tools.map((t) => t.name);

  it("rake the leaves: a request that hits only description words of a tool with hints answers none", async () => {
    const f = await smallFinder({ "notes.archive": { description: archive, ...hints }, "weather.forecast": "Weather for the next days." });
    expect(await shown(f, "rake the leaves")).toEqual([]);
    // Ranked still, only below the default bar; a request in the author's words is shown.
    expect((await f.find({ query: "rake the leaves", schemas: false, min_score: 0 })).tools[0]?.name).toBe("notes.archive");
    expect(await shown(f, "shelve the note about the lawn")).toEqual(["notes.archive"]);
  });

  // "sumarize this text for me" answered none on the example registry: the typo match of the authored word
  // *summarize* counted as a stray. The analyser gives typo matches only to words meant otherwise: one is the word meant.
  it("regression (a misspelt request answered none): a typo match of an authored word meets it", async () => {
    const f = await smallFinder({ "notes.archive": { description: archive, ...hints }, "weather.forecast": "Weather for the next days." });
    expect(await shown(f, "archve it")).toEqual(["notes.archive"]);
  });

  it("an authored word met through a synonym spelt alike is still a stray: pink → ping is WordNet's, not a typo", async () => {
    const f = await smallFinder({
      "net.ping": { description: "Send an ICMP echo to a host and report the round trip.", aliases: ["ping host"], examples: ["is the server up"] },
      "weather.forecast": "Weather for the next days.",
    });
    const rules = async (query: string) => ((await f.find({ query, schemas: false, explain: true, min_score: 0 })).verdict_reasons ?? []).map((r) => r.rule);
    expect(await rules("pink")).toContain("hint-stray");
    expect(await rules("pnig the host")).not.toContain("hint-stray");
  });

  it("regression (a request bringing its text answered none): the text a request brings is input for a top tool that takes a text", async () => {
    // A tool without hints (the verdict's model judges it; a tool with hints is judged by its author's words, below).
    const replace = { description: "Replace every occurrence of a word in a text." };
    const input = (name: string) => ({ type: "object", properties: { [name]: { type: "string" }, find: { type: "string" } } });
    const query = "swap the word colour for color in the following paragraph";
    const withText = await smallFinder({ "text.replace": { ...replace, input_schema: input("text") }, "weather.forecast": "Weather for the next days." });
    const without = await smallFinder({ "text.replace": { ...replace, input_schema: input("value") }, "weather.forecast": "Weather for the next days." });
    expect(await shown(withText, query)).toEqual(["text.replace"]);
    // The same tool without a text input: "the following paragraph" says the agent has the words and needs no tool.
    expect(await shown(without, query)).toEqual([]);
  });

  it("regression (the verdict's model hid right tools with hints): a top tool with hints is judged by its author's words, not the model", async () => {
    // The model's "the following paragraph" sign (fitted on catalogs without hints) does not lower a tool whose author wrote how users ask.
    const replace = { description: "Replace every occurrence of a word in a text.", aliases: ["find and replace"], examples: ["swap one name for another"] };
    const input = { type: "object", properties: { value: { type: "string" }, find: { type: "string" } } };
    const f = await smallFinder({ "text.replace": { ...replace, input_schema: input }, "weather.forecast": "Weather for the next days." });
    expect(await shown(f, "swap the word colour for color in the following paragraph")).toEqual(["text.replace"]);
    // Its author's words still judge it: a request that meets none of them answers none.
    expect(await shown(f, "every occurrence in the following paragraph")).toEqual([]);
  });

  it("ram the car into the ditch: one word met on a tool with hints, another foreign to the catalog, answers none", async () => {
    expect(await shown(finder, "ram the car into the ditch")).toEqual([]);
    // Everyday filler beside the word ("much", "left") is not foreign: the request is for the tool.
    expect(await shown(finder, "how much RAM is left")).toEqual(["system.memory"]);
    expect(await shown(createFinder(artifact, { query: { hintOneHit: 1 } }), "ram the car into the ditch")).toEqual(["system.memory"]);
  });

  it("regression (a file name answered none): data the request brings (a file name, quoted text) is not a foreign word", async () => {
    // "what's in the first 20 lines of setup.py" answered none: "py" counted as a word outside the catalog.
    expect(await shown(finder, "RAM of zorblax.py")).toEqual(["system.memory"]);
    expect(await shown(finder, "RAM of 'zorblax'")).toEqual(["system.memory"]);
    expect(await shown(finder, "RAM of zorblax")).toEqual([]);
    // The input after a label is data too.
    expect(await shown(finder, "RAM: zorblax")).toEqual(["system.memory"]);
  });

  it("order a pizza: one word met outside a tool's name and aliases, another specific word left unmatched, answers none", async () => {
    const specs = {
      "random.shuffle": { description: "Return the items of a list in a random order.", aliases: ["shuffle"], examples: ["put these names in a random order"] },
      "kitchen.recipes": { description: "Recipes for dinner: soup, salad or pizza dough.", aliases: ["recipe"], examples: ["how do I make soup"] },
    };
    const f = await smallFinder(specs);
    expect(await shown(f, "order a pizza")).toEqual([]);
    expect((await f.find({ query: "order a pizza", schemas: false, min_score: 0 })).tools[0]?.name).toBe("random.shuffle");
    expect((await shown(await smallFinder(specs, { hintOneHit: 1 }), "order a pizza"))[0]).toBe("random.shuffle");
    // A word the tool is named by (an alias) is the capability asked for, whatever else the request says.
    expect((await shown(f, "shuffle a pizza"))[0]).toBe("random.shuffle");
  });

  it("get me the latest bitcoin price: a request met in everyday words only, naming something the catalog lacks, answers none", async () => {
    const specs = {
      "kv.read": { description: "Read the value stored under a key.", aliases: ["key lookup"], examples: ["get the value of the counter"] },
      "notes.list": { description: "List the notes.", aliases: ["my notes"], examples: ["show all my notes"] },
      "time.now": { description: "The current time in a city.", aliases: ["clock"], examples: ["what time is it in Tokyo"] },
    };
    const f = await smallFinder(specs);
    expect(await shown(f, "get me the latest bitcoin price")).toEqual([]);
    expect((await f.find({ query: "get me the latest bitcoin price", schemas: false, min_score: 0 })).tools[0]?.name).toBe("kv.read");
    // The rule is what lowers it: off, the tool keeps its retrieval score and the verdict names no everyday rule.
    const judged = async (g: Finder) => await g.find({ query: "get me the latest bitcoin price", schemas: false, min_score: 0, explain: true, limit: 1 });
    const [on, off] = [await judged(f), await judged(await smallFinder(specs, { hintEveryday: 1 }))];
    expect(on.verdict_reasons?.map((r) => r.rule)).toContain("everyday-words");
    expect(off.verdict_reasons?.map((r) => r.rule)).not.toContain("everyday-words");
    expect(off.tools[0]!.score).toBeGreaterThan(on.tools[0]!.score / 0.6 - 1e-3);
    // The unknown word after a preposition, or a capitalized one, is what the request brings: the tool is asked for.
    expect(await shown(f, "get the latest value for bitcoin")).toEqual(["kv.read"]);
    expect(await shown(f, "get me the latest Bitcoin value")).toEqual(["kv.read"]);
  });

  it("hike along the coast: in a catalog whose tools mostly have hints, a tool without them is held to the same rules", async () => {
    const hinted = {
      "notes.archive": { description: archive, ...hints },
      "weather.forecast": { description: "Weather for the next days.", aliases: ["forecast"], examples: ["will it rain tomorrow"] },
    };
    const demo = "Returns structured content along with an output schema for client data validation.";
    const f = await smallFinder({ ...hinted, "demo.structured": demo });
    expect(await shown(f, "hike along the coast")).toEqual([]);
    // Its own name still counts as its author's word.
    expect(await shown(f, "structured content along the coast")).toEqual(["demo.structured"]);
  });

  it("leaves tools without hints (imported catalogs) and hintStray 1 as before", async () => {
    const bare = await smallFinder({ "notes.archive": archive, "weather.forecast": "Weather for the next days." });
    expect(await shown(bare, "rake the leaves")).toEqual(["notes.archive"]);
    const off = await smallFinder({ "notes.archive": { description: archive, ...hints }, "weather.forecast": "Weather for the next days." }, { hintStray: 1 });
    expect(await shown(off, "rake the leaves")).toEqual(["notes.archive"]);
  });
});

describe("result contract", () => {
  it("scores lie in [0,1], best first, and respect the limit", async () => {
    const r = await finder.find({ query: "file directory path text", limit: 3, min_score: 0 });
    expect(r.mode).toBe("keyword");
    expect(r.tools.length).toBe(3);
    const scores = r.tools.map((t) => t.score);
    for (const s of scores) expect(s).toBeGreaterThan(0), expect(s).toBeLessThanOrEqual(1);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
  });

  it("answers none, with an empty list, for a query that matches nothing", async () => {
    const r = await finder.find({ query: "qzxv blorptang frumious" });
    expect(r).toMatchObject({ verdict: "none", tools: [] });
  });

  it("regression (a bare none kept agents searching for a tool that does not exist): a none answer says to go on without one; a match carries no such note", async () => {
    expect((await finder.find({ query: "qzxv blorptang frumious" })).note).toMatch(/^No tool you may call fits this request: do it without a tool/);
    const match = await finder.find({ query: "file directory path text", limit: 3, min_score: 0 });
    expect(match.verdict).toBe("match");
    expect(match.note ?? "").not.toMatch(/No tool you may call/);
  });

  it("regression (a shown score rounds up): sending a result's own score back as min_score keeps that tool; nothing above it does", async () => {
    const q = { query: "humidity" };
    const score = (await finder.find({ ...q, min_score: 0 })).tools[0]!.score;
    expect((await finder.find({ ...q, min_score: score + 0.01 })).verdict).toBe("none");
    expect((await finder.find({ ...q, min_score: score })).verdict).toBe("match");
    expect(DEFAULT_MIN_SCORE).toBeGreaterThan(0);
  });

  it("prunes only tools that cannot reach min_score (same results as ranking everything)", async () => {
    for (const query of ["file text path directory", "weather email document event", "get the latest price", "create a new file"]) {
      for (const min_score of [0.2, 0.3, DEFAULT_MIN_SCORE, 0.5]) {
        const all = (await finder.find({ query, limit: 100, min_score: 0 })).tools.filter((t) => t.score >= min_score);
        expect((await finder.find({ query, min_score })).tools).toEqual(all.slice(0, 10));
      }
    }
  });

  it("includes schemas unless schemas is false", async () => {
    const withSchemas = await finder.find({ query: "share price", limit: 1 });
    expect(withSchemas.tools[0]).toMatchObject({
      name: "stocks.get_share_price",
      input_schema: { type: "object" },
      output_schema: { properties: { price: { type: "number" } } },
    });
    for (const schemas of [false, "none"] as const) {
      const without = await finder.find({ query: "share price", limit: 1, schemas });
      expect(without.tools[0]).not.toHaveProperty("input_schema");
      expect(without.tools[0]).not.toHaveProperty("output_schema");
      expect(without.always).toBeUndefined();
    }
  });

  it("by default gives schemas to the best 3 results above the default min_score only, the rest a name and one line; all (or true) gives every one", async () => {
    const query = "read the contents of a file";
    const top = await finder.find({ query, min_score: 0 });
    expect(top.tools.length).toBeGreaterThan(4);
    top.tools.forEach((t, i) => expect("input_schema" in t, `${i}: ${t.name} ${t.score}`).toBe(i < 3 && t.score >= 0.4));
    for (const schemas of [true, "all"] as const) {
      const all = await finder.find({ query, min_score: 0, schemas });
      expect(all.tools.map((t) => t.name)).toEqual(top.tools.map((t) => t.name));
      expect(all.tools.every((t) => "input_schema" in t)).toBe(true);
      expect(all.always?.map((t) => t.name)).toEqual(["builtin.infer", "builtin.reshape"]);
      expect(all.always?.every((t) => "input_schema" in t)).toBe(true);
      // A result without its schema keeps the first sentence of its description.
      const lean = top.tools.find((t) => !("input_schema" in t))!;
      expect(all.tools.find((t) => t.name === lean.name)!.description.startsWith(lean.description.replace(/…$/, ""))).toBe(true);
    }
    expect(top.always).toBeUndefined();
  });
});

describe("scope, grants and always-loaded tools", () => {
  it("scopes to one family", async () => {
    const r = await finder.find({ query: "search messages file", family: "mail", min_score: 0 });
    expect(r.tools.length).toBeGreaterThan(0);
    expect(r.tools.every((t) => t.family === "mail")).toBe(true);
  });

  it("never shows a tool the grant filter refuses, in results or in always", async () => {
    const granted = (name: string) => !name.startsWith("files.") && name !== "builtin.infer";
    const r = await finder.find({ query: "read the contents of a file", min_score: 0, schemas: "all" }, granted);
    expect(r.tools.some((t) => t.name.startsWith("files."))).toBe(false);
    expect(r.always?.map((t) => t.name)).toEqual(["builtin.reshape"]);
    expect(finder.alwaysLoaded(granted)).toEqual(["builtin.reshape"]);
  });

  it("with a grant filter, returns exactly the granted part of the full ranking", async () => {
    const all = artifact.tools.map((t) => t.name);
    for (let seed = 1; seed <= 20; seed++) {
      const allowed = new Set(all.filter((_, i) => (i * 7 + seed * 13) % 5 < 2 + (seed % 3)));
      const granted = (n: string) => allowed.has(n);
      for (const query of ["file text path", "weather email document", "create"]) {
        const full = (await finder.find({ query, limit: 100, min_score: 0, schemas: "all" })).tools.filter((t) => granted(t.name));
        const got = await finder.find({ query, limit: 2, min_score: 0, schemas: "all" }, granted);
        expect(got.tools).toEqual(full.slice(0, 2));
      }
    }
  });

  it("returns always-loaded tools beside the results and never ranks them", async () => {
    const r = await finder.find({ query: "summarize text with a model", min_score: 0, schemas: "all" });
    expect(r.tools.some((t) => t.family === "builtin")).toBe(false);
    expect(r.always?.map((t) => t.name)).toEqual(["builtin.infer", "builtin.reshape"]);
  });

  it("regression (a file called invoice answered toolbelt.call): never ranks find and call, which every surface shows", async () => {
    const f = await smallFinder({
      "toolbelt.find": "Find tools for one capability, best first, with their input schemas.",
      "toolbelt.call": "Call a tool by name.",
      "toolbelt.reshape": "Reshape a JSON value into a smaller object by picking fields with paths.",
      "files.find": "Find files under a folder whose names match a pattern.",
    });
    const names = async (query: string) => (await f.find({ query, min_score: 0, schemas: false })).tools.map((t) => t.name);
    expect(await names("is there a file called invoice")).toEqual(["files.find"]);
    expect(await names("toolbelt.call")).not.toContain("toolbelt.call");
    // Only find and call: reshape, when not always loaded, is a tool like any other.
    expect(await names("reshape this json")).toEqual(["toolbelt.reshape"]);
  });

  it("takes a configured always-loaded list (names or globs) in place of the registry's", async () => {
    const f = createFinder(artifact, { alwaysLoaded: ["weather.*"] });
    const r = await f.find({ query: "weather forecast", min_score: 0, schemas: "all" });
    expect(r.always?.map((t) => t.name)).toEqual(["weather.current_conditions", "weather.get_forecast"]);
    expect(r.tools.some((t) => t.family === "weather")).toBe(false);
    expect((await f.find({ query: "summarize text with a model" })).tools[0]?.name).toBe("builtin.infer");
  });
});

describe("artifact round trip", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "toolbelt-find-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("is byte-identical for identical input", async () => {
    expect(await emitTestArtifact()).toEqual(await emitTestArtifact());
  });

  it("gives the same results after export to disk and import", async () => {
    await writeArtifact(dir, await emitTestArtifact());
    const loaded = createFinder(loadArtifact(dir), { eagerFuzzy: true });
    for (const query of ["wether forcast", "sending emails", "必应搜索", "convert to pdf", "qzxv blorptang"]) {
      expect(await loaded.find({ query, min_score: 0 })).toEqual(await finder.find({ query, min_score: 0 }));
    }
  });

  it("refuses an index that does not match the catalog", () => {
    expect(() => createFinder({ ...artifact, tools: artifact.tools.slice(1) })).toThrow(/rebuild/);
  });
});
