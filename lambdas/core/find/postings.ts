// The artifact's search index, decoded once per cold start and shared by every stage: the sorted
// vocabulary with its idf, the postings (tool ids and BM25F impacts) and the build's expansion tables.
import { ToolbeltError } from "../errors.js";
import { SEARCH_INDEX_VERSION, type SearchIndexData } from "../../../registry/contract/search-options.js";
import { sortedIndexOf } from "./sorted.js";
import { formOf } from "../../../registry/contract/find-tuning.js";

const NONE: readonly number[] = Object.freeze([]);

/**
 * A table's entry for a query word, own keys only: the tables are plain objects from JSON and a
 * word like "constructor" or "toString" must not answer with Object.prototype's function.
 * Read through a Map of the table's own entries, built at its first look-up (not at import; ~3 ms for
 * a 6,000-word table, once): most words are in no table, and a missed key on a large plain object
 * walks the string table and the prototype, about 5× a Map's miss (10k profile: 5% of a find).
 * The artifact's tables are never mutated, so the Map stays exact.
 */
export function ownList(table: Record<string, number[]>, key: string): readonly number[] {
  return ownEntry(table, key) ?? NONE;
}

/** A table's own entry for a key (undefined: none), read as `ownList` reads: through a Map built at its first look-up. */
export function ownEntry<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
  let map = ownEntries.get(table) as Map<string, T> | undefined;
  if (map === undefined) ownEntries.set(table, (map = new Map(Object.entries(table))));
  return map.get(key);
}
const ownEntries = new WeakMap<object, Map<string, unknown>>();

export class SearchIndex {
  readonly docs: number;
  readonly terms: string[];
  /** Postings of term t: ids[start[t] … start[t+1]), in catalog order, with their impacts. */
  readonly start: Uint32Array;
  readonly ids: Uint16Array | Uint32Array;
  readonly imp: Uint16Array;
  readonly idf: Float64Array;
  /** The idf of a word in one tool: the unit every score is calibrated against. */
  readonly idfMax: number;
  readonly expand: Record<string, number[]>;
  readonly related: Record<string, number[]>;
  readonly capability: Record<string, number[]>;
  readonly similar: Record<string, number[]>;
  /** The build's weights of its expansion tables (0: the table is not used). */
  readonly synonymWeight: number;
  readonly lexiconWeight: number;
  readonly capabilityWeight: number;
  readonly paraphraseWeight: number;
  /** Per tool, the term ids of its name, and their summed idf. */
  readonly nameTerms: number[][];
  readonly nameMass: Float64Array;
  /** The same name terms in one array, tool d's at nameIds[nameStart[d] … nameStart[d+1]): scoring reads them for every tool it finishes. */
  readonly nameStart: Uint32Array;
  readonly nameIds: Uint32Array;
  readonly flexData: [string, string][];

  constructor(readonly data: SearchIndexData) {
    if (data.version !== SEARCH_INDEX_VERSION) {
      throw new ToolbeltError("INTERNAL", `search index version ${data.version}, this runtime reads ${SEARCH_INDEX_VERSION}: rebuild the artifact`);
    }
    const n = data.docs;
    this.docs = n;
    this.terms = data.terms;
    this.start = new Uint32Array(data.terms.length + 1);
    data.df.forEach((df, i) => (this.start[i + 1] = this.start[i]! + df));
    const N = Math.max(1, n);
    // A catalog with details reads each word's rarity from the tools' other fields (`idfDf`).
    this.idf = Float64Array.from(data.idfDf ?? data.df, (df) => Math.log((N - df + 0.5) / (df + 0.5) + 1));
    this.idfMax = Math.log((N - 1 + 0.5) / 1.5 + 1);
    const ids = new Uint8Array(Buffer.from(data.postings, "base64")); // aligned copy for the typed views
    this.ids = n < 65536 ? new Uint16Array(ids.buffer, 0, ids.byteLength / 2) : new Uint32Array(ids.buffer, 0, ids.byteLength / 4);
    const imp = new Uint8Array(Buffer.from(data.impacts, "base64"));
    this.imp = new Uint16Array(imp.buffer, 0, imp.byteLength / 2);
    this.expand = data.expand;
    this.synonymWeight = data.params.synonymWeight;
    this.related = data.related;
    this.lexiconWeight = data.params.lexiconWeight ?? 0;
    this.capability = data.capability ?? {};
    this.capabilityWeight = data.params.capabilityWeight ?? 0;
    this.similar = data.similar ?? {};
    this.paraphraseWeight = data.params.paraphraseWeight ?? 0;
    this.nameTerms = data.nameTerms;
    this.nameMass = Float64Array.from(data.nameTerms, (ts) => ts.reduce((s, t) => s + this.idf[t]!, 0));
    const nameStart = new Uint32Array(n + 1);
    for (let d = 0; d < n; d++) nameStart[d + 1] = nameStart[d]! + data.nameTerms[d]!.length;
    const nameIds = new Uint32Array(nameStart[n]!);
    for (let d = 0, i = 0; d < n; d++) for (const t of data.nameTerms[d]!) nameIds[i++] = t;
    this.nameStart = nameStart;
    this.nameIds = nameIds;
    this.flexData = data.flex;
  }

  /**
   * Id of a vocabulary term. A find looks up every query word and word pair several times (retrieve,
   * judge): a map built at the first query, not at import, replaces the binary search over the sorted terms.
   */
  termOf(t: string): number | undefined {
    return (this.termIds ??= new Map(this.terms.map((term, i) => [term, i]))).get(t);
  }
  private termIds: Map<string, number> | undefined;

  /** Where `doc` is among the postings of `term` (a binary search: postings are in catalog order). */
  posting(term: number, doc: number): number | undefined {
    return sortedIndexOf(this.ids, doc, this.start[term]!, this.start[term + 1]!);
  }

  /**
   * Whether the analyser may read `word` (a word the catalog lacks) as a typo of term `id`: any term, unless the
   * word is an everyday English word near another one (the build's `englishWords`), which reaches only another
   * form of itself (`formOf`: time → timer, healthy → health) or another spelling (its synonym expansions: colour → color).
   */
  typoReaches(word: string, id: number): boolean {
    if (!(this.englishWords ??= new Set(this.data.englishWords)).has(word)) return true;
    return formOf(word, this.terms[id]!) || ownList(this.expand, word).includes(id);
  }
  private englishWords: Set<string> | undefined;

  /** The build's expansion tables of words the catalog lacks: WordNet synonyms, the lexicon, its capability pairs, the paraphrases. */
  private get bridges(): readonly Record<string, number[]>[] {
    return (this.bridgeTables ??= [this.expand, this.related, this.capability, this.similar]);
  }
  private bridgeTables: readonly Record<string, number[]>[] | undefined;

  /** Whether one of the build's expansion tables links `word` to term `id` (a synonym, a lexicon entry, a paraphrase: not a typo). */
  bridgesTo(word: string, id: number): boolean {
    return this.bridges.some((table) => ownList(table, word).includes(id));
  }

  /** A word the catalog lacks that the build bridged (WordNet, lexicon, paraphrase table): a real word, not a typo. */
  isRealWord(t: string): boolean {
    return this.bridges.some((table) => ownList(table, t).length > 0);
  }
}
