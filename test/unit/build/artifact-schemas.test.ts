// Artifact format 2+: schemas stored as JSON text, read back as objects only when used.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { emitArtifact, writeArtifact } from "../../../build/artifact.js";
import { artifactFromFiles, loadArtifact } from "../../../lambdas/artifact.js";
import type { CatalogTool, StoredCatalog } from "../../../registry/contract/artifact.js";

const tool = (name: string, extra: Partial<CatalogTool> = {}): CatalogTool => ({
  name,
  family: "demo",
  kind: "builtin",
  description: `Tool ${name}: 搜索 “quoted”`,
  input_schema: { type: "object", properties: { q: { type: "string", description: "词" } }, required: ["q"] },
  governance: {},
  timeout_ms: 1000,
  backend: { kind: "builtin", handler: "x" },
  source: "demo.yaml",
  ...extra,
});
const TOOLS = [tool("demo.b", { output_schema: { type: "object", properties: { n: { type: "number" } } } }), tool("demo.a")];
const FAMILIES = [{ name: "demo", description: "Demo.", required: true, tool_count: 2, examples: ["a", "b"] }];
const emit = () => emitArtifact({ families: FAMILIES, tools: TOOLS, always_loaded: [] });

describe("artifact schemas", () => {
  it("stores each schema as JSON text in an all-ASCII catalog, byte-identical across builds", async () => {
    const files = await emit();
    expect(files["catalog.json"]).toBe((await emit())["catalog.json"]);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the whole ASCII range, on purpose.
    expect(files["catalog.json"]).toMatch(/^[\x00-\x7f]*$/);
    const stored = JSON.parse(files["catalog.json"]) as StoredCatalog;
    expect(stored.tools.map((t) => t.name)).toEqual(["demo.a", "demo.b"]);
    expect(stored.tools[0]).not.toHaveProperty("input_schema");
    expect(stored.schemas).toHaveLength(4);
    expect(JSON.parse(stored.schemas[0]!)).toEqual(TOOLS[1]!.input_schema);
    expect(stored.schemas[1]).toBeNull();
    expect(JSON.parse(stored.schemas[3]!)).toEqual(TOOLS[0]!.output_schema);
    expect(stored.tools[0]!.description).toBe("Tool demo.a: 搜索 “quoted”");
  });

  it("reads every tool back as the tool that went in, schemas as objects", async () => {
    const dir = await mkdtemp(join(tmpdir(), "toolbelt-artifact-"));
    try {
      await writeArtifact(dir, await emit());
      // The loader adds each tool's model-safe name from names.json; the build adds its o200k_base token count.
      const served = (t: CatalogTool) => ({ ...t, model_name: t.name.replace(".", "_"), tokens: expect.any(Number) });
      for (const artifact of [loadArtifact(dir), artifactFromFiles(await emit())]) {
        const [a, b] = artifact.tools;
        expect(a).toEqual(served(TOOLS[1]!));
        expect(b).toEqual(served(TOOLS[0]!));
        expect({ ...b }).toEqual(served(TOOLS[0]!));
        expect(JSON.parse(JSON.stringify(artifact.tools))).toEqual([served(TOOLS[1]!), served(TOOLS[0]!)]);
        expect("output_schema" in a!).toBe(false);
        expect(artifact.byName.get("demo.b")!.output_schema).toEqual({ type: "object", properties: { n: { type: "number" } } });
        // Parsed once: the same object on every read; an assignment replaces it.
        expect(a!.input_schema).toBe(a!.input_schema);
        a!.input_schema = { type: "object" };
        expect(a!.input_schema).toEqual({ type: "object" });
        expect(Object.keys(b!).sort()).toEqual(Object.keys(served(TOOLS[0]!)).sort());
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("keeps each tool's model-safe name in names.json, beside its name, in catalog order", async () => {
    const files = await emit();
    expect(JSON.parse(files["names.json"])).toEqual({ names: ["demo.a", "demo.b"], model_names: ["demo_a", "demo_b"] });
    const stale = { ...files, "names.json": JSON.stringify({ names: ["demo.b", "demo.a"], model_names: ["demo_b", "demo_a"] }) };
    expect(() => artifactFromFiles(stale)).toThrow("names.json entry 0 is not demo.a: rebuild it with npm run build:artifact");
    expect(() => artifactFromFiles({ ...files, "names.json": '["demo.a","demo.b"]' })).toThrow("names.json does not list the catalog's 2 tools");
  });
});
