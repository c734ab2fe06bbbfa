// Output formats of the check: people read text, CI reads GitHub workflow commands, tools read JSON.
import { describe, expect, it } from "vitest";
import { formatDiagnostics } from "../../../build/report.js";
import type { Diagnostic } from "../../../registry/contract/diagnostics.js";

const d = (over: Partial<Diagnostic>): Diagnostic => ({
  severity: "error",
  code: "INVALID_VALUE",
  file: "families/a,b/x:y.yaml",
  path: "$.tools[0]",
  message: "100% wrong\nsecond line",
  ...over,
});

describe("check output", () => {
  it("escapes GitHub workflow command data and properties", () => {
    const out = formatDiagnostics([d({ line: 3, tool: "a.x" }), d({ severity: "warning", code: "FAMILY_SKIPPED" })], "github", "reg", {
      families: 1,
      tools: 0,
    });
    expect(out.split("\n")).toEqual([
      "::error file=reg/families/a%2Cb/x%3Ay.yaml,line=3,title=INVALID_VALUE::a.x $.tools[0]: 100%25 wrong%0Asecond line",
      "::warning file=reg/families/a%2Cb/x%3Ay.yaml,title=FAMILY_SKIPPED::$.tools[0]: 100%25 wrong%0Asecond line",
      "1 error, 1 warning",
      "",
    ]);
  });

  it("summarizes a clean registry, with warnings counted", () => {
    expect(formatDiagnostics([], "text", "reg", { families: 2, tools: 1 })).toBe("registry OK: 1 tool in 2 families\n");
    expect(formatDiagnostics([d({ severity: "warning" })], "json", "reg")).toContain('"ok": true');
  });
});
