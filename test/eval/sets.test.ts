// The own small-catalog sets stay sound: a held-out figure means nothing if the same request is
// also in the split tuned on, and a gold tool the catalog lacks makes a request unanswerable unseen.
import { describe, expect, it } from "vitest";
import { goldGroups } from "./harness.js";
import { loadSet, readSetQueries, readSuite } from "./suite.js";

/** A request as a reader meets it: case, punctuation and spacing do not make it another one. */
const normal = (q: string) =>
  q
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();

describe.each(readSuite().map((set) => [set.name, set] as const))("eval set %s", (_name, set) => {
  const queries = readSetQueries(set);

  it("has unique ids and holds each request in one split only", () => {
    expect(new Set(queries.map((q) => q.id)).size).toBe(queries.length);
    const splitOf = new Map<string, string>();
    const crossing: string[] = [];
    for (const q of queries) {
      const key = normal(q.query);
      const seen = splitOf.get(key);
      if (seen !== undefined && seen !== q.split) crossing.push(`${q.id} (${q.split}, also ${seen}): ${q.query}`);
      splitOf.set(key, q.split ?? "");
    }
    expect(crossing).toEqual([]);
  });

  it("names only tools its catalog has, and gives every answerable request a gold tool", async () => {
    const loaded = await loadSet(set);
    const keys = new Set(loaded.keyOf.values());
    const unknown = queries.flatMap((q) =>
      goldGroups(q)
        .flat()
        .filter((k) => !keys.has(k)),
    );
    expect(unknown).toEqual([]);
    expect(queries.filter((q) => q.kind === "answerable" && goldGroups(q).length === 0).map((q) => q.id)).toEqual([]);
  });
});
