// The MCP tools/list: fixed per principal and brief, model-safe names, governance as annotations,
// call_tool's `tool` a plain string, find_tool's decision-mode options only with a decider.
import { describe, expect, it } from "vitest";
import type { Caller } from "../../../../lambdas/core/ports.js";
import { DECISION_OPTIONS, metaToolDefinition, TUNING_OPTIONS } from "../../../../lambdas/contract/meta-tools.js";
import { annotationsOf, createToolLists } from "../../../../lambdas/mcp/tools.js";
import { UNAVAILABLE_HANDLER } from "../../../../registry/contract/callable.js";
import { globMatcher } from "../../../../registry/contract/globs.js";
import { testTool } from "../../../helpers/artifact.js";

const caller = (...globs: string[]): Caller => ({ principal: globs.join(","), admin: false, granted: globMatcher(globs) });
const toolProp = (list: ReturnType<ReturnType<typeof createToolLists>["list"]>) =>
  (list[1]!.inputSchema as { properties: Record<string, { enum?: string[]; description?: string }> }).properties.tool!;

describe("MCP tool lists", () => {
  // In catalog order (the artifact sorts by name), which is the list's order.
  const imported = testTool("imported.lookup", { kind: "builtin", backend: { kind: "builtin", handler: UNAVAILABLE_HANDLER } });
  const tools = [
    testTool("git.diff"),
    testTool("git.log"),
    imported,
    testTool("notes.create"),
    testTool("toolbelt.find", metaToolDefinition("toolbelt.find")),
    testTool("toolbelt.reshape"),
  ];
  const lists = createToolLists(tools, (n) => n === "toolbelt.reshape");

  it("lists find_tool, call_tool, then always-loaded and declared granted tools, never a meta-tool, the same object each time", () => {
    const git = caller("git.*", "toolbelt.*");
    const brief = { version: 1, name: "notes", description: "Notes", tools: ["notes.*", "git.log"] };
    expect(lists.list(git).map((t) => t.name)).toEqual(["find_tool", "call_tool", "toolbelt_reshape"]);
    expect(lists.list(git, brief).map((t) => t.name)).toEqual(["find_tool", "call_tool", "git_log", "toolbelt_reshape"]);
    expect(lists.list(git)).toBe(lists.list(git));
  });

  it("regression: a brief naming a tool without a backend listed it as callable (a call can only answer 501); it is left off", () => {
    const brief = { version: 1, name: "all", description: "All", tools: ["*"] };
    expect(lists.list(caller("*"), brief).map((t) => t.name)).toEqual(["find_tool", "call_tool", "git_diff", "git_log", "notes_create", "toolbelt_reshape"]);
  });

  it("regression: call_tool's `tool` was an enum of every granted name (about 1,500 tokens at its 6 KB bound): it is a plain string at any size", () => {
    const many = Array.from({ length: 400 }, (_, i) => testTool(`bulk.tool_number_${i}`));
    for (const list of [lists.list(caller("*")), createToolLists(many, () => false).list(caller("*"))]) {
      const tool = toolProp(list);
      expect(tool.enum).toBeUndefined();
      expect(tool.description).toBe("The name find shows (git.log or git_log).");
    }
  });

  it("advertises find_tool's decision-mode options only where a decider is configured, and its tuning options nowhere", () => {
    const props = (l: ReturnType<ReturnType<typeof createToolLists>["list"]>) => Object.keys(l[0]!.inputSchema.properties as object);
    expect(props(lists.list(caller("*")))).toEqual(["query", "limit", "family", "schemas", "belt"]);
    const withDecider = props(createToolLists(tools, () => false, { decisionMode: true }).list(caller("*")));
    expect(withDecider).toEqual(expect.arrayContaining([...DECISION_OPTIONS, "belt"]));
    expect(withDecider).not.toEqual(expect.arrayContaining([...TUNING_OPTIONS]));
  });

  it("builds find_tool and call_tool from the registry's entries (as the REST surface shows them, no examples) plus `belt`", () => {
    const call = testTool("toolbelt.call", {
      description: "Call it.",
      input_schema: { type: "object", properties: { tool: { type: "string", examples: ["x.y"] } } },
    });
    const [find_tool, call_tool] = createToolLists([...tools, call], () => false).list(caller("*"));
    expect(find_tool!.description).toBe(metaToolDefinition("toolbelt.find").description);
    expect(call_tool).toEqual({
      name: "call_tool",
      description: "Call it.",
      inputSchema: { type: "object", properties: { tool: { type: "string" }, belt: expect.objectContaining({ type: "string" }) } },
    });
  });

  it("asks for the instructions' manifest once per principal and brief, with the tokens the list takes (more with a brief's tools)", () => {
    const asked: number[] = [];
    const manifest = (used: number) => {
      asked.push(used);
      return { families: [], omitted: { families: 0, tools: 0 }, note: "Every family you may use is listed (3); toolbelt.find searches all their tools." };
    };
    const git = caller("git.*");
    const text = lists.instructions(git, undefined, manifest);
    expect(lists.instructions(git, undefined, manifest)).toBe(text);
    lists.instructions(git, { version: 1, name: "git", description: "Git", tools: ["git.*"] }, manifest);
    expect(asked).toHaveLength(2);
    expect(asked[1]).toBeGreaterThan(asked[0]!);
    expect(text).toMatch(/^Find tools with find_tool[^\n]*\n\n.*find_tool searches all their tools\.$/);
  });

  it("derives the hints from governance and sends only those that differ from MCP's defaults (not read-only, destructive, not idempotent, open world)", () => {
    // A read-only tool sends neither destructiveHint nor idempotentHint: MCP reads them only when readOnlyHint is false.
    expect(annotationsOf({ kind: "builtin", governance: { read_only: true } })).toEqual({ readOnlyHint: true, openWorldHint: false });
    expect(annotationsOf({ kind: "http", governance: { read_only: true, idempotent: true } })).toEqual({ readOnlyHint: true });
    expect(annotationsOf({ kind: "http", governance: { destructive: true } })).toEqual({});
    expect(annotationsOf({ kind: "http", governance: {} })).toEqual({ destructiveHint: false });
    expect(annotationsOf({ kind: "builtin", governance: { consequential: true, affects: "user", idempotent: true } })).toEqual({
      destructiveHint: false,
      idempotentHint: true,
    });
  });
});
