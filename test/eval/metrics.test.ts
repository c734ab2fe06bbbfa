// The eval's verdict figures: "right tool hidden" beside false-none, and the everyday request list
// that measures each catalog's floor against stray-word matches.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { everydayRequests } from "./all.js";
import { Metrics, readJsonl, type EvalQuery } from "./harness.js";

describe("right tool hidden", () => {
  it("counts a none as hidden only where the right tool was ranked first (hidden@1) or in the top 3 (hidden@3)", () => {
    // Prepare: four answerable queries answered none (right tool 1st, 2nd, 5th, absent) and one shown.
    const m = new Metrics();
    m.add([["a"]], ["a", "b"], true);
    m.add([["a"]], ["b", "a"], true);
    m.add([["a"]], ["b", "c", "d", "e", "a"], true);
    m.add([["a"]], ["b"], true);
    m.add([["a"]], ["a"], false);
    m.add([], ["a"], true);

    // Act
    const f = m.figures();

    // Assess: false-none counts all four; hidden@1 one of the two right-first; hidden@3 two of three.
    expect(f.false_none).toBe(80);
    expect(f.hidden1).toBe(50);
    expect(f.hidden3).toBe(66.7);
    expect(f.none_rate).toBe(100);
  });
});

describe("everyday requests", () => {
  it("are 200 distinct requests, none of them a request of an eval set (written without reading their no-tool requests)", () => {
    const everyday = everydayRequests().map((q) => q.query.toLowerCase().trim());
    const dir = import.meta.dirname;
    const sets = [
      // Every request file of every set (queries, held-out splits), not its tools.
      ...readdirSync(join(dir, "sets"), { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .flatMap((d) =>
          readdirSync(join(dir, "sets", d.name))
            .filter((f) => f.endsWith(".jsonl") && f !== "tools.jsonl")
            .map((f) => join(dir, "sets", d.name, f)),
        ),
      ...readdirSync(join(dir, "cases"))
        .filter((f) => f.endsWith(".jsonl") && f !== "tools.jsonl")
        .map((f) => join(dir, "cases", f)),
    ];
    const asked = new Set(sets.flatMap((f) => readJsonl<EvalQuery>(f).map((q) => q.query.toLowerCase().trim())));

    expect(everyday).toHaveLength(200);
    expect(new Set(everyday).size).toBe(200);
    expect(everyday.filter((q) => asked.has(q))).toEqual([]);
  });
});
