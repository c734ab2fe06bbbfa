// The misses view's snippet: whatever a caller sent (quotes, colons, #, YAML keywords, unicode), the YAML
// parses back to the tool's name and exactly the hints offered, so pasting it cannot break a registry file.
import fc from "fast-check";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { hintSnippet } from "../../console/src/yaml.js";

describe("hintSnippet", () => {
  it("names the family file and the tool's own name, and lists each hint once", () => {
    const { yaml, tooLong } = hintSnippet("notes.create", "aliases", ["new note", " new note ", "add note"]);
    expect(yaml).toBe(
      [
        "# registry/families/notes/<file>.yaml, the entry of notes.create: add to its aliases",
        "tools:",
        '  - name: "create"',
        "    aliases:",
        '      - "new note"',
        '      - "add note"',
        "",
      ].join("\n"),
    );
    expect(tooLong).toEqual([]);
  });

  it("flags hints longer than the registry allows", () => {
    expect(hintSnippet("time.now", "aliases", ["x".repeat(41)]).tooLong).toHaveLength(1);
    expect(hintSnippet("time.now", "examples", ["x".repeat(41)]).tooLong).toEqual([]);
  });

  it("parses back to the same values for any caller text", () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: "grapheme", minLength: 1, maxLength: 60 }), { minLength: 1, maxLength: 5 }),
        fc.constantFrom("aliases", "examples"),
        (values, kind) => {
          const { yaml } = hintSnippet("notes.create", kind, values);
          const expected = [...new Set(values.map((v) => v.trim()).filter(Boolean))];
          const parsed = parse(yaml) as { tools: Record<string, unknown>[] };
          expect(parsed.tools[0]).toEqual({ name: "create", [kind]: expected.length ? expected : null });
        },
      ),
    );
  });
});
