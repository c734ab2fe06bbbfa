// Bug: find threw "function is not iterable" for any query with "constructor": the build-time
// lookup tables (expand, related) are plain objects read with query words, so Object.prototype
// keys answered. Query words, tool names and parameter names must never reach the prototype.
import { beforeAll, describe, expect, it } from "vitest";
import { emitArtifact } from "../../../../../build/artifact.js";
import { artifactFromFiles, type Artifact } from "../../../../../lambdas/artifact.js";
import { createFinder } from "../../../../../lambdas/core/find/index.js";
import type { Finder } from "../../../../../lambdas/core/find/types.js";
import { defaultTestTools, testArtifactInput, testTool } from "../../../../helpers/artifact.js";
import { emitTestArtifact } from "./catalog.js";

const PROTO_QUERIES = [
  "constructor",
  "__proto__ toString",
  "hasOwnProperty valueOf",
  "isPrototypeOf propertyIsEnumerable toLocaleString",
  "__defineGetter__ __lookupSetter__",
  "read the constructor of a file",
  "prototype",
];

describe("find with Object.prototype words in the query", () => {
  let finder: Finder;
  beforeAll(async () => {
    finder = createFinder(artifactFromFiles(await emitTestArtifact()));
  });

  it.each(PROTO_QUERIES)("answers %j normally", async (query) => {
    const res = await finder.find({ query, schemas: false });
    expect(Array.isArray(res.tools)).toBe(true);
    for (const t of res.tools) expect(typeof t.score).toBe("number");
  });

  it("still ranks by the other words of the query", async () => {
    const res = await finder.find({ query: "constructor: read the contents of a file", schemas: false });
    expect(res.tools[0]?.name).toBe("files.read_file");
  });

  it("answers the same queries as steps of a task", async () => {
    const res = await finder.find({ query: "constructor. __proto__. hasOwnProperty then send an email", schemas: false });
    expect(res.tools.map((t) => t.name)).toContain("mail.send_email");
  });
});

describe("a catalog with prototype-named tools and parameters", () => {
  let artifact: Artifact;
  let finder: Finder;
  beforeAll(async () => {
    const proto = testTool("x.constructor", {
      description: "Constructor of widgets: builds a widget from parts.",
      input_schema: {
        type: "object",
        properties: {
          ["__proto__"]: { type: "string", description: "Prototype widget to copy" },
          constructor: { type: "string", description: "Who assembles it" },
          toString: { type: "string", description: "Label printed on the widget" },
        },
        additionalProperties: false,
      },
    });
    const hasOwn = testTool("x.hasOwnProperty", { description: "Check whether a gadget owns a property." });
    artifact = artifactFromFiles(await emitArtifact(testArtifactInput([...defaultTestTools(), proto, hasOwn])));
    finder = createFinder(artifact);
  });

  it("builds without polluting Object.prototype", () => {
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf({})).toBe(Object.prototype);
    expect(artifact.tools.map((t) => t.name)).toEqual(expect.arrayContaining(["x.constructor", "x.hasOwnProperty"]));
  });

  it("keeps the prototype-named parameter in the stored schema", () => {
    const t = artifact.tools.find((x) => x.name === "x.constructor")!;
    const props = t.input_schema.properties as Record<string, unknown>;
    expect(Object.hasOwn(props, "__proto__")).toBe(true);
    expect(Object.keys(props).sort()).toEqual(["__proto__", "constructor", "toString"]);
  });

  it("finds the tool by its name and its words", async () => {
    expect((await finder.find({ query: "x.constructor", schemas: false })).tools[0]?.name).toBe("x.constructor");
    expect((await finder.find({ query: "constructor widgets", schemas: false })).tools[0]?.name).toBe("x.constructor");
    expect((await finder.find({ query: "hasOwnProperty", schemas: false })).tools[0]?.name).toBe("x.hasOwnProperty");
    expect((await finder.find({ query: "does a gadget own a property", schemas: false })).tools[0]?.name).toBe("x.hasOwnProperty");
  });

  it("answers prototype words against this catalog too", async () => {
    const names = new Set(artifact.tools.map((t) => t.name));
    for (const query of PROTO_QUERIES) {
      const res = await finder.find({ query, schemas: false });
      // Only the catalog's own tools come back, each with a real score: no inherited key reads as a tool.
      for (const t of res.tools) {
        expect(names.has(t.name)).toBe(true);
        expect(Number.isFinite(t.score)).toBe(true);
      }
    }
    expect((await finder.find({ query: PROTO_QUERIES[0]!, schemas: false })).tools[0]?.name).toBe("x.constructor");
    expect(({} as Record<string, unknown>).constructor).toBe(Object);
  });
});
