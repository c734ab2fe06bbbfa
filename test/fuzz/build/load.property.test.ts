// Malformed YAML and random structures always come back as diagnostics, never as a throw. A fuzz test (each
// run is a whole registry load), kept out of test/unit so the unit tests stay quick; it still runs in the suite.
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { loadRegistry } from "../../../build/load.js";
import { memoryFs } from "../../../build/registry-fs.js";
import { REGISTRY_CODES, type Diagnostic } from "../../../registry/contract/diagnostics.js";
import { fixture } from "../../unit/build/helpers.js";

const FAMILIES = readFileSync(fixture("valid") + "/families.yaml", "utf8");
const WEATHER = readFileSync(fixture("valid") + "/families/weather/tools.yaml", "utf8");
const META = readFileSync(fixture("valid") + "/families/meta/tools.yaml", "utf8");
const SNAPSHOT = readFileSync(fixture("valid") + "/snapshots/everything.json", "utf8");

function wellFormed(diags: Diagnostic[]): void {
  for (const d of diags) {
    expect(REGISTRY_CODES).toContain(d.code);
    expect(["error", "warning"]).toContain(d.severity);
    expect(d.path.startsWith("$")).toBe(true);
    expect(typeof d.message).toBe("string");
    expect(d.message).not.toMatch(/\n\s+at /); // no stack traces in messages
  }
}

async function load(files: Record<string, string>) {
  const reg = await loadRegistry("/virtual", { fs: memoryFs(files) });
  wellFormed(reg.diagnostics);
  expect(reg.ok).toBe(!reg.diagnostics.some((d) => d.severity === "error"));
  return reg;
}

const base = () => ({
  "families.yaml": FAMILIES,
  "families/weather/tools.yaml": WEATHER,
  "families/meta/tools.yaml": META,
  "families/git/log.yaml": "tools: []\n",
  "snapshots/everything.json": SNAPSHOT,
  "catalogs/imported.jsonl": '{"name": "x", "description": "An x."}\n',
});

const TOOL_KEYS = [
  "name",
  "kind",
  "description",
  "input_schema",
  "output_schema",
  "url",
  "method",
  "headers",
  "query",
  "body",
  "command",
  "args",
  "env",
  "cwd",
  "handler",
  "prompt",
  "read_only",
  "destructive",
  "consequential",
  "affects",
  "impact",
  "timeout_secs",
  "version",
  "tools",
];
const leaf = fc.oneof(
  fc.string(),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom("http", "exec", "builtin", "mcp", "prompt", "{{input.x}}", "{{env.X}}", "${TOKEN}", "object"),
);
const value = fc.letrec((tie) => ({
  v: fc.oneof(
    { depthSize: "small" },
    leaf,
    fc.array(tie("v"), { maxLength: 3 }),
    fc.dictionary(fc.oneof(fc.constantFrom(...TOOL_KEYS), fc.string()), tie("v"), { maxKeys: 4 }),
  ),
})).v;
const toolish = fc.dictionary(fc.constantFrom(...TOOL_KEYS), value, { maxKeys: 8 });

describe("loader robustness (property)", () => {
  it("answers any text in families.yaml with diagnostics", async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.string(), fc.string({ unit: "binary" })), async (text) => {
        const reg = await load({ ...base(), "families.yaml": text });
        if (reg.catalog.tools.length === 0) expect(reg.diagnostics.length).toBeGreaterThan(0);
      }),
      { numRuns: 150 },
    );
  });

  it("answers mutated tool files (deleted, inserted, swapped characters) with diagnostics", async () => {
    const mutated = fc
      .tuple(fc.nat(WEATHER.length - 1), fc.nat(40), fc.string({ maxLength: 5 }))
      .map(([at, del, ins]) => WEATHER.slice(0, at) + ins + WEATHER.slice(at + del));
    await fc.assert(
      fc.asyncProperty(mutated, async (text) => {
        await load({ ...base(), "families/weather/tools.yaml": text });
      }),
      { numRuns: 150 },
    );
  });

  it("answers random structures in tool files, snapshots and the family list with diagnostics", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(toolish, { maxLength: 4 }),
        value,
        fc.array(fc.dictionary(fc.constantFrom("name", "description", "required", "source", "tools", "mcp", "jsonl"), value, { maxKeys: 4 }), { maxLength: 3 }),
        async (tools, snapshot, extraFamilies) => {
          const families = { families: [...((await import("yaml")).parse(FAMILIES) as { families: unknown[] }).families, ...extraFamilies] };
          const reg = await load({
            ...base(),
            "families.yaml": stringify(families),
            "families/weather/tools.yaml": stringify({ tools }),
            "snapshots/everything.json": JSON.stringify(snapshot) ?? "",
          });
          // Invalid tool entries never reach the catalog.
          for (const t of reg.catalog.tools) expect(t.name).toMatch(/^[a-z][a-z0-9_-]*\.[A-Za-z]/);
        },
      ),
      { numRuns: 100 },
    );
  });

  it("refuses alias bombs and multiple documents without hanging", async () => {
    const bomb =
      "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n";
    const reg = await load({ ...base(), "families/weather/tools.yaml": bomb });
    expect(reg.diagnostics.some((d) => d.code === "YAML_SYNTAX" && d.file === "families/weather/tools.yaml")).toBe(true);
    const multi = await load({ ...base(), "families/weather/tools.yaml": "tools: []\n---\ntools: []\n" });
    expect(multi.diagnostics.some((d) => d.code === "YAML_SYNTAX")).toBe(true);
    const cycle = "tools:\n  - name: loop\n    kind: http\n    url: https://example.org\n    description: Loops.\n    body: &b { inner: *b }\n";
    const loop = await load({ ...base(), "families/weather/tools.yaml": cycle });
    expect(loop.diagnostics.filter((d) => d.file === "families/weather/tools.yaml").map((d) => d.message)).toEqual([
      "YAML syntax: an alias refers to its own anchor (recursive data): registry files must be trees",
    ]);
  });
});
