// Issue 27's case on a registry of one's own: a to-do family beside a few others, built through
// createFinder. "put eggs on my todo list" met todo.list in its name ("list") and todo.add only in its
// description; the request asks to add, so the action rule puts todo.add first.
import { describe, expect, it } from "vitest";
import { encode } from "../../../../../registry/contract/search-options.js";
import { smallFinder } from "./catalog.js";

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
