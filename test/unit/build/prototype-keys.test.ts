// A registry whose tools, parameters and governance use Object.prototype names (YAML through the
// real loader, validator and artifact emitter): it must build, find and keep those names as data,
// except the parameter names the gateway refuses in every call (__proto__, constructor, prototype).
import { describe, expect, it } from "vitest";
import { CONVENTION_CODES } from "../../../build/validate/conventions.js";
import { compileRegistry } from "../../../build/build.js";
import { memoryFs } from "../../../build/registry-fs.js";
import { artifactFromFiles } from "../../../lambdas/artifact.js";
import { createFinder } from "../../../lambdas/core/find/index.js";

const families = `families:
  - name: widgets
    description: Widget workshop tools.
    source: { tools: families/widgets }
`;
const tools = (extra = "") => `tools:
  - name: constructor
    kind: builtin
    handler: reshape
    description: Build a widget from its parts.
    consequential: true
    affects: hasOwnProperty
    input_schema:
      type: object
      required: [hasOwnProperty]
      properties:
        hasOwnProperty: { type: string, description: Who assembles the widget }
        toString: { type: string, description: Label printed on it }
  - name: hasOwnProperty
    kind: builtin
    handler: reshape
    description: Check whether a gadget owns a property.
    input_schema: { type: object, properties: { valueOf: { type: number } } }
${extra}`;

const compile = (extra?: string) =>
  compileRegistry("/registry", { fs: memoryFs({ "families.yaml": families, "families/widgets/tools.yaml": tools(extra) }), parseWorkers: 0 });

describe("a registry with Object.prototype names", () => {
  it("builds, keeps the names as data and does not pollute", async () => {
    const res = await compile();
    expect(res.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    expect(res.ok).toBe(true);
    const artifact = artifactFromFiles(res.files!);
    const t = artifact.byName.get("widgets.constructor")!;
    expect(Object.keys(t.input_schema.properties as object).sort()).toEqual(["hasOwnProperty", "toString"]);
    expect(t.governance).toMatchObject({ consequential: true, affects: "hasOwnProperty" });
    expect(({} as Record<string, unknown>).description).toBeUndefined();
    expect(Object.getPrototypeOf({})).toBe(Object.prototype);
  });

  it("finds those tools by their names and words", async () => {
    const finder = createFinder(artifactFromFiles((await compile()).files!));
    expect((await finder.find({ query: "constructor", schemas: false })).tools[0]?.name).toBe("widgets.constructor");
    expect((await finder.find({ query: "hasOwnProperty", schemas: false })).tools[0]?.name).toBe("widgets.hasOwnProperty");
    expect((await finder.find({ query: "who assembles the widget", schemas: false, min_score: 0 })).tools[0]?.name).toBe("widgets.constructor");
  });

  it("refuses a tool named `__proto__` with the ordinary name rule, not a crash", async () => {
    const res = await compile(`  - name: __proto__
    kind: builtin
    handler: reshape
    description: Copy a prototype widget.
`);
    expect(res.ok).toBe(false);
    expect(res.diagnostics.filter((d) => !CONVENTION_CODES.includes(d.code)).map((d) => d.code)).toEqual(["BAD_NAME"]);
  });

  it("refuses parameters named `__proto__`, `constructor` or `prototype` (the gateway refuses them in every call), without polluting", async () => {
    const res = await compile(`  - name: copy
    kind: builtin
    handler: reshape
    description: Copy a prototype widget.
    input_schema:
      type: object
      properties:
        __proto__: { type: object, properties: { polluted: { type: string } } }
        constructor: { type: string }
        parts: { type: array, items: { type: object, properties: { prototype: { type: boolean } } } }
`);
    expect(res.ok).toBe(false);
    expect(res.diagnostics.filter((d) => !CONVENTION_CODES.includes(d.code)).map((d) => `${d.code} ${d.tool} ${d.path}`)).toEqual([
      "SCHEMA_INVALID widgets.copy $.tools[2].input_schema.properties.__proto__",
      "SCHEMA_INVALID widgets.copy $.tools[2].input_schema.properties.constructor",
      "SCHEMA_INVALID widgets.copy $.tools[2].input_schema.properties.parts.items.properties.prototype",
    ]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("refuses `affects` naming an inherited member that is not a declared property", async () => {
    const res = await compile(`  - name: notify
    kind: builtin
    handler: reshape
    description: Notify a person.
    consequential: true
    affects: toString
    input_schema: { type: object, required: [who], properties: { who: { type: string } } }
`);
    expect(res.diagnostics.filter((d) => !CONVENTION_CODES.includes(d.code)).map((d) => d.code)).toEqual(["AFFECTS_NOT_REQUIRED"]);
  });
});
