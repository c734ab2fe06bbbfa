// registry:pull expands `${VAR}` in --url and --header from the environment: own variables only.
import { describe, expect, it } from "vitest";
import { expandEnv, pulledVariables } from "../../../build/pull.js";

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

describe("pulledVariables (registry:pull)", () => {
  it("declares the URL's variables, and the headers' as secrets, for the family entry it writes", () => {
    expect(pulledVariables("${MCP_URL}/mcp", { Authorization: "Bearer ${MCP_TOKEN}", "X-Tenant": "${TENANT}" })).toEqual({
      MCP_URL: {},
      MCP_TOKEN: { secret: true },
      TENANT: { secret: true },
    });
    expect(pulledVariables("http://127.0.0.1:3001/mcp")).toEqual({});
  });
});
