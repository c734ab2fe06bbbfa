import { describe, expect, it } from "vitest";
import { META_TOOLS } from "../../../../registry/contract/family.js";
import {
  advertisedFindSchema,
  DECISION_OPTIONS,
  DECISION_OPTIONS_TOKENS,
  metaToolDefinition,
  TUNING_OPTIONS,
  TUNING_OPTIONS_TOKENS,
} from "../../../../lambdas/contract/meta-tools.js";
import { beltNames, byteSize, computeSurface, toolBytes, toolEntry } from "../../../../lambdas/core/surface.js";
import { UNAVAILABLE_HANDLER } from "../../../../registry/contract/callable.js";
import { countTokens } from "../../../../build/tokens.js";
import { withoutExamples } from "../../../../registry/contract/surface-entry.js";
import { globMatcher } from "../../../../registry/contract/globs.js";
import { defaultTestTools, memoryTestArtifact, testArtifactInput, testTool } from "../../../helpers/artifact.js";

const bounds = { maxTools: 30, maxSchemaBytes: 24 * 1024, pinBudgetBytes: 4096, maxTokens: 1500, manifestMaxTokens: 1000 };

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
    // No decider configured: find's decision-mode (and tuning) options are accepted but not advertised.
    expect(s.tools[0]?.input_schema).toEqual(withoutExamples(advertisedFindSchema(metaToolDefinition("toolbelt.find").input_schema, false).schema));
  });

  it("advertises the contract's meta-tools without examples where the catalog has no toolbelt family (regression: call's schema named time.now and Asia/Tokyo in registries that have neither)", async () => {
    const artifact = await memoryTestArtifact();
    expect(artifact.byName.has("toolbelt.call")).toBe(false);
    const s = computeSurface({ artifact, granted: () => true, isAlwaysLoaded: () => false, declared: [], pins: [], bounds });
    const metas = JSON.stringify(s.tools.filter((t) => META_TOOLS.includes(t.name)));
    expect(metas).not.toContain("examples");
    expect(metas).not.toContain("Asia/Tokyo");
  });

  it("advertises find's decision-mode options only where a decider is configured, and counts what leaving them out saves", async () => {
    const { description, input_schema } = metaToolDefinition("toolbelt.find");
    const artifact = await memoryTestArtifact(
      testArtifactInput([...defaultTestTools(), testTool("toolbelt.find", { description, input_schema }), testTool("toolbelt.call")]),
      {
        countTokens: true,
      },
    );
    const input = { artifact, granted: () => true, isAlwaysLoaded: () => false, declared: [], pins: [], bounds };
    const find = (s: ReturnType<typeof computeSurface>) => s.tools.find((t) => t.name === "toolbelt.find")!;
    const lean = computeSurface(input);
    const full = computeSurface({ ...input, decisionMode: true });
    expect(Object.keys(find(full).input_schema.properties as object)).toEqual(expect.arrayContaining([...DECISION_OPTIONS]));
    expect(Object.keys(find(lean).input_schema.properties as object)).not.toContain("mode");
    for (const s of [lean, full]) expect(Object.keys(find(s).input_schema.properties as object)).not.toEqual(expect.arrayContaining([...TUNING_OPTIONS]));
    expect(full.size.surface.o200k_tokens! - lean.size.surface.o200k_tokens!).toBe(DECISION_OPTIONS_TOKENS);
    // The subtracted count is the lean entry's own (the registry's key order and the contract's differ by a few tokens).
    const { on_belt: _, ...entry } = find(lean);
    expect(
      Math.abs(countTokens(JSON.stringify(entry)) - (artifact.byName.get("toolbelt.find")!.tokens! - DECISION_OPTIONS_TOKENS - TUNING_OPTIONS_TOKENS)),
    ).toBeLessThanOrEqual(4);
  });

  it("regression: a brief or the always-loaded list naming a tool without a backend put it on the belt (a call can only answer 501); such tools are never on a belt", async () => {
    const imported = testTool("imported.lookup", { kind: "builtin", backend: { kind: "builtin", handler: UNAVAILABLE_HANDLER } });
    const artifact = await memoryTestArtifact(testArtifactInput([...defaultTestTools(), imported]));
    for (const input of [
      { declared: ["imported.*"], isAlwaysLoaded: () => false, pins: [] },
      { declared: [], isAlwaysLoaded: (n: string) => n === "imported.lookup", pins: [] },
      { declared: [], isAlwaysLoaded: () => false, pins: [{ name: "imported.lookup", bytes: 10, last_used: 1 }] },
    ]) {
      for (const b of [bounds, { ...bounds, maxTools: 1 }]) {
        const s = computeSurface({ artifact, granted: () => true, ...input, bounds: b });
        expect(s.tools.map((t) => t.name)).not.toContain("imported.lookup");
        expect(beltNames({ artifact, granted: () => true, ...input, bounds: b })).toEqual(s.tools.map((t) => t.name));
      }
    }
    // Still counted where find reaches it: the manifest.
    const s = computeSurface({ artifact, granted: () => true, declared: [], isAlwaysLoaded: () => false, pins: [], bounds });
    expect(s.manifest.families.find((f) => f.name === "imported")?.tool_count).toBe(1);
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
    expect(huge?.examples).toEqual(["verb_0000", "verb_0002", "verb_0003"]);
  });

  describe("the capability manifest's budget", () => {
    // 1,000 families of 3 tools; the brief declares 6 tools in three families, one tool is pinned.
    const many = Array.from({ length: 3000 }, (_, i) =>
      testTool(`fam${String(Math.floor(i / 3)).padStart(4, "0")}.verb_${i % 3}`, { description: `Does task ${i} with a few words more.` }),
    );
    const declared = ["fam0500.verb_0", "fam0500.verb_1", "fam0500.verb_2", "fam0999.verb_0", "fam0999.verb_1", "fam0007.verb_2"];
    const pins = [{ name: "fam0003.verb_1", bytes: 100, last_used: 5 }];
    const budget = { ...bounds, maxTokens: 1500, manifestMaxTokens: 1000 };
    const served = (s: ReturnType<typeof computeSurface>) =>
      countTokens(JSON.stringify({ tools: s.tools.map(({ on_belt: _, ...rest }) => rest), manifest: s.manifest }));

    it("holds the surface to its token budget at 1,000 families, the brief's and the pins' families first, and says how many more find reaches", async () => {
      const meta = [testTool("toolbelt.find"), testTool("toolbelt.call")];
      const artifact = await memoryTestArtifact(testArtifactInput([...meta, ...many], { always_loaded: [] }), { countTokens: true });
      const s = computeSurface({ artifact, granted: () => true, isAlwaysLoaded: () => false, declared, pins, bounds: budget });
      expect(s.size.surface.o200k_tokens).toBeLessThanOrEqual(1500);
      expect(Math.abs(s.size.surface.o200k_tokens! - served(s))).toBeLessThanOrEqual(Math.ceil(served(s) * 0.02));
      expect(served(s)).toBeLessThanOrEqual(1500);
      expect(s.size.catalog.o200k_tokens).toBeGreaterThan(30 * 1500);
      expect(s.manifest.families.slice(0, 4).map((f) => f.name)).toEqual(["fam0500", "fam0999", "fam0007", "fam0003"]);
      const listed = s.manifest.families.length;
      expect(listed).toBeGreaterThan(4);
      expect(s.manifest.omitted).toEqual({ families: 1000 - listed, tools: 3 * (1000 - listed) });
      expect(s.manifest.note).toMatch(
        new RegExp(`^${1000 - listed} more families \\(${3 * (1000 - listed)} tools\\): .+ and \\d+ others\\. toolbelt\\.find searches them all\\.$`),
      );
      expect(s.bounds).toMatchObject({ max_tokens: 1500, manifest_max_tokens: 1000 });
    });

    it("gives the manifest what the tools leave, up to its own cap, and lists everything when it fits", async () => {
      const artifact = await memoryTestArtifact(testArtifactInput(many.slice(0, 60), { always_loaded: [] }), { countTokens: true });
      const input = { artifact, granted: () => true, isAlwaysLoaded: () => false, declared: [], pins: [] };
      const roomy = computeSurface({ ...input, bounds: { ...budget, maxTokens: 100_000, manifestMaxTokens: 100_000 } });
      expect(roomy.manifest.families).toHaveLength(20);
      expect(roomy.manifest).toMatchObject({
        omitted: { families: 0, tools: 0 },
        note: "Every family you may use is listed (20); toolbelt.find searches all their tools.",
      });
      const capped = computeSurface({ ...input, bounds: { ...budget, maxTokens: 100_000, manifestMaxTokens: 200 } });
      expect(countTokens(JSON.stringify(capped.manifest))).toBeLessThanOrEqual(200);
      expect(capped.manifest.families.length).toBeLessThan(20);
      // Tools past the whole budget leave the manifest only its closing line.
      const none = computeSurface({ ...input, bounds: { ...budget, maxTokens: 50 } });
      expect(none.manifest.families).toEqual([]);
      expect(none.manifest.omitted).toEqual({ families: 20, tools: 60 });
    });

    it("holds the budget by bytes / 4 when the artifact carries no token counts", async () => {
      const artifact = await memoryTestArtifact(testArtifactInput(many, { always_loaded: [] }));
      const s = computeSurface({ artifact, granted: () => true, isAlwaysLoaded: () => false, declared, pins, bounds: budget });
      expect(s.size.surface.approx_tokens).toBeLessThanOrEqual(1500);
      expect(s.manifest.families.length).toBeGreaterThan(4);
    });
  });

  it("measures tools by their serialized entry", () => {
    const t = testTool("a.b");
    expect(toolBytes(t)).toBe(byteSize(toolEntry(t)));
    expect(byteSize({ s: "é" })).toBe(JSON.stringify({ s: "é" }).length + 1);
  });
});
