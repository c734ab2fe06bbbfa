// Find's algorithm files hold no word lists and no tuning numbers of their own (issue 27): the lists are
// data files with a header saying their source and purpose (lambdas/core/find/data/*.json,
// registry/contract/find-tuning-words.json) and the numbers are registry/contract/find-tuning.ts. The scan
// is tested on a small sample first, so a scan that finds nothing cannot pass by accident.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "../../..");
const FIND = "lambdas/core/find";

/** A word list written in code: a regex alternation of 6+ bare words, an array of 8+ string literals, or a string of 12+ words split apart. */
function wordLists(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/\((?:\?:)?((?:[a-z]+\|){5,}[a-z]+)\)/gi)) found.push(`alternation ${m[1]!.slice(0, 40)}`);
  for (const m of text.matchAll(/\[\s*((?:"[^"\n]*"\s*,\s*){7,}"[^"\n]*")\s*,?\s*\]/g)) found.push(`array ${m[1]!.slice(0, 40)}`);
  for (const m of text.matchAll(/"((?:[\p{L}]+ ){11,}[\p{L}]+ ?)"/gu))
    if (/\.split\(/.test(text.slice(m.index, m.index + m[0].length + 200))) found.push(`words ${m[1]!.slice(0, 40)}`);
  return found;
}

/** The knobs and list files' headers: every list file says what it is for. */
const about = (file: string) => (JSON.parse(readFileSync(join(ROOT, file), "utf8")) as { _about?: unknown })._about;

describe("find's algorithm files", () => {
  it("the scan finds each kind of word list in a sample, and not a short list or prose", () => {
    const sample = [
      `const A = /\\b(?:what|why|who|whom|whose|when)\\b/i;`,
      `const B = ["text", "texts", "content", "body", "message", "document", "paragraph", "passage"];`,
      `const C = new Set("a an the and or but if then else of to in on".split(" "));`,
      `const fine = /^(?:get|set)$/; const pair = ["a", "b"]; // a comment of many words that are not split at all here`,
    ].join("\n");
    expect(wordLists(sample).map((f) => f.split(" ")[0])).toEqual(["alternation", "array", "words"]);
  });

  const files = [
    ...readdirSync(join(ROOT, FIND))
      .filter((f) => f.endsWith(".ts"))
      .map((f) => `${FIND}/${f}`),
    "registry/contract/search-options.ts",
    "build/search-index.ts",
  ];

  it.each(files)("%s holds no word list", (file) => {
    expect(wordLists(readFileSync(join(ROOT, file), "utf8"))).toEqual([]);
  });

  it("every word-list file says its source and purpose", () => {
    const lists = [
      ...readdirSync(join(ROOT, FIND, "data"))
        .filter((f) => f.endsWith(".json"))
        .map((f) => `${FIND}/data/${f}`),
      "registry/contract/find-tuning-words.json",
    ];
    expect(lists.length).toBeGreaterThan(1);
    for (const f of lists) expect(about(f), f).toEqual(expect.stringMatching(/\w{3,}.{40,}/));
  });
});
