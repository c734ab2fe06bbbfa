// A small lexicon of the words agents and tool authors use for the same capability ("save" a file vs
// write_file, "folder" vs directory), read at build time from data files under build/data/, each with
// a header saying its source and purpose. WordNet misses most of these: its senses are general
// English, not software. Each line is a group; at build time every word of a group reaches the other
// words of the group that the catalog contains (see search-index.ts).
// General vocabulary only: no product, service or eval catalog's domain (docs/find-decisions.md).
//
// Two weights: the generic verbs (lexicon-verbs.txt: change, fetch, new stray into every catalog) at
// `lexiconWeight`; the object groups (lexicon-objects.txt: folder, chart) at the stronger
// `capabilityWeight`, word pair by word pair where both words are specific (`strongWord`); the other
// pairs of an object group stay at `lexiconWeight`.
import { readFileSync } from "node:fs";
import type { WordLookup } from "./wordnet.js";

/** The lines of a data file under build/data/: `#` starts a comment, blank lines are skipped. */
export function dataLines(file: string): string[] {
  return readFileSync(new URL(`./data/${file}`, import.meta.url), "utf8")
    .split("\n")
    .map((l) => l.replace(/#.*$/, "").trim())
    .filter(Boolean);
}

const groups = (file: string): string[][] =>
  dataLines(file)
    .map((l) => l.split(/\s+/).filter((g, i, all) => all.indexOf(g) === i))
    .filter((g) => g.length > 1);

let loaded: { verbs: string[][]; objects: string[][]; weak: Set<string> } | undefined;
const lexicon = () => (loaded ??= { verbs: groups("lexicon-verbs.txt"), objects: groups("lexicon-objects.txt"), weak: new Set(dataLines("lexicon-weak.txt")) });

/** Groups of words meant alike, as written in the data files (lower case, unstemmed): the verbs, then the object groups. */
export function lexiconGroups(): string[][] {
  const { verbs, objects } = lexicon();
  return [...verbs, ...objects];
}

/** WordNet senses above this make a word generic ("page" 9, "close" 37): its pairs stay at the verb weight. */
const MAX_SENSES = 6;

/**
 * Whether an object word may carry the strong weight: not marked weak (lexicon-weak.txt), at most
 * MAX_SENSES WordNet senses, and its stem is not another English word ("listing" encodes as "list",
 * "dependency" as "depend": the stem would pull in that word's requests).
 */
export function strongWord(word: string, stem: string, senses: WordLookup<number>): boolean {
  return !lexicon().weak.has(word) && (senses.get(word) ?? 1) <= MAX_SENSES && (stem === word || senses.get(stem) === undefined);
}

/** Word pairs of a group (a reaches b, both as written) with whether the pair may carry the capability weight. */
export function lexiconPairs(encode: (word: string) => string | undefined, senses: WordLookup<number>): { from: string; to: string; strong: boolean }[] {
  const out: { from: string; to: string; strong: boolean }[] = [];
  const add = (list: string[][], capability: boolean) => {
    for (const group of list) {
      const words = group.flatMap((w) => {
        const stem = encode(w);
        return stem === undefined ? [] : [{ stem, strong: capability && strongWord(w, stem, senses) }];
      });
      for (const a of words) for (const b of words) if (a.stem !== b.stem) out.push({ from: a.stem, to: b.stem, strong: a.strong && b.strong });
    }
  };
  const { verbs, objects } = lexicon();
  add(verbs, false);
  add(objects, true);
  return out;
}
