// The authoring guide's code table (registry/schema/README.md) lists every code the check reports, once,
// and no code the check does not have: the rules are stated where people read them.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { REGISTRY_CODES } from "../../../registry/contract/diagnostics.js";

const guide = readFileSync(new URL("../../../registry/schema/README.md", import.meta.url), "utf8");

describe("registry codes in the authoring guide", () => {
  it("has one table row per code, with its severity", () => {
    const rows = [...guide.matchAll(/^\| `([A-Z_]+)` \| (error|warning)[^|]* \| .+ \|$/gm)].map((m) => m[1]);
    expect([...rows].sort()).toEqual([...REGISTRY_CODES].sort());
  });
});
