// The REST API sets nobody tuned for (rest-apis.json) stay usable: each pinned document imports whole, keyed by
// operationId, and every request is well formed and names only operations its catalog has.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REST_API_SETS } from "../generated.js";
import { goldGroups, loadRegistry, readJsonl, type EvalQuery } from "../harness.js";
import { ROOT } from "../suite.js";
import { writeApiRegistry } from "./openapi-catalog.js";

type SetQuery = EvalQuery & { difficulty?: string };

describe.each(REST_API_SETS)("the $name REST API set", (set) => {
  const queries = readJsonl<SetQuery>(join(ROOT, set.queries));

  it("imports into a registry whose tools are keyed by operationId, and every gold group names one of them", async () => {
    const dir = await mkdtemp(join(tmpdir(), `${set.name}-registry-`));
    try {
      const count = await writeApiRegistry(dir, join(ROOT, set.spec), set.name);
      const loaded = await loadRegistry(dir);
      expect(loaded.artifact.tools.length).toBe(count);
      const ids = new Set(loaded.artifact.tools.map((t) => loaded.keyOf.get(t.name)));
      expect(ids.size).toBe(count);
      const groups = queries.flatMap((q) => goldGroups(q).map((g) => ({ id: q.id, g })));
      expect(groups.length).toBeGreaterThan(0);
      expect(groups.filter(({ g }) => !g.some((op) => ids.has(op))).map(({ id, g }) => `${id}: ${g.join("|")}`)).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it("has well-formed requests: unique ids and texts, the heldout split, gold on answerable requests only", () => {
    const normal = (q: string) =>
      q
        .toLowerCase()
        .replace(/[^\p{L}\p{N}]+/gu, " ")
        .trim();
    expect(new Set(queries.map((q) => q.id)).size).toBe(queries.length);
    expect(new Set(queries.map((q) => normal(q.query))).size).toBe(queries.length);
    for (const q of queries) {
      expect(q.split, q.id).toBe("heldout");
      expect(["answerable", "near_miss", "unanswerable"], q.id).toContain(q.kind);
      if (q.kind !== "unanswerable") expect(["easy", "medium", "hard"], q.id).toContain(q.difficulty);
      expect(goldGroups(q).length > 0, q.id).toBe(q.kind === "answerable");
    }
  });
});
