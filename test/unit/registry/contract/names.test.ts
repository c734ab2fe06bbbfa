// The model-safe projection: every full name gets one name that function-calling APIs accept.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MODEL_NAME_RE, TOOL_NAME_RE, canonicalName, modelName } from "../../../../registry/contract/names.js";

const fullNames = fc
  .tuple(fc.stringMatching(/^[a-z][a-z0-9_-]{0,20}$/), fc.stringMatching(/^[A-Za-z][A-Za-z0-9_.-]{0,110}$/))
  .map(([family, verb]) => `${family}.${verb}`)
  .filter((n) => TOOL_NAME_RE.test(n));

describe("modelName", () => {
  it("replaces the dot and keeps everything else", () => {
    expect(modelName("git.log")).toBe("git_log");
    expect(modelName("everything.get-sum")).toBe("everything_get-sum");
    expect(modelName("Notes.Search.v2")).toBe("Notes_Search_v2");
  });

  it("shortens a name over 64 characters to 55 of them, `_` and 8 hex characters of its SHA-256", () => {
    const name = `reports.${"x".repeat(100)}`;
    expect(modelName(name)).toMatch(/^reports_x{47}_[0-9a-f]{8}$/);
    expect(modelName(`reports.${"x".repeat(101)}`)).not.toBe(modelName(name));
  });

  it("property: always matches ^[a-zA-Z0-9_-]{1,64}$, deterministically; unshortened, it is the name's separator variant", () => {
    fc.assert(
      fc.property(fullNames, (name) => {
        const m = modelName(name);
        expect(m).toMatch(MODEL_NAME_RE);
        expect(modelName(name)).toBe(m);
        if (name.length <= 64) expect(canonicalName(m)).toBe(canonicalName(name));
      }),
      { numRuns: 1000 },
    );
  });
});
