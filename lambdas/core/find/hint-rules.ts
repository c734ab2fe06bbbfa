// The judge's rules for a tool whose author wrote search hints (or any tool of a catalog whose
// authors mostly did): tests on the request's words against the catalog and the top tool's matches.
// The fit model (verdict.ts) was fitted on catalogs without hints; these read the author's words.
import type { MatchedWord } from "../../contract/find.js";
import { encode, encodeQuery, QUOTED_TEXT, stripAgentPhrasing, withoutLabelledInput } from "../../../registry/contract/search-options.js";
import type { SearchIndex } from "./postings.js";
import { COMMON_WORDS, PREPOSITION } from "./words.js";
import { editDistance } from "../../../registry/contract/edit-distance.js";
import { STAGE_LIMITS, typoEdits } from "../../../registry/contract/find-tuning.js";

/** Data a request brings rather than words: quoted text, and tokens holding a dot, slash, @ or digit between word characters. */
const DATA_TOKEN = new RegExp(String.raw`${QUOTED_TEXT.source}|\S*\w[./\\@]\w\S*|\S*[A-Za-z]\d\S*|\S*\d[A-Za-z]\S*`, "g");

/** A capitalized word after the first one: a name the request brings ("Lima", "Christmas"), not a word for what it asks. */
const INNER_NAME = /(?<=\S\s+)\p{Lu}[\p{L}'’]*/gu;

/**
 * A stray match on a tool with search hints: the query hit none of its authored words (name, tags,
 * aliases, examples) itself, only description or parameter words, or authored words through an
 * expansion the build made (a synonym, a lexicon entry, a paraphrase). An author who wrote how users ask
 * for the tool did not anticipate this request ("walk the dog" reaching a tool that waits). A typo match
 * of an authored word meets it ("sumarize" → summarize): the analyser gives a typo match only to a word the
 * catalog lacks that is no everyday English word near another one (analyse.ts `fuzzy`), so it is the word meant.
 * `authored` is explain's answer over the authored fields.
 */
export function strayMatch(authored: readonly MatchedWord[], index: SearchIndex): boolean {
  return !authored.some((m) => m.expansion === undefined || typoMatch(m, index));
}

/** Whether a match went through a typo match: the request's word as the analyser corrects it (`fuzzy`), not by any table of the build. */
function typoMatch(m: MatchedWord, index: SearchIndex): boolean {
  const [word] = encode(m.word);
  const [term] = encode(m.expansion ?? "");
  if (word === undefined || term === undefined || word.length < STAGE_LIMITS.typoMinLetters || index.termOf(word) !== undefined) return false;
  const id = index.termOf(term);
  if (id === undefined || index.bridgesTo(word, id) || !index.typoReaches(word, id)) return false;
  const edits = typoEdits(word);
  return editDistance(word, term, edits) <= edits;
}

/** The encoded words of a tool's matches (explain's), expansions included. */
export const matchedWords = (hits: readonly MatchedWord[]): Set<string> => new Set(hits.flatMap((m) => encode(m.word)));

/** Whether a tool met the request directly (not through an expansion) in a specific word, one not among the commonest English words. */
export const specificHit = (hits: readonly MatchedWord[]): boolean =>
  hits.some((m) => m.expansion === undefined && encode(m.word).some((w) => !COMMON_WORDS.has(w)));

/**
 * The specific words of what a request asks for: its words before the first preposition, the agent's
 * phrasing, data and everyday filler left out ("remind me | to water the plants" → remind; "load the
 * dishwasher" → load, dishwasher). What follows is where, when or what with: what it hands a tool.
 */
export function askedWords(query: string): string[] {
  return headWords(query).filter((t) => !COMMON_WORDS.has(t));
}

/** The words of what a request asks for, everyday ones included ("permanently delete an issue" → perman, delet, issu). */
export function headWords(query: string): string[] {
  const head = stripAgentPhrasing(query).split(PREPOSITION)[0]!;
  return [...new Set(encodeQuery(withoutLabelledInput(head).replace(DATA_TOKEN, " ")))];
}

export class RequestWords {
  constructor(private readonly index: SearchIndex) {}

  /**
   * Whether a query has two or more words and one of them is foreign: the catalog cannot reach it (no
   * term, no expansion; typo matches aside) and it is not everyday filler ("much", "left"). Data the
   * request brings (a file name, path, version or address: a token with a dot, slash, @ or digit;
   * quoted text; the input after a label, "hash: hello world") is the input, not a word for something
   * outside the catalog ("setup.py" is no foreign "py").
   */
  foreignWord(query: string): string | undefined {
    return this.otherWords(query).find((t) => this.index.termOf(t) === undefined && !this.index.isRealWord(t));
  }

  /** Another word of a query of two or more, not data and not everyday filler, that the top tool did not match (`matched`: encoded words). */
  unmatchedWord(query: string, matched: ReadonlySet<string>): string | undefined {
    return this.otherWords(query).find((t) => !matched.has(t));
  }

  /**
   * A word the request names before its first preposition (what it asks for, not where or when: "show me
   * flights | to rome"), a specific one the catalog lacks (no term) and the top tool did not match
   * (`matched`: encoded words, expansions included). A capitalized word inside the request is a name it
   * brings ("in Lima"), data like a file name.
   */
  unknownObject(query: string, matched: ReadonlySet<string>): string | undefined {
    const head = query.split(PREPOSITION)[0]!;
    return this.otherWords(head, true).find((t) => !matched.has(t) && this.index.termOf(t) === undefined);
  }

  /** A query's own words that are not everyday filler (data and, with `names`, capitalized names left out), when it has two or more words; else none. */
  private otherWords(query: string, names = false): string[] {
    if (new Set(encodeQuery(query)).size < 2) return [];
    const text = withoutLabelledInput(query).replace(DATA_TOKEN, " ");
    return [...new Set(encodeQuery(names ? text.replace(INNER_NAME, " ") : text))].filter((t) => !COMMON_WORDS.has(t));
  }
}
