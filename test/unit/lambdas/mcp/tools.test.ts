// The MCP tools/list: fixed per principal and brief, model-safe names, governance as annotations,
// and call_tool's `tool` argument as an enum only while the names stay under their byte bound.
import { describe, expect, it } from "vitest";
import type { Caller } from "../../../../lambdas/core/ports.js";
import { annotationsOf, createToolLists, MAX_ENUM_BYTES } from "../../../../lambdas/mcp/tools.js";
import { globMatcher } from "../../../../registry/contract/globs.js";
import { testTool } from "../../../helpers/artifact.js";

const caller = (...globs: string[]): Caller => ({ principal: globs.join(","), admin: false, granted: globMatcher(globs) });
const toolProp = (list: ReturnType<ReturnType<typeof createToolLists>["list"]>) =>
  (list[1]!.inputSchema as { properties: Record<string, { enum?: string[]; description?: string }> }).properties.tool!;

describe("MCP tool lists", () => {
  // In catalog order (the artifact sorts by name), which is the list's order.
  const tools = [testTool("git.diff"), testTool("git.log"), testTool("notes.create"), testTool("toolbelt.find"), testTool("toolbelt.reshape")];
  const lists = createToolLists(tools, (n) => n === "toolbelt.reshape");

  it("lists find_tool, call_tool, then always-loaded and declared granted tools, never a meta-tool, the same object each time", () => {
    const git = caller("git.*", "toolbelt.*");
    const brief = { version: 1, name: "notes", description: "Notes", tools: ["notes.*", "git.log"] };
    expect(lists.list(git).map((t) => t.name)).toEqual(["find_tool", "call_tool", "toolbelt_reshape"]);
    expect(lists.list(git, brief).map((t) => t.name)).toEqual(["find_tool", "call_tool", "git_log", "toolbelt_reshape"]);
    expect(lists.list(git)).toBe(lists.list(git));
    expect(toolProp(lists.list(git)).enum).toEqual(["git_diff", "git_log", "toolbelt_reshape"]);
  });

  it("names families and counts instead of an enum when the granted names pass the byte bound", () => {
    const many = Array.from({ length: Math.ceil(MAX_ENUM_BYTES / 20) + 10 }, (_, i) => testTool(`bulk.tool_number_${i}`));
    const big = createToolLists([...many, testTool("git.log")], () => false).list(caller("*"));
    const tool = toolProp(big);
    expect(tool.enum).toBeUndefined();
    expect(tool.description).toContain(`You may call ${many.length + 1} tools in these families: bulk (${many.length}), git (1)`);
  });

  it("derives the hints from governance: read-only, destructive, idempotent, open-world beyond the gateway", () => {
    expect(annotationsOf({ kind: "builtin", governance: { read_only: true } })).toEqual({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
    expect(annotationsOf({ kind: "http", governance: { destructive: true } })).toEqual({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: true,
    });
    expect(annotationsOf({ kind: "builtin", governance: { consequential: true, affects: "user", idempotent: true } })).toMatchObject({
      idempotentHint: true,
      openWorldHint: true,
    });
  });
});
