// Issue 27's case on a registry of one's own: a to-do family beside a few others, built through
// createFinder. "put eggs on my todo list" met todo.list in its name ("list") and todo.add only in its
// description; the request asks to add, so the action rule puts todo.add first.
import { describe, expect, it } from "vitest";
import { encode } from "../../../../../registry/contract/search-options.js";
import { smallFinder } from "./catalog.js";
import { artifactFromFiles } from "../../../../../lambdas/artifact.js";
import { createFinder } from "../../../../../lambdas/core/find/index.js";
import { emitArtifact } from "../../../../../build/artifact.js";
import { catalogFromJsonl, parseJsonl } from "../../../../../build/sources/jsonl.js";
import { readFileSync } from "node:fs";

const REGISTRY = {
  "todo.add": "Add an item to the to-do list.",
  "todo.list": "List the items on the to-do list.",
  "todo.done": "Mark an item of the todo list as done.",
  "todo.remove": "Remove an item from the to-do list.",
  "weather.forecast": "Get the weather forecast for a city.",
  "notes.create": "Create a note with a title and text.",
  "mail.send": "Send an email to a contact.",
  "calendar.list_events": "List the events in the calendar for a day.",
  "files.read": "Read a text file.",
  "math.sum": "Add numbers together.",
};

describe("a to-do family in a registry of one's own (issue 27)", () => {
  it("put eggs on my todo list: todo.add first and a match, where the words alone put todo.list first", async () => {
    // Prepare
    const [wired, wordsOnly] = [await smallFinder(REGISTRY), await smallFinder(REGISTRY, { actionPenalty: 0 })];
    const query = "put eggs on my todo list";
    // Act
    const [r, before] = [await wired.find({ query, schemas: false, explain: true }), await wordsOnly.find({ query, min_score: 0, schemas: false })];
    // Assess
    expect(before.tools[0]!.name).toBe("todo.list");
    expect(r.verdict).toBe("match");
    expect(r.tools[0]!.name).toBe("todo.add");
    const list = r.tools.find((t) => t.name === "todo.list");
    if (list)
      expect(list.rules).toContainEqual(expect.objectContaining({ stage: "rerank", rule: "action", detail: "the request asks to create; this tool reads" }));
  });

  it("show my todo list: the list stays first (a read asks for the reading tool)", async () => {
    const r = await (await smallFinder(REGISTRY)).find({ query: "show my todo list", schemas: false });
    expect(r.tools[0]!.name).toBe("todo.list");
  });

  it("reads a hyphenated word with a function-word or one-letter part as one word too: 'todo' meets 'to-do'", () => {
    expect(encode("Add an item to the to-do list.")).toEqual(["add", "item", "todo", "list"]);
    expect(encode("send an e-mail")).toEqual(["send", "mail", "email"]);
    expect(encode("check-in at the hotel")).toContain("checkin");
    // Two content words stay two words, as in a tool name.
    expect(encode("get-booking")).toEqual(["get", "book"]);
  });
});

// A new user's registry (test/eval/sets/todo/tools.jsonl): registry:init's template families, a to-do family
// and a calendar, each tool with an example as the template writes them. Built as a deployment builds it.
const TODO_SET = "test/eval/sets/todo/tools.jsonl";
const loadRows = () => parseJsonl(readFileSync(TODO_SET, "utf8")).tools;
const finderOf = async (rows = loadRows(), query = {}) => {
  const catalog = catalogFromJsonl(rows, { source: TODO_SET });
  return createFinder(artifactFromFiles(await emitArtifact({ families: catalog.families, tools: catalog.tools, always_loaded: [] })), { query });
};

describe("reminders in a new user's to-do registry (issue 27)", () => {
  it.each(["remind me to call mom", "remind me to water the plants", "create a reminder to water the plants"])("%s: a match, todo.add first", async (query) => {
    // Act
    const r = await (await finderOf()).find({ query, schemas: false, explain: true });
    // Assess
    expect(r.verdict).toBe("match");
    expect(r.tools[0]!.name).toBe("todo.add");
  });

  it("the one-word rule holds back when the words the tool does not meet are what the request hands it, and says so", async () => {
    const r = await (await finderOf()).find({ query: "remind me to water the plants", schemas: false, explain: true });
    expect(r.verdict_reasons).toContainEqual(
      expect.objectContaining({ stage: "judge", rule: "request-input", effect: "×1.00", detail: expect.stringContaining('("plant")') }),
    );
    expect(r.verdict_reasons!.some((x) => x.rule === "one-word")).toBe(false);
  });

  it("still fires when what the request asks for is missing: the asked-for object is not the tool's", async () => {
    // Prepare: "remind" is todo.add's; what is asked ("dishwasher", "pizza") no tool meets.
    const f = await finderOf();
    for (const query of ["order a pizza", "water the plants", "load the washing machine", "send flowers to mom", "buy eggs at the market"]) {
      // Act
      const r = await f.find({ query, schemas: false });
      // Assess
      expect(r.verdict, query).toBe("none");
    }
  });

  it("create a reminder: the object rule lowers calendar.create_event, which met only the action word", async () => {
    const [wired, off] = [await finderOf(), await finderOf(undefined, { objectPenalty: 0 })];
    const query = "create a reminder to water the plants";
    const before = await off.find({ query, min_score: 0, schemas: false });
    const r = await wired.find({ query, min_score: 0, schemas: false, explain: true });
    expect(before.tools[0]!.name).toBe("calendar.create_event");
    expect(r.tools[0]!.name).toBe("todo.add");
    const calendar = r.tools.find((t) => t.name === "calendar.create_event")!;
    expect(calendar.rules).toContainEqual(expect.objectContaining({ stage: "rerank", rule: "object", effect: "×0.60" }));
  });

  it("water the plants against a calendar-only registry: none, reminder or not", async () => {
    const rows = loadRows().filter((t) => t.family === "calendar");
    const f = await finderOf(rows);
    for (const query of ["water the plants", "remind me to water the plants"]) expect((await f.find({ query, schemas: false })).verdict, query).toBe("none");
  });

  it("put eggs on my todo list and book a train seat keep their answers", async () => {
    const f = await finderOf();
    const eggs = await f.find({ query: "put eggs on my todo list", schemas: false });
    expect(eggs.verdict).toBe("match");
    expect(eggs.tools[0]!.name).toBe("todo.add");
    // No booking tool here: none.
    expect((await f.find({ query: "book a train seat", schemas: false })).verdict).toBe("none");
  });
});
