// English words a catalog lacks that find's typo tolerance would otherwise read as misspellings of its terms
// ("last" → list, "love" → live, "tell" → toll): the runtime takes them as meant (analyse.ts `fuzzy`).
// Only the words that matter to this catalog are kept, so the artifact grows by a few kilobytes.
import { encode } from "../registry/contract/search-options.js";
import { editDistance } from "../registry/contract/edit-distance.js";
import { STAGE_LIMITS, typoEdits } from "../registry/contract/find-tuning.js";
import { wordnetSynonyms, wordnetTaggedLemmas } from "./wordnet.js";

/** Every string made from `word` by deleting at most `d` letters (itself included). */
function deletions(word: string, d: number, out = new Set<string>()): Set<string> {
  out.add(word);
  if (d > 0) for (let i = 0; i < word.length; i++) deletions(word.slice(0, i) + word.slice(i + 1), d - 1, out);
  return out;
}

/** An everyday English word as the index encodes it, with the lemmas behind it. */
type English = { word: string; lemmas: string[] /** Its lemmas' WordNet synonyms, encoded (at a catalog's first need). */; synonyms?: Set<string> };

/**
 * The encoded everyday words of typo length, and every string made from each by deleting up to the letters the
 * runtime allows it (variant → words): the same for every catalog, so made once per process.
 */
let english: Promise<{ words: Map<string, English>; variants: Map<string, English[]>; longest: number }> | undefined;

function englishVariants() {
  english ??= (async () => {
    const words = new Map<string, English>();
    for (const lemma of await wordnetTaggedLemmas()) {
      const encoded = encode(lemma);
      if (encoded.length !== 1 || encoded[0]!.length < STAGE_LIMITS.typoMinLetters) continue;
      const word = encoded[0]!;
      const had = words.get(word);
      if (had) had.lemmas.push(lemma);
      else words.set(word, { word, lemmas: [lemma] });
    }
    const variants = new Map<string, English[]>();
    for (const e of words.values()) {
      for (const v of deletions(e.word, typoEdits(e.word))) {
        const list = variants.get(v);
        if (list) list.push(e);
        else variants.set(v, [e]);
      }
    }
    const longest = Math.max(...[...words.keys()].map((w) => w.length));
    return { words, variants, longest };
  })();
  return english;
}

/**
 * The encoded everyday English words (WordNet lemmas its tagged corpus met) that are not terms of the catalog
 * but lie within a typo's edit distance of one that does not extend them: the words whose typo matches the
 * runtime drops. A word whose only near terms extend it keeps them ("week" → weekly) and is left out, and so is one
 * near another spelling of itself (a WordNet synonym: "colour" → color). Sorted.
 * Two strings within distance d share a string made from each by deleting at most d letters: each term's
 * deletions are looked up among the words'.
 */
export async function englishWordsNear(terms: readonly string[]): Promise<string[]> {
  const { variants, longest } = await englishVariants();
  const vocab = new Set(terms);
  // Per word, the terms a typo match would reach other than by extending it.
  const spelt = new Map<English, string[]>();
  for (const t of terms) {
    // The runtime's candidates: Latin terms of three letters or more (the FlexSearch vocabulary index's);
    // a term two edits from a word of typoTwoEdits letters has at least typoTwoEdits − 2.
    // A term longer than every word by more than two letters is no typo of one (and its deletions would be many).
    if (!/^[a-z][a-z0-9]{2,}$/.test(t) || t.length > longest + 2) continue;
    for (const v of deletions(t, t.length >= STAGE_LIMITS.typoTwoEdits - 2 ? 2 : 1)) {
      for (const e of variants.get(v) ?? []) {
        if (vocab.has(e.word) || t.startsWith(e.word)) continue;
        const d = typoEdits(e.word);
        if (editDistance(e.word, t, d) > d) continue;
        const list = spelt.get(e);
        if (!list) spelt.set(e, [t]);
        else if (!list.includes(t)) list.push(t);
      }
    }
  }
  const synonyms = await wordnetSynonyms();
  const out: string[] = [];
  for (const [e, near] of spelt) {
    // Another spelling of the same word ("colour" → color, "analyse" → analyz) is what the typo match is for: the word keeps it.
    e.synonyms ??= new Set(e.lemmas.flatMap((l) => synonyms.get(l) ?? []).flatMap((s) => encode(s)));
    if (!near.some((t) => e.synonyms!.has(t))) out.push(e.word);
  }
  return out.sort();
}
