// The meta-tools are declared once for the registry (registry/families/toolbelt/tools.yaml) and once
// as the wire contract every entry point parses with (lambdas/contract/): the two must say the same.
import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { FIND_LIMITS, FindInput } from "../../../../lambdas/contract/find.js";
import { CALL_LIMITS, CallInput } from "../../../../lambdas/contract/call.js";
import {
  DECISION_OPTIONS,
  DECISION_OPTIONS_TOKENS,
  META_TOOL_CONTRACTS,
  metaToolDefinition,
  withoutDecisionOptions,
  type MetaToolName,
} from "../../../../lambdas/contract/meta-tools.js";
import { jsonTokens } from "../../../../build/tokens.js";
import { surfaceEntry } from "../../../../registry/contract/surface-entry.js";
import { MAX_LIMIT } from "../../../../lambdas/core/find/index.js";

const file = "registry/families/toolbelt/tools.yaml";
const declared = (parse(readFileSync(file, "utf8")) as { tools: { name: string; description: string; input_schema: unknown }[] }).tools;

describe(`${file} and lambdas/contract/meta-tools.ts`, () => {
  it("declare the same meta-tools", () => {
    expect(declared.map((t) => `toolbelt.${t.name}`).sort()).toEqual(Object.keys(META_TOOL_CONTRACTS).sort());
  });

  it.each(declared.map((t) => [t.name, t] as const))("toolbelt.%s: the same description and input schema", (name, tool) => {
    expect({ description: tool.description, input_schema: tool.input_schema }).toEqual(metaToolDefinition(`toolbelt.${name}` as MetaToolName));
  });
});

describe("the unified limits", () => {
  it("find: query up to 1,000 characters, limit up to 50 (the core caps at the same 50); call: tool up to 256", () => {
    expect(FIND_LIMITS).toMatchObject({ queryChars: 1000, maxResults: 50 });
    expect(MAX_LIMIT).toBe(FIND_LIMITS.maxResults);
    expect(CALL_LIMITS.toolChars).toBe(256);
    expect(FindInput.safeParse({ query: "q".repeat(1000), limit: 50 }).success).toBe(true);
    expect(FindInput.safeParse({ query: "q".repeat(1001) }).success).toBe(false);
    expect(FindInput.safeParse({ query: "q", limit: 51 }).success).toBe(false);
    expect(CallInput.safeParse({ tool: "t".repeat(256) }).success).toBe(true);
    expect(CallInput.safeParse({ tool: "t".repeat(257) }).success).toBe(false);
  });
});

describe("toolbelt.find without its decision-mode options", () => {
  const find = declared.find((t) => t.name === "find")!;
  const entry = surfaceEntry({ name: "toolbelt.find", description: find.description, input_schema: find.input_schema as Record<string, unknown> });
  const lean = { ...entry, input_schema: withoutDecisionOptions(entry.input_schema).schema };

  it("drops exactly those options and keeps the rest of the schema", () => {
    const props = (s: unknown) => Object.keys((s as { properties: object }).properties);
    expect(props(entry.input_schema)).toEqual(expect.arrayContaining([...DECISION_OPTIONS]));
    expect(props(lean.input_schema)).toEqual(props(entry.input_schema).filter((k) => !(DECISION_OPTIONS as readonly string[]).includes(k)));
    expect(withoutDecisionOptions(lean.input_schema)).toEqual({ schema: lean.input_schema, removed: false });
  });

  it("saves DECISION_OPTIONS_TOKENS o200k tokens on the registry's entry (what surfaces subtract from the build's count)", () => {
    expect(jsonTokens(entry) - jsonTokens(lean)).toBe(DECISION_OPTIONS_TOKENS);
  });

  it("still accepts calls that send the options (a call is validated by the whole contract)", () => {
    expect(FindInput.safeParse({ query: "q", mode: "decision", min_probability: 0.2, chunk_size: 9, model: "decider" }).success).toBe(true);
  });
});
