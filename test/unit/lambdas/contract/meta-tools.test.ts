// The meta-tools are declared once for the registry (registry/families/toolbelt/tools.yaml) and once
// as the wire contract every entry point parses with (lambdas/contract/): the two must say the same.
import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { FIND_LIMITS, FindInput } from "../../../../lambdas/contract/find.js";
import { CALL_LIMITS, CallInput } from "../../../../lambdas/contract/call.js";
import {
  advertisedFindSchema,
  DECISION_OPTIONS,
  DECISION_OPTIONS_TOKENS,
  META_TOOL_CONTRACTS,
  META_TOOL_SETTINGS,
  metaToolDefinition,
  TUNING_OPTIONS,
  TUNING_OPTIONS_TOKENS,
  type MetaToolName,
} from "../../../../lambdas/contract/meta-tools.js";
import { jsonTokens } from "../../../../build/tokens.js";
import { surfaceEntry } from "../../../../registry/contract/surface-entry.js";
import { MAX_LIMIT } from "../../../../lambdas/core/find/index.js";

const file = "registry/families/toolbelt/tools.yaml";
type Declared = { name: string; description: string; input_schema: unknown; handler: string; timeout_secs?: number; read_only?: boolean; idempotent?: boolean };
const declared = (parse(readFileSync(file, "utf8")) as { tools: Declared[] }).tools;

describe(`${file} and lambdas/contract/meta-tools.ts`, () => {
  it("declare the same meta-tools", () => {
    expect(declared.map((t) => `toolbelt.${t.name}`).sort()).toEqual(Object.keys(META_TOOL_CONTRACTS).sort());
  });

  it.each(declared.map((t) => [t.name, t] as const))("toolbelt.%s: the same description and input schema", (name, tool) => {
    expect({ description: tool.description, input_schema: tool.input_schema }).toEqual(metaToolDefinition(`toolbelt.${name}` as MetaToolName));
  });

  it.each(Object.entries(META_TOOL_SETTINGS))("%s: the handler, governance and timeout a registry without it gets", (name, settings) => {
    const tool = declared.find((t) => `toolbelt.${t.name}` === name)!;
    const governance = Object.fromEntries((["read_only", "idempotent"] as const).filter((k) => tool[k] !== undefined).map((k) => [k, tool[k]]));
    expect({ handler: tool.handler, governance, timeout_ms: (tool.timeout_secs ?? 60) * 1000 }).toEqual(settings);
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

describe("toolbelt.find as surfaces advertise it", () => {
  const find = declared.find((t) => t.name === "find")!;
  const entry = surfaceEntry({ name: "toolbelt.find", description: find.description, input_schema: find.input_schema as Record<string, unknown> });
  const advertised = (decisionMode: boolean) => {
    const { schema, savedTokens } = advertisedFindSchema(entry.input_schema, decisionMode);
    return { entry: { ...entry, input_schema: schema }, savedTokens };
  };
  const props = (s: unknown) => Object.keys((s as { properties: object }).properties);
  const without = (names: readonly string[]) => props(entry.input_schema).filter((k) => !names.includes(k));

  it("leaves out the tuning options always and the decision-mode options without a decider, and keeps the rest of the schema", () => {
    expect(props(entry.input_schema)).toEqual(expect.arrayContaining([...DECISION_OPTIONS, ...TUNING_OPTIONS]));
    expect(props(advertised(true).entry.input_schema)).toEqual(without(TUNING_OPTIONS));
    expect(props(advertised(false).entry.input_schema)).toEqual(without([...TUNING_OPTIONS, ...DECISION_OPTIONS]));
    const lean = advertised(false).entry.input_schema;
    expect(advertisedFindSchema(lean, false)).toEqual({ schema: lean, savedTokens: 0 });
  });

  it("saves TUNING_OPTIONS_TOKENS and DECISION_OPTIONS_TOKENS o200k tokens on the registry's entry (what surfaces subtract from the build's count)", () => {
    for (const decisionMode of [true, false]) {
      const { entry: lean, savedTokens } = advertised(decisionMode);
      expect(savedTokens).toBe(TUNING_OPTIONS_TOKENS + (decisionMode ? 0 : DECISION_OPTIONS_TOKENS));
      expect(jsonTokens(entry) - jsonTokens(lean), `decider ${decisionMode}`).toBe(savedTokens);
    }
  });

  it("still accepts calls that send the options (a call is validated by the whole contract)", () => {
    expect(FindInput.safeParse({ query: "q", mode: "decision", min_probability: 0.2, chunk_size: 9, model: "decider" }).success).toBe(true);
    expect(FindInput.safeParse({ query: "q", min_score: 0.5, explain: true }).success).toBe(true);
  });
});
