// Schema limits are measured without recursion: a value nested 100,000 levels deep is refused, not a stack overflow.
import { describe, expect, it } from "vitest";
import { checkInputSchema } from "../../../build/validate/json-schema.js";
import { DEFAULT_SCHEMA_LIMITS, nestedDeeperThan } from "../../../build/validate/schema-limits.js";

const nested = (levels: number) => JSON.parse(`${'{"type":"object","properties":{"a":'.repeat(levels)}{"type":"string"}${"}}".repeat(levels)}`) as unknown;

describe("schema limits", () => {
  it("count objects and arrays, the schema itself being level 1", () => {
    expect(nestedDeeperThan({ type: "string" }, 1)).toBe(false);
    expect(nestedDeeperThan({ enum: [[1]] }, 2)).toBe(true);
    expect(nestedDeeperThan(nested(15), 32)).toBe(false);
    expect(nestedDeeperThan(nested(16), 32)).toBe(true);
  });

  it("refuse a 100,000-level schema before any recursive walk", () => {
    expect(checkInputSchema(nested(100_000), ["inputSchema"])).toEqual([
      {
        code: "SCHEMA_INVALID",
        at: ["inputSchema"],
        message: `the schema is nested deeper than ${DEFAULT_SCHEMA_LIMITS.maxDepth} levels (TOOLBELT_MAX_SCHEMA_DEPTH): flatten it, or raise the limit if an agent really needs it`,
      },
    ]);
  });

  it("take other limits as an option", () => {
    expect(checkInputSchema(nested(2), ["s"], "lenient", { maxBytes: 10, maxDepth: 32 })[0]?.message).toMatch(/more than 10 \(TOOLBELT_MAX_SCHEMA_BYTES\)/);
    expect(checkInputSchema(nested(20), ["s"], "lenient", { maxBytes: 1e6, maxDepth: 64 })).toEqual([]);
  });
});
