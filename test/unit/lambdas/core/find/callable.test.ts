// Tools the gateway cannot run (imported catalog entries) are found, flagged, and ranked below callable ones.
import { describe, expect, it } from "vitest";
import { createFinder } from "../../../../../lambdas/core/find/index.js";
import type { CatalogTool } from "../../../../../registry/contract/artifact.js";
import { surfaceEntry } from "../../../../../registry/contract/surface-entry.js";
import { memoryTestArtifact, testArtifactInput, testTool } from "../../../../helpers/artifact.js";

const imported: CatalogTool["backend"] = { kind: "builtin", handler: "unavailable" };
const http: CatalogTool["backend"] = { kind: "http", method: "POST", url: "https://notes.example/notes", output: "json" };

/** A catalog where the imported tool's words fit "add a note" better than the callable one's. */
function catalog(notesTool: CatalogTool["backend"], create: CatalogTool["backend"] = http): CatalogTool[] {
  return [
    testTool("notes.create", { kind: create.kind, backend: create, description: "Create a new note with a title and text." }),
    testTool("metatool.NotesTool", { backend: notesTool, description: "Add a note, list notes and delete a note." }),
    testTool("weather.current", { kind: "http", backend: http, description: "Current weather for a city." }),
  ];
}

async function find(tools: CatalogTool[], query: string) {
  const finder = createFinder(await memoryTestArtifact(testArtifactInput(tools, { always_loaded: [] })));
  return (await finder.find({ query, schemas: false, min_score: 0 })).tools.map(({ name, score, callable }) => ({
    name,
    score,
    ...(callable === false ? { callable } : {}),
  }));
}

describe("callable flag", () => {
  it("regression (issue #10): `add a note` ranked metatool.NotesTool (no backend, 501 on call) above notes.create; the callable tool now comes first and the other says callable: false", async () => {
    const asIfCallable = await find(catalog({ kind: "builtin", handler: "reshape" }), "add a note");
    expect(asIfCallable.map((t) => t.name)).toEqual(["metatool.NotesTool", "notes.create"]);
    const found = await find(catalog(imported), "add a note");
    expect(found.map((t) => t.name)).toEqual(["notes.create", "metatool.NotesTool"]);
    expect(found[0]).not.toHaveProperty("callable");
    expect(found[1]).toMatchObject({ callable: false, score: asIfCallable[0]!.score });
  });

  it("ranks a catalog where no tool is callable exactly as before (npm run eval and the benches index such catalogs)", async () => {
    const none = await find(catalog(imported, imported), "add a note");
    const all = await find(catalog({ kind: "builtin", handler: "reshape" }, { kind: "builtin", handler: "reshape" }), "add a note");
    expect(none.map(({ name, score }) => ({ name, score }))).toEqual(all);
    expect(none.every((t) => t.callable === false)).toBe(true);
  });

  it("puts an uncallable tool asked for by its exact name first", async () => {
    expect((await find(catalog(imported), "metatool.NotesTool"))[0]).toMatchObject({ name: "metatool.NotesTool", score: 1, callable: false });
  });

  it("flags an uncallable tool's surface entry, and only that one", () => {
    const [create, notesTool] = catalog(imported);
    expect(surfaceEntry(create!)).not.toHaveProperty("callable");
    expect(surfaceEntry(notesTool!)).toMatchObject({ name: "metatool.NotesTool", callable: false });
  });
});
