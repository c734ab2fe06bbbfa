import { describe, expect, it } from "vitest";
import { META_TOOLS } from "../../../../registry/contract/family.js";
import { metaToolDefinition } from "../../../../lambdas/contract/meta-tools.js";
import { byteSize, computeSurface, toolBytes, toolEntry } from "../../../../lambdas/core/surface.js";
import { countTokens } from "../../../../build/tokens.js";
import { globMatcher } from "../../../../registry/contract/globs.js";
import { defaultTestTools, memoryTestArtifact, testArtifactInput, testTool } from "../../../helpers/artifact.js";

const bounds = { maxTools: 30, maxSchemaBytes: 24 * 1024, pinBudgetBytes: 4096 };

describe("computeSurface", () => {
  it("advertises the whole granted catalog under both bounds and says it did not narrow", async () => {
    const artifact = await memoryTestArtifact();
    const s = computeSurface({ artifact, granted: () => true, isAlwaysLoaded: globMatcher(["toolbelt.reshape"]), declared: [], pins: [], bounds });
    expect(s.narrowed).toBe(false);
    expect(s.tools).toHaveLength(META_TOOLS.length + 10);
    expect(s.size.surface.tools).toBe(s.size.catalog.tools);
    expect(s.tools.find((t) => t.name === "toolbelt.reshape")?.on_belt).toBe("always");
    expect(s.tools.find((t) => t.name === "git.log")?.on_belt).toBe("granted");
    // Every entry carries its model-safe name, meta-tools included.
    expect(s.tools.find((t) => t.name === "git.log")?.model_name).toBe("git_log");
    expect(s.tools.every((t) => t.model_name === t.name.replace(".", "_"))).toBe(true);
  });

  it("reports real o200k_base tokens from the build's counts, within a few tokens of counting the whole text", async () => {
    const artifact = await memoryTestArtifact(testArtifactInput([...defaultTestTools(), testTool("toolbelt.find"), testTool("toolbelt.call")]), {
      countTokens: true,
    });
    const s = computeSurface({ artifact, granted: () => true, isAlwaysLoaded: () => false, declared: [], pins: [], bounds });
    const whole = countTokens(JSON.stringify({ tools: s.tools.map(({ on_belt: _, ...rest }) => rest), manifest: s.manifest }));
    const { o200k_tokens, approx_tokens, approx_error_pct } = s.size.surface;
    expect(Math.abs(o200k_tokens! - whole)).toBeLessThanOrEqual(Math.ceil(whole * 0.02));
    expect(approx_error_pct).toBe(Math.round(((approx_tokens - o200k_tokens!) / o200k_tokens!) * 1000) / 10);
    expect(s.size.catalog.o200k_tokens).toBeGreaterThanOrEqual(o200k_tokens!);
  });

  it("leaves token figures out when the artifact carries no counts (bytes / 4 only)", async () => {
    const s = computeSurface({ artifact: await memoryTestArtifact(), granted: () => true, isAlwaysLoaded: () => false, declared: [], pins: [], bounds });
    expect(s.size.surface.o200k_tokens).toBeUndefined();
    expect(s.size.surface.approx_tokens).toBe(Math.ceil(s.size.surface.bytes / 4));
  });

  it("keeps the meta-tools on the belt even for a principal granted nothing", async () => {
    const artifact = await memoryTestArtifact();
    const s = computeSurface({ artifact, granted: () => false, isAlwaysLoaded: () => true, declared: ["git.log"], pins: [], bounds });
    expect(s.tools.map((t) => t.name)).toEqual(META_TOOLS);
    expect(s.manifest.families).toEqual([]);
    expect(s.tools[0]?.input_schema).toEqual(metaToolDefinition("toolbelt.find").input_schema);
  });

  it("uses the catalog's definition of a meta-tool when the registry has one", async () => {
    const artifact = await memoryTestArtifact(testArtifactInput([...defaultTestTools(), testTool("toolbelt.find", { description: "Registry find." })]));
    const s = computeSurface({ artifact, granted: () => true, isAlwaysLoaded: () => false, declared: [], pins: [], bounds });
    expect(s.tools.filter((t) => t.name === "toolbelt.find")).toEqual([expect.objectContaining({ description: "Registry find.", on_belt: "meta" })]);
  });

  it("stays about the same size whether the catalog has 50 or 2,000 tools", async () => {
    const sizes: number[] = [];
    for (const n of [50, 2000]) {
      const tools = Array.from({ length: n }, (_, i) => testTool(`fam${i % 20}.verb_${i}`));
      const artifact = await memoryTestArtifact(testArtifactInput(tools, { always_loaded: [] }));
      const s = computeSurface({ artifact, granted: () => true, isAlwaysLoaded: () => false, declared: [], pins: [], bounds });
      expect(s.narrowed).toBe(true);
      sizes.push(s.size.surface.bytes);
      expect(s.size.catalog.bytes).toBeGreaterThan(s.size.surface.bytes * 3);
    }
    expect(sizes[1]! / sizes[0]!).toBeLessThan(1.5);
  });

  it("drops pins and declared tools the principal is no longer granted", async () => {
    const artifact = await memoryTestArtifact();
    const log = artifact.byName.get("git.log")!;
    const s = computeSurface({
      artifact,
      granted: (n) => n.startsWith("notes."),
      isAlwaysLoaded: () => false,
      declared: ["git.diff", "notes.search"],
      pins: [{ name: "git.log", bytes: toolBytes(log), last_used: 1 }],
      bounds: { ...bounds, maxTools: 1 },
    });
    expect(s.tools.map((t) => t.name)).toEqual([...META_TOOLS, "notes.search"]);
    expect(s.pins).toEqual({ used_bytes: 0, budget_bytes: 4096, tools: [] });
  });

  it("advertises each tool's catalog entry as it is and measures the surface without the on_belt field", async () => {
    const tools = [...defaultTestTools(), testTool("out.put", { output_schema: { type: "object", properties: { ok: { type: "boolean" } } } })];
    const artifact = await memoryTestArtifact(testArtifactInput(tools));
    for (const b of [bounds, { ...bounds, maxTools: 1 }]) {
      const s = computeSurface({ artifact, granted: () => true, isAlwaysLoaded: globMatcher(["toolbelt.reshape"]), declared: ["git.*"], pins: [], bounds: b });
      const catalogEntries = s.tools.filter((t) => t.on_belt !== "meta").map(({ on_belt: _, ...rest }) => rest);
      expect(catalogEntries).toEqual(catalogEntries.map((e) => toolEntry(artifact.byName.get(e.name)!)));
      expect(s.size.surface.bytes).toBe(byteSize({ tools: s.tools.map(({ on_belt: _, ...rest }) => rest), manifest: s.manifest }));
      expect(s.tools.find((t) => t.name === "out.put")?.output_schema ?? null).toEqual(
        b === bounds ? { type: "object", properties: { ok: { type: "boolean" } } } : null,
      );
    }
  });

  it("counts every granted tool of a large family in the manifest and keeps its examples", async () => {
    const tools = Array.from({ length: 3000 }, (_, i) => testTool(`huge.verb_${String(i).padStart(4, "0")}`));
    const artifact = await memoryTestArtifact(testArtifactInput(tools, { always_loaded: [] }));
    const s = computeSurface({ artifact, granted: (n) => !n.endsWith("1"), isAlwaysLoaded: () => false, declared: [], pins: [], bounds });
    const huge = s.manifest.families.find((f) => f.name === "huge");
    expect(huge?.tool_count).toBe(2700);
    // The registry's granted examples first (verb_0001 is not granted), then the rest in name order.
    expect(huge?.examples).toEqual(["verb_0000", "verb_0002", "verb_0003", "verb_0004"]);
  });

  it("measures tools by their serialized entry", () => {
    const t = testTool("a.b");
    expect(toolBytes(t)).toBe(byteSize(toolEntry(t)));
    expect(byteSize({ s: "é" })).toBe(JSON.stringify({ s: "é" }).length + 1);
  });
});
