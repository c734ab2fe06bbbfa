// The search contract shared by the build (which indexes) and the Lambdas (which query):
// FlexSearch options, the text encoder, the scorer's parameters and the index format.
// Both sides must use exactly these: FlexSearch silently returns nothing when imported into a
// Document with other options, and a term encoded differently at query time never matches.
import { Charset, type DocumentOptions } from "flexsearch";
import { stemmer } from "stemmer";
import type { CatalogTool } from "./artifact.js";
import { verbOf } from "./names.js";
import type { JsonSchema } from "./schema-types.js";
import { DEFAULT_SCORER_PARAMS, type ScorerParams } from "./find-tuning.js";
import WORDS from "./find-tuning-words.json" with { type: "json" };

export { DEFAULT_SCORER_PARAMS, type ScorerParams };

/** Bump when the encoder, the scorer's statistics or the FlexSearch options change. */
export const SEARCH_INDEX_VERSION = 7;

/** FlexSearch record: one vocabulary term (a stem) per record, id = its index in `terms`; `s` repeats it. */
export type VocabRecord = { id: number; t: string; s: string };

/**
 * FlexSearch serves typo and prefix tolerance over the vocabulary: a query word the scorer does not
 * know is looked up here and mapped to the indexed terms it most likely meant (the scorer then keeps
 * only those within a small edit distance). `t`: LatinExtra (letters and sounds normalized, "wether",
 * "calender") with forward prefixes; `s`: Soundex codes, which also catch transposed letters.
 * Measured: LatinBalance alone recovers none of "wether", "forcast", "calender", "evnt".
 * Ranking is ours, not FlexSearch's (its own order is far below BM25 on tool text; see shared/eval/README.md).
 */
export function vocabIndexOptions(): DocumentOptions<VocabRecord> {
  return {
    document: {
      id: "id",
      index: [
        { field: "t", tokenize: "forward", encoder: Charset.LatinExtra },
        { field: "s", tokenize: "strict", encoder: Charset.LatinSoundex },
      ],
    },
  } as DocumentOptions<VocabRecord>;
}

export type FieldName = "name" | "desc" | "params" | "family" | "tags" | "aliases" | "examples" | "details";
/** The index's fields, in the order the build sums them: those the scorer weighs (name … examples, then details). */
export const FIELDS: readonly FieldName[] = Object.keys(DEFAULT_SCORER_PARAMS.weight) as FieldName[];

/**
 * The index as stored in the artifact (index.json). Postings are packed little-endian binary in
 * base64 because a JSON array of half a million numbers parses several times slower.
 */
export type SearchIndexData = {
  version: number;
  params: ScorerParams;
  /** Tools, in catalog order, that the postings refer to. */
  docs: number;
  /** Sorted vocabulary of encoded terms (stems, CJK bigrams). */
  terms: string[];
  /** Document frequency per term; also the number of postings of the term. */
  df: number[];
  /**
   * Per term, the tools the idf counts when some tool has `details`: those holding the term in another
   * field, or, for a term only details hold, those whose details do. A long text says common words
   * (repository, token, account) in passing: counted, they would make the summaries' words look common.
   * Absent when no tool has details (the idf reads `df`).
   */
  idfDf?: number[];
  /** Doc ids per term, term after term: Uint16 when docs < 65536 else Uint32. */
  postings: string;
  /** Per posting, the BM25F saturation tf~/(k1+tf~) scaled to Uint16. */
  impacts: string;
  /** Build-time expansions: an encoded word → related vocabulary term ids (WordNet synonyms). */
  expand: Record<string, number[]>;
  /** Lexicon expansions: an encoded word → vocabulary term ids meant alike (weight `lexiconWeight`). */
  related: Record<string, number[]>;
  /** Lexicon capability expansions (weight `capabilityWeight`); absent when none or in older artifacts. */
  capability?: Record<string, number[]>;
  /** Paraphrase expansions: an encoded word → vocabulary term ids near it in word vectors (weight `paraphraseWeight`); absent in older artifacts. */
  similar?: Record<string, number[]>;
  /** Per document, the ids of the terms of its name (the verb), for the name-coverage boost. */
  nameTerms: number[][];
  /** Exported FlexSearch vocabulary index (key → data). */
  flex: [string, string][];
  /**
   * Encoded everyday English words (WordNet lemmas its sense-tagged corpus met) the catalog lacks that lie a
   * typo's distance from one of its terms (build/english-words.ts): a request's word among them is meant as
   * written and reaches only terms that extend it; absent in older artifacts (every unknown word may be a typo then).
   */
  englishWords?: string[];
  /** The action table (build/data/actions.json without its header); absent in older artifacts (no action rule then). */
  actions?: ActionTable;
};

/**
 * Word → action class (create, read, update, delete, send) in three tiers, word → scope (own, org,
 * repo), and the words before a request's verb: derived by build/actions.ts, read by
 * lambdas/core/find/actions.ts.
 */
export type ActionTable = {
  readonly seeds: Readonly<Record<string, string>>;
  readonly verbs: Readonly<Record<string, string>>;
  readonly nouns: Readonly<Record<string, string>>;
  readonly scopes: Readonly<Record<string, string>>;
  /** Words before a request's verb: "skip" (please, can, you) or "question" (what, how, does). */
  readonly lead: Readonly<Record<string, string>>;
};

export const IMPACT_SCALE = 65535;

// --- a tool's text by field ---

type Props = Record<string, { description?: unknown; properties?: unknown; items?: unknown } | undefined>;

/** Parameter names (split later by the encoder) and descriptions, one nesting level deep. */
function paramText(schema: JsonSchema | undefined, depth = 0): string {
  const props = (schema as { properties?: unknown } | undefined)?.properties;
  if (!props || typeof props !== "object" || depth > 1) return "";
  const parts: string[] = [];
  for (const [name, p] of Object.entries(props as Props)) {
    parts.push(name);
    if (typeof p?.description === "string") parts.push(p.description);
    if (p && typeof p === "object") {
      parts.push(paramText(p as JsonSchema, depth + 1));
      if (p.items && typeof p.items === "object") parts.push(paramText(p.items as JsonSchema, depth + 1));
    }
  }
  return parts.filter(Boolean).join(" ");
}

/** The text of each field of a tool, before encoding. The eval gives the baselines the same text. */
export function toolFieldTexts(tool: CatalogTool, familyDescription: string): Record<FieldName, string> {
  return {
    name: verbOf(tool.name),
    desc: tool.description,
    params: paramText(tool.input_schema),
    family: `${tool.family} ${familyDescription}`,
    tags: (tool.tags ?? []).join(" "),
    // One hint per line: the line breaks keep description pairs from spanning two hints.
    aliases: (tool.aliases ?? []).join("\n"),
    examples: (tool.examples ?? []).join("\n"),
    // The text after the description's sentence (an imported operation's long description), weighed well below it.
    details: tool.details ?? "",
  };
}

// --- the encoder -------------------------------------------------------------------------------

/** Words that carry no capability: English function words, agent phrasing and number words (find-tuning-words.json). */
export const STOPWORDS: ReadonlySet<string> = new Set([...WORDS.stopwords.words, ...WORDS.numberWords.words]);

// Agent preambles that say "search" but not what for; removed before tokenizing.
const PHRASES: RegExp[] = WORDS.agentPhrasing.patterns.map((p) => new RegExp(p, "gi"));
// All of them as one test: a request none matches is returned as it is after one scan, not five
// (most requests; a query is stripped several times a find). Only patterns without backreferences
// or named groups keep their meaning side by side in one alternation; otherwise every request takes the five passes.
const ANY_PHRASE = WORDS.agentPhrasing.patterns.some((p) => /\\[1-9k]|\(\?<[^=!]/.test(p))
  ? undefined
  : new RegExp(WORDS.agentPhrasing.patterns.map((p) => `(?:${p})`).join("|"), "i");

export function stripAgentPhrasing(q: string): string {
  if (ANY_PHRASE && !ANY_PHRASE.test(q)) return q;
  let s = q;
  for (const re of PHRASES) s = s.replace(re, " ");
  return s;
}

/** Split identifiers: snake_case, kebab-case, dotted.names, camelCase, HTTPServer. */
export function splitIdentifier(s: string): string {
  return (
    s
      // A plural acronym is its singular, as the stemmer makes "urls" (split as camelCase, URLs and IDs became "UR Ls", "I Ds").
      .replace(/(\p{Lu}{2,})s(?!\p{Ll})/gu, "$1")
      .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, "$1 $2")
      .replace(/(\p{Lu}+)(\p{Lu}\p{Ll})/gu, "$1 $2")
      .replace(/[_.\-/:]+/g, " ")
  );
}

// Opaque identifiers ("A1b2C3d4", "m4V1pWfTdJ": two or more letter/digit switches) carry no capability,
// and split as camelCase they turn into random short words that happen to be rare in the catalog.
const OPAQUE_ID = /\b(?=[A-Za-z0-9]{6,}\b)[A-Za-z0-9]*(?:[A-Za-z]\d+[A-Za-z]|\d[A-Za-z]+\d)[A-Za-z0-9]*\b/g;
const HAS_DIGIT = /\d/;
const ALL_DIGITS = /^\d+$/;
/** What splitIdentifier acts on: a capital letter or a separator. */
const IDENTIFIER_MARK = /[\p{Lu}_.\-/:]/u;
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
const TOKEN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+|[\p{L}\p{N}]+/gu;

/** A hyphenated pair of words; one whose part is a function word or a letter is also one word (to-do → todo, e-mail → email, check-in → checkin). */
const COMPOUND = /(?<![\p{L}-])(\p{L}+)-(\p{L}+)(?![\p{L}-])/gu;
const functionPart = (w: string) => w.length === 1 || STOPWORDS.has(w.toLowerCase());
const joinCompound = (m: string, a: string, b: string) => (functionPart(a) || functionPart(b) ? `${m} ${a}${b}` : m);

/** Stem of one lower-case Latin word (memoized: the stemmer is the hot part of query encoding). */
const stemCache = new Map<string, string>();
export function stem(word: string): string {
  let s = stemCache.get(word);
  if (s === undefined) {
    s = word.length <= 3 ? word : stemmer(word);
    if (stemCache.size < 100_000) stemCache.set(word, s);
  }
  return s;
}

/**
 * Encode text into terms: identifiers split, lower case, stopwords (number words too) and bare numbers dropped,
 * Latin words stemmed (plurals, tenses), CJK runs as character bigrams (no word spaces to split on).
 * `onWord` sees each kept Latin word with its stem (the build uses it for synonym lookup).
 */
export function encode(text: string, onWord?: (word: string, stem: string) => void): string[] {
  const out: string[] = [];
  // Most requests are lower-case prose: the identifier and opaque-id passes only run when they can match.
  const digits = HAS_DIGIT.test(text);
  const digitless = digits ? text.replace(OPAQUE_ID, " ") : text;
  const plain = digitless.includes("-") ? digitless.replace(COMPOUND, joinCompound) : digitless;
  const source = IDENTIFIER_MARK.test(plain) ? splitIdentifier(plain) : plain;
  // The per-token tests run only when the whole text can pass them (no pass above adds a digit or a CJK letter).
  const cjk = CJK.test(source);
  for (const m of source.matchAll(TOKEN)) {
    const tok = m[0];
    if (cjk && CJK.test(tok)) {
      const chars = [...tok];
      if (chars.length === 1) out.push(tok);
      for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i]! + chars[i + 1]!);
      continue;
    }
    const w = tok.toLowerCase();
    if (w.length < 2 || STOPWORDS.has(w) || (digits && ALL_DIGITS.test(w))) continue;
    const s = stem(w);
    onWord?.(w, s);
    out.push(s);
  }
  return out;
}

/** Adjacent term pairs, the phrase terms of the index (joined by a space, which no term contains). */
export function pairs(terms: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i + 1 < terms.length; i++) out.push(`${terms[i]} ${terms[i + 1]}`);
  return out;
}

// Arithmetic written in symbols, each pattern with the word it stands for (find-tuning-words.json).
const SYMBOL_WORDS: [RegExp, string][] = WORDS.symbols.patterns.map(([p, word]) => [new RegExp(p!, "g"), word!]);

/** A query's symbols spelled as the words they stand for, beside the symbols ("2 times 3" multiplies, it is not about time). */
export function spellSymbols(query: string): string {
  let s = query.replace(/(\d\s+)times(?=\s+\d)/gi, "$1multiply calculate");
  for (const [re, word] of SYMBOL_WORDS) s = s.replace(re, (m) => `${m}${word}`);
  return s;
}

/** Quoted text in a request: data it works on ("translate 'How are you?'"), not its own words (replace only: global). */
export const QUOTED_TEXT = /"[^"]*"|“[^”]*”|(?<!\w)'[^']*'(?!\w)/g;

// The input a request brings after a short label ("hash: hello world", "decode this: aGVsbG8=").
const LABELLED_INPUT = /^([^:\n]{1,40}):\s[\s\S]*$/;

/** Whether a request brings its input after a short label ("shuffle this playlist: intro, verse"). */
export function labelsInput(query: string): boolean {
  return LABELLED_INPUT.test(query);
}

/** A request without the input it brings after a short label: its own words, not its data. */
export function withoutLabelledInput(query: string): string {
  return query.replace(LABELLED_INPUT, "$1");
}

/** Encode an agent's query: its preamble removed first, its arithmetic symbols spelled out. */
export function encodeQuery(query: string): readonly string[] {
  const hit = queryCache.get(query);
  if (hit) return hit;
  const terms = encode(spellSymbols(stripAgentPhrasing(query)));
  // A query made only of phrasing ("find a tool") keeps its words rather than becoming empty.
  const out = terms.length ? terms : encode(query);
  // One find encodes its request (and the parts the judge reads) several times: the last few are kept.
  if (queryCache.size >= 64) queryCache.delete(queryCache.keys().next().value!);
  queryCache.set(query, out);
  return out;
}
const queryCache = new Map<string, readonly string[]>();
