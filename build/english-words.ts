// English words a catalog lacks that find's typo tolerance would otherwise read as misspellings of its terms
// ("last" → list, "love" → live, "tell" → toll): the runtime takes them as meant (analyse.ts `fuzzy`), and they
// reach only other forms of themselves (find-tuning.ts `formOf`) and other spellings (their synonym expansions).
// Only the words that matter to this catalog are kept, so the artifact grows by a few kilobytes.
import { encode } from "../registry/contract/search-options.js";
import { editDistance } from "../registry/contract/edit-distance.js";
import { formOf, STAGE_LIMITS, typoEdits } from "../registry/contract/find-tuning.js";
import { wordnetTaggedLemmas } from "./wordnet.js";

/** Every string made from `word` by deleting at most `d` letters (itself included). */
function deletions(word: string, d: number, out = new Set<string>()): Set<string> {
  out.add(word);
  if (d > 0) for (let i = 0; i < word.length; i++) deletions(word.slice(0, i) + word.slice(i + 1), d - 1, out);
  return out;
}

/**
 * The encoded everyday words of typo length, and every string made from each by deleting up to the letters the
 * runtime allows it (variant → words): the same for every catalog, so made once per process.
 */
let english: Promise<{ variants: Map<string, string[]>; longest: number }> | undefined;

function englishVariants() {
  english ??= (async () => {
    const words = new Set<string>();
    for (const lemma of await wordnetTaggedLemmas()) {
      const encoded = encode(lemma);
      if (encoded.length === 1 && encoded[0]!.length >= STAGE_LIMITS.typoMinLetters) words.add(encoded[0]!);
    }
    const variants = new Map<string, string[]>();
    for (const word of words) {
      for (const v of deletions(word, typoEdits(word))) {
        const list = variants.get(v);
        if (list) list.push(word);
        else variants.set(v, [word]);
      }
    }
    return { variants, longest: Math.max(...[...words].map((w) => w.length)) };
  })();
  return english;
}

/**
 * The encoded everyday English words (WordNet lemmas its tagged corpus met) that are not terms of the catalog
 * but lie within a typo's edit distance of a term that is neither another form of the word (`formOf`: time →
 * timer, healthy → health) nor another spelling of it (among its synonym expansions, `expand`: colour → color):
 * the words whose typo matches the runtime narrows to those. Sorted.
 * Two strings within distance d share a string made from each by deleting at most d letters: each term's
 * deletions are looked up among the words'.
 */
export async function englishWordsNear(terms: readonly string[], expand: Record<string, number[]> = {}): Promise<string[]> {
  const { variants, longest } = await englishVariants();
  const vocab = new Set(terms);
  const out = new Set<string>();
  terms.forEach((t, id) => {
    // The runtime's candidates: Latin terms of three letters or more (the FlexSearch vocabulary index's);
    // a term two edits from a word of typoTwoEdits letters has at least typoTwoEdits − 2.
    // A term longer than every word by more than two letters is no typo of one (and its deletions would be many).
    if (!/^[a-z][a-z0-9]{2,}$/.test(t) || t.length > longest + 2) return;
    for (const v of deletions(t, t.length >= STAGE_LIMITS.typoTwoEdits - 2 ? 2 : 1)) {
      for (const word of variants.get(v) ?? []) {
        if (out.has(word) || vocab.has(word) || formOf(word, t)) continue;
        const d = typoEdits(word);
        if (editDistance(word, t, d) > d) continue;
        if (!Object.hasOwn(expand, word) || !expand[word]!.includes(id)) out.add(word);
      }
    }
  });
  return [...out].sort();
}
