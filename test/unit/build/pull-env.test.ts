// registry:pull expands `${VAR}` in --url and --header from the environment: own variables only.
import { describe, expect, it } from "vitest";
import { expandEnv } from "../../../build/pull.js";

describe("expandEnv (registry:pull)", () => {
  it("substitutes set variables", () => {
    expect(expandEnv("Bearer ${TOKEN}", { TOKEN: "abc" })).toBe("Bearer abc");
  });

  it("refuses an unset variable with its name", () => {
    expect(() => expandEnv("${MISSING}", {})).toThrow("environment variable MISSING is not set");
  });

  it("regression: ${constructor} in a header was expanded to Object's source text instead of refused as unset", () => {
    // process.env inherits Object.prototype, as the default `env` of pullSnapshot does.
    expect(() => expandEnv("Bearer ${constructor}", process.env)).toThrow("environment variable constructor is not set");
    expect(() => expandEnv("${toString}", {})).toThrow("environment variable toString is not set");
  });
});
