import { describe, expect, it } from "vitest";
import { manifestEntry, shortDescription, surfaceEntry, withoutExamples } from "../../../registry/contract/surface-entry.js";

describe("surface entries", () => {
  it("leave out examples at any depth but keep a property that is named examples, and every other keyword", () => {
    const schema = {
      type: "object",
      required: ["examples"],
      properties: {
        examples: { type: "array", items: { type: "string", examples: ["x"] }, examples: [["x"]] },
        mode: { enum: ["a", "b"], default: "a", examples: ["a"] },
        nested: {
          anyOf: [
            { type: "string", examples: ["s"] },
            { type: "object", additionalProperties: { type: "integer", examples: [1] } },
          ],
        },
      },
      $defs: { d: { type: "string", examples: ["d"] } },
      examples: [{ examples: ["x"] }],
    };
    expect(withoutExamples(schema)).toEqual({
      type: "object",
      required: ["examples"],
      properties: {
        examples: { type: "array", items: { type: "string" } },
        mode: { enum: ["a", "b"], default: "a" },
        nested: { anyOf: [{ type: "string" }, { type: "object", additionalProperties: { type: "integer" } }] },
      },
      $defs: { d: { type: "string" } },
    });
    expect(schema.properties.mode.examples).toEqual(["a"]); // the catalog's schema is left as it is
    expect(surfaceEntry({ name: "a.b", description: "D.", input_schema: schema }).input_schema).toEqual(withoutExamples(schema));
  });

  it("shorten a family to its first sentence, cut at a word, and three verbs", () => {
    expect(shortDescription("Does one thing. And another.")).toBe("Does one thing.");
    expect(shortDescription(`Words ${"word ".repeat(40)}end.`, 30)).toBe("Words word word word word…");
    expect(shortDescription("Version 1.5 of the thing")).toBe("Version 1.5 of the thing");
    expect(manifestEntry({ name: "f", description: "F.", examples: ["z"] }, ["f.a", "f.b", "f.c", "f.z"])).toEqual({
      name: "f",
      description: "F.",
      tool_count: 4,
      examples: ["z", "a", "b"],
    });
  });
});
