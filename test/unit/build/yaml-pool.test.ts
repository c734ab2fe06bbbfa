// Parsing on worker threads must answer exactly as parsing on the main thread: values, syntax errors, lines.
import { readFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { parseYaml } from "../../../build/yaml.js";
import { YamlParser } from "../../../build/yaml-pool.js";
import { fixture } from "./helpers.js";

const pool = new YamlParser(2, 0);
afterAll(() => pool.close());

const TEXTS: [string, string][] = [
  ["weather.yaml", readFileSync(`${fixture("valid")}/families/weather/tools.yaml`, "utf8")],
  ["dup.yaml", readFileSync(`${fixture("yaml-syntax")}/families/demo/tools.yaml`, "utf8")],
  ["multi.yaml", "a: 1\n---\nb: 2\n"],
  ["bomb.yaml", "a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n"],
  ["empty.yaml", ""],
  ["cycle.yaml", "a: &a { b: *a }\n"],
];

describe("YAML on worker threads", () => {
  it("gives the same values, diagnostics and line numbers as the main thread", async () => {
    const pooled = await Promise.all(TEXTS.map(([f, t]) => pool.parse(t, f)));
    TEXTS.forEach(([f, t], i) => {
      const direct = parseYaml(t, f);
      const p = pooled[i]!;
      expect(p.value, f).toEqual(direct.value);
      expect(p.diagnostics, f).toEqual(direct.diagnostics);
      if (direct.value !== undefined) expect(p.lineOf(["tools", 1, "headers"]), f).toBe(direct.lineOf(["tools", 1, "headers"]));
    });
    expect(pooled[1]!.diagnostics[0]).toMatchObject({ code: "YAML_SYNTAX", line: 4 });
  });
});
