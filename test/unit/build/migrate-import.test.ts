// `registry:migrate` writes missing versions and runs keyed migrations; `registry:import` adds a JSONL family.
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { importJsonl } from "../../../build/import-jsonl.js";
import { loadRegistry } from "../../../build/load.js";
import { MIGRATIONS, migrateData, migrateRegistry } from "../../../build/migrate.js";
import { fixture } from "./helpers.js";

const temps: string[] = [];
async function copyOf(name: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "toolbelt-reg-"));
  temps.push(dir);
  await cp(fixture(name), dir, { recursive: true });
  return dir;
}
afterEach(async () => {
  await Promise.all(temps.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

describe("migrate", () => {
  it("writes `version: 1` into files without one, keeps comments, and leaves the registry valid", async () => {
    const dir = await copyOf("valid");
    await writeFile(join(dir, "families/meta/tools.yaml"), "# meta tools\n" + (await readFile(join(dir, "families/meta/tools.yaml"), "utf8")));
    const dry = await migrateRegistry(dir, { write: false });
    expect(dry.changed.map((c) => c.file).sort()).toEqual(["briefs/release.yaml", "families/git/log.yaml", "families/meta/tools.yaml", "policy.yaml"]);
    const r = await migrateRegistry(dir, { write: true });
    expect(r.problems).toEqual([]);
    const meta = await readFile(join(dir, "families/meta/tools.yaml"), "utf8");
    expect(meta.startsWith("# meta tools\nversion: 1\ntools:")).toBe(true);
    expect((await migrateRegistry(dir, { write: false })).changed).toEqual([]);
    expect((await loadRegistry(dir)).diagnostics).toEqual([]);
  });

  it("applies migrations keyed by the version they upgrade from, and refuses newer files", () => {
    MIGRATIONS[1] = (data) => {
      data.renamed = data.old;
      delete data.old;
    };
    try {
      const data: Record<string, unknown> = { version: 1, old: "x" };
      expect(migrateData(data, "tools", 2)).toEqual({ from: 1 });
      expect(data).toEqual({ version: 1, renamed: "x" });
      expect(migrateData({ version: 3 }, "tools", 2)).toEqual({ error: "version 3 is newer than this build (2)" });
      expect(migrateData({}, "tools", 3)).toEqual({ error: "no migration from version 2" });
    } finally {
      delete MIGRATIONS[1];
    }
  });
});

describe("import", () => {
  it("copies a JSONL catalog into the registry and lists it as a family that checks clean", async () => {
    const dir = await copyOf("valid");
    const src = join(dir, "..", `${Date.now()}-eval.jsonl`);
    temps.push(src);
    await writeFile(
      src,
      [
        {
          id: "srv::search",
          name: "search",
          description: "Search the web.",
          input_schema: { type: "object", properties: { q: { type: "string" } } },
          server_description: "A web search server. It is fast.",
        },
        { id: "srv::fetch", name: "fetch page", description: "Fetch a page.", input_schema: null },
      ]
        .map((r) => JSON.stringify(r))
        .join("\n"),
    );
    const r = await importJsonl({ jsonl: src, family: "websearch", registry: dir, required: false });
    expect(r).toMatchObject({ tools: 2, familyAdded: true });
    const families = await readFile(join(dir, "families.yaml"), "utf8");
    expect(families).toContain(
      "- name: websearch\n    description: A web search server.\n    required: false\n    source:\n      jsonl: catalogs/websearch.jsonl",
    );
    const reg = await loadRegistry(dir);
    // Clean but for the one warning that says `fetch page` is served under another name.
    expect(reg.diagnostics.map((d) => [d.severity, d.tool])).toEqual([["warning", "websearch.fetch_page"]]);
    expect(reg.diagnostics[0]?.message).toMatch(/^`fetch page` is served as `fetch_page`/);
    expect(reg.catalog.tools.filter((t) => t.family === "websearch").map((t) => [t.name, t.id])).toEqual([
      ["websearch.search", "srv::search"],
      ["websearch.fetch_page", "srv::fetch"],
    ]);
    // Importing the same family again changes nothing; a different source under the same name is refused.
    expect((await importJsonl({ jsonl: src, family: "websearch", registry: dir, required: false })).familyAdded).toBe(false);
    await expect(importJsonl({ jsonl: src, family: "git", registry: dir })).rejects.toThrow(/already exists/);
  });

  it("regression (issue #10): adds its family to the example registry's families.yaml without rewrapping 12 unrelated descriptions", async () => {
    const dir = await mkdtemp(join(tmpdir(), "toolbelt-import-"));
    temps.push(dir);
    const original = await readFile(fileURLToPath(new URL("../../../registry/families.yaml", import.meta.url)), "utf8");
    await writeFile(join(dir, "families.yaml"), original);
    const src = join(dir, "tools.jsonl");
    await writeFile(src, `${JSON.stringify({ name: "search", description: "Search the web.", input_schema: { type: "object" } })}\n`);
    await importJsonl({ jsonl: src, family: "websearch", registry: dir });
    const after = await readFile(join(dir, "families.yaml"), "utf8");
    expect(after.slice(0, original.length)).toBe(original);
    // A blank line before it when the last entry has one (a family added to registry/ without one: none).
    expect(after.slice(original.length).replace(/^\n/, "")).toBe(
      "  - name: websearch\n    description: Tools imported from the websearch catalog.\n    source:\n      jsonl: catalogs/websearch.jsonl\n",
    );
  });
});
