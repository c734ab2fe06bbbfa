// registry:check's word on retired tools: a brief or a policy naming one by its exact name is a warning
// pointing at the replacement; a `replaced_by` that names no live tool is an error; the registry's tool
// format accepts `deprecated` and `result_budget_tokens` and refuses a malformed retirement.
import { describe, expect, it } from "vitest";
import { briefReferrer, deprecatedReferences, policyReferrer } from "../../../../build/validate/deprecated.js";
import { ToolDef } from "../../../../registry/contract/tool.js";

const retired = { reason: "the v1 API is shut down", since: "2026-11-01" };
const tools = [
  { name: "weather.forecast", source: "families/weather/weather.yaml" },
  { name: "weather.outlook", source: "families/weather/weather.yaml", deprecated: { ...retired, replaced_by: "weather.forecast" } },
  { name: "weather.radar", source: "families/weather/weather.yaml", deprecated: { ...retired, replaced_by: "weather.outlook" } },
  { name: "weather.alerts", source: "families/weather/weather.yaml", deprecated: { ...retired, replaced_by: "weather.sirens" } },
];

describe("deprecatedReferences", () => {
  it("warns on a brief's and a policy's exact names, not on globs", () => {
    const found = deprecatedReferences(tools, [
      briefReferrer({ file: "briefs/weather.yaml", tools: ["weather.*", "weather.outlook"] }),
      policyReferrer("policy.yaml", {
        principals: [{ allow: ["weather.forecast"] }, { allow: ["notes.*", "weather.outlook"], tool_limits: { "weather.outlook": {} } }],
      }),
    ]).filter((d) => d.severity === "warning");
    expect(found.map((d) => [d.file, d.path])).toEqual([
      ["briefs/weather.yaml", "$.tools[1]"],
      ["policy.yaml", "$.principals[1].allow[1]"],
      ["policy.yaml", '$.principals[1].tool_limits["weather.outlook"]'],
    ]);
    expect(found[0]!.message).toBe(
      "`weather.outlook` is deprecated since 2026-11-01 (the v1 API is shut down): calls to it are refused with 410; name `weather.forecast` instead",
    );
  });

  it("an error when replaced_by names no tool or a retired one", () => {
    const errors = deprecatedReferences(tools, []).filter((d) => d.severity === "error");
    expect(errors.map((d) => [d.tool, d.message])).toEqual([
      ["weather.radar", expect.stringContaining("`weather.outlook`, which is retired too")],
      ["weather.alerts", expect.stringContaining("`weather.sirens`, which is no tool in the registry")],
    ]);
  });
});

describe("the tool format", () => {
  const tool = { name: "outlook", description: "Get the outlook.", kind: "builtin", handler: "time_now" };
  it("takes deprecated and result_budget_tokens", () => {
    const parsed = ToolDef.safeParse({ ...tool, deprecated: { ...retired, replaced_by: "weather.forecast" }, result_budget_tokens: 2000 });
    expect(parsed.success).toBe(true);
  });
  it("refuses a retirement without reason or since, and a budget under 256 tokens", () => {
    expect(ToolDef.safeParse({ ...tool, deprecated: { replaced_by: "weather.forecast" } }).success).toBe(false);
    expect(ToolDef.safeParse({ ...tool, deprecated: { ...retired, when: "now" } }).success).toBe(false);
    expect(ToolDef.safeParse({ ...tool, result_budget_tokens: 100 }).success).toBe(false);
  });
});
