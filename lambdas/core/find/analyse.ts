// Stage 1, analyse: a request becomes its steps and its query words, each word with the vocabulary
// terms it may match (itself, typo matches, and the build's expansions: synonyms, lexicon, paraphrases)
// at their weights. Typos go through the imported FlexSearch vocabulary index, loaded at the first
// unknown word. Nothing here scores a tool.
import { Document } from "flexsearch";
import { editDistance } from "../../../registry/contract/edit-distance.js";
import {
  encode,
  encodeQuery,
  pairs,
  stripAgentPhrasing,
  vocabIndexOptions,
  type ActionTable,
  type VocabRecord,
} from "../../../registry/contract/search-options.js";
import { actionWords, apiCatalog, imperativeVerb, ownerWords, questionAction, requestActionWord, scopeOf } from "./actions.js";
import { askedWords } from "./hint-rules.js";
import { ownList, type SearchIndex } from "./postings.js";
import type { WorkUnits } from "./work.js";
import { segments } from "./segment.js";
import { QUESTION_FILLER, RECIPIENTS, THING_QUESTIONS } from "./words.js";
import { STAGE_LIMITS, typoEdits, type QueryParams } from "../../../registry/contract/find-tuning.js";

/** A vocabulary term a query word may match, at a weight relative to the word itself. */
export type Member = { term: number; w: number };
/** A query word (encoded, once) with the steps it occurs in (a bit mask) and the terms it may match. */
export type Group = { word: string; mask: number; members: Member[] };

/**
 * What analyse hands to retrieve and rerank: the steps (one for a single-capability request), the
 * words, and the action the request asks for (actions.ts; undefined when it names none or the
 * artifact has no action table) with the request's length in words, agent phrasing left out.
 */
export type Analysis = {
  steps: number;
  groups: Group[];
  action?: string | undefined;
  /** The request's word that names its action ("remind" → create), with `action`. */
  actionWord?: string | undefined;
  words: number;
  /** With an action, the words of what the request asks for besides its action word ("create a reminder | to …" → reminder). */
  object?: Group[];
  /** Whose things the request is about (`Scope` bits of actions.ts; 0: it does not say). */
  scope?: number;
  /** The verb of an imperative request, whether or not it names an action class (actions.ts `imperativeVerb`; undefined for a question). */
  verb?: string | undefined;
  /**
   * Whether the rerank weighs the request's action: a request of at most `actionMaxWords` words (a longer one often
   * names several actions), or `apiActionMaxWords` in an API's catalog, where a request's imperative verb decides among
   * operations that differ in their verb only.
   */
  weighed?: boolean;
  /** The most words a request may have for its action to be weighed, in this catalog (explain says it). */
  reach?: number;
  /** A which/what question's asked-for thing ("which PRs contain …" → PRs), as index terms (exact or an abbreviation's pair). */
  asks?: ReadonlySet<number>;
};

/** The terms of a which/what question's asked-for thing: its one or two words after the wh-word and filler. */
function askedThing(words: readonly string[], groups: readonly Group[]): Set<number> | undefined {
  const at = words.findIndex((w) => THING_QUESTIONS.has(w));
  if (at < 0 || at > 2) return undefined;
  let i = at + 1;
  while (i < words.length && QUESTION_FILLER.has(words[i]!)) i++;
  // "PRs": an abbreviation's plural is its initials (encodeQuery reads it so from the request's capitals).
  const thing = words.slice(i, i + 2).flatMap((w) => (w.length <= 4 && w.endsWith("s") ? encode(w.slice(0, -1)) : encode(w)));
  if (!thing.length) return undefined;
  const keys = new Set([...thing, ...pairs(thing)]);
  const out = new Set<number>();
  for (const g of groups) if (keys.has(g.word)) for (const m of g.members) if (m.w >= 1) out.add(m.term);
  return out.size ? out : undefined;
}

/**
 * The request's words without the pronoun its verb hands the answer to ("show me | the README of rails/rails",
 * "get me the latest release"): that "me" is the recipient, not whose things the request is about.
 */
function withoutRecipient(words: readonly string[], verb: string | undefined): readonly string[] {
  const at = verb === undefined ? -1 : words.indexOf(verb);
  return at >= 0 && RECIPIENTS.has(words[at + 1]!) ? [...words.slice(0, at + 1), ...words.slice(at + 2)] : words;
}

/** A word that may be an abbreviation by initials: two capital letters, as English writes one ("PR", "CI"), or its plural ("PRs"). */
const ACRONYM = /\b([A-Z]{2})s?\b/g;
/** A word holding a slash between letters or digits: a name or a path ("octo-org/website", "src/app.ts", a URL). */
const SLASHED = /[A-Za-z0-9]\/[A-Za-z0-9]/;

/** The text with each of its names and paths (`SLASHED`) replaced by `by`'s answer; one pass over its words. */
function replaceNames(text: string, by: (name: string) => string): string {
  return text.includes("/") ? text.replace(/\S+/g, (w) => (SLASHED.test(w) ? by(w) : w)) : text;
}

const TYPO_WORD = new RegExp(`^[a-z][a-z0-9]{${STAGE_LIMITS.typoMinLetters - 1},}$`);

/** A name or path's words without the scope words of the catalog's action table, for retrieval. */
function withoutScopeWords(name: string, table: ActionTable): string {
  return name
    .split(/([^A-Za-z]+)/)
    .map((w) => (scopeOf([w.toLowerCase()], table) ? " " : w))
    .join("");
}

export class Analyser {
  private flex: Document<VocabRecord> | undefined;
  private readonly fuzzyCache = new Map<string, Member[]>();
  private acronymTable: Map<string, number> | undefined;

  constructor(
    private readonly index: SearchIndex,
    private readonly params: QueryParams,
    private readonly work?: WorkUnits,
  ) {}

  /** Import the FlexSearch vocabulary index (once; only queries with unknown words need it). */
  loadFuzzy(): Document<VocabRecord> {
    if (!this.flex) {
      const doc = new Document<VocabRecord>(vocabIndexOptions());
      for (const [k, v] of this.index.flexData) doc.import(k, v);
      this.flex = doc;
    }
    return this.flex;
  }

  /** The steps of a request and its words, steps beyond the mask width merged into the last one. */
  analyse(query: string, stepTexts: string[] = segments(query)): Analysis {
    const max = STAGE_LIMITS.maxSteps;
    const steps = stepTexts.length > 1 ? stepTexts.slice(0, max) : [query];
    if (stepTexts.length > max) steps[max - 1] = stepTexts.slice(max - 1).join(". ");
    const table = this.index.data.actions;
    // A name or path is one word and says no action or scope ("octo-org/website" is nobody's organisation).
    const words = table ? actionWords(replaceNames(stripAgentPhrasing(query), () => " name ")) : [];
    // A scope word inside a name or path is part of the name: "octo-org/website" is nobody's organisation.
    const groups = this.groups(table ? steps.map((s) => replaceNames(s, (name) => withoutScopeWords(name, table))) : steps);
    // A question about what is asks to read, in an API's catalog (actions.ts `questionAction`).
    const api = apiCatalog(this.index);
    const asked = table && (requestActionWord(words, table) ?? (api ? questionAction(words, table) : undefined));
    const verb = table ? imperativeVerb(words, table) : undefined;
    const scope = table ? scopeOf(ownerWords(withoutRecipient(words, verb), table), table) : 0;
    const reach = api ? STAGE_LIMITS.apiActionMaxWords : STAGE_LIMITS.actionMaxWords;
    const weighed = words.length <= reach;
    const asks = api ? askedThing(words, groups) : undefined;
    if (!asked || !weighed)
      return { steps: steps.length, groups, action: asked?.action, actionWord: asked?.word, words: words.length, scope, verb, weighed, reach, asks };
    const actionTerms = new Set(encode(asked.word));
    const object = new Set(askedWords(query).filter((t) => !actionTerms.has(t)));
    return {
      steps: steps.length,
      groups,
      action: asked.action,
      actionWord: asked.word,
      words: words.length,
      object: groups.filter((g) => object.has(g.word)),
      scope,
      verb,
      weighed,
      reach,
      asks,
    };
  }

  /**
   * For explain: each encoded query word (phrase pairs left out) with the vocabulary terms it can
   * match, the word itself first, then its expansions (typo, synonym, lexicon, paraphrase), strongest first.
   * `groups`: the request's own analysis when it is one step (the same words), so find analyses it once.
   */
  matchable(query: string, groups: readonly Group[] = this.groups([query])): { term: string; reach: string[] }[] {
    return groups
      .filter((g) => !g.word.includes(" "))
      .map((g) => ({ term: g.word, reach: [...g.members].sort((a, b) => b.w - a.w || a.term - b.term).map((m) => this.index.terms[m.term]!) }));
  }

  /** Query words (encoded, each once) with the steps they occur in, as a bit mask. */
  private groups(steps: string[]): Group[] {
    const ix = this.index;
    const abbreviations = this.params.acronymWeight > 0 ? new Set(steps.flatMap((s) => [...s.matchAll(ACRONYM)].map((m) => m[1]!.toLowerCase()))) : undefined;
    const mask = new Map<string, number>();
    steps.forEach((step, i) => {
      const terms = encodeQuery(step);
      for (const t of terms) mask.set(t, (mask.get(t) ?? 0) | (1 << i));
      for (const t of pairs(terms)) if (ix.termOf(t) !== undefined) mask.set(t, (mask.get(t) ?? 0) | (1 << i));
    });
    const groups: Group[] = [];
    for (const [t, m] of mask) {
      const exact = ix.termOf(t);
      const members: Member[] = exact !== undefined ? [{ term: exact, w: 1 }] : [...this.fuzzy(t)];
      if (ix.synonymWeight > 0) {
        for (const id of ownList(ix.expand, t)) if (id !== exact) members.push({ term: id, w: ix.synonymWeight });
      }
      if (ix.lexiconWeight > 0) addRelated(members, ownList(ix.related, t), exact, ix.lexiconWeight);
      if (ix.capabilityWeight > 0) addRelated(members, ownList(ix.capability, t), exact, ix.capabilityWeight);
      if (ix.paraphraseWeight > 0) addRelated(members, ownList(ix.similar, t), exact, ix.paraphraseWeight);
      if (abbreviations?.has(t) && !ix.isRealWord(t)) {
        const pair = this.acronyms().get(t);
        if (pair !== undefined) addRelated(members, [pair], exact, this.params.acronymWeight);
      }
      if (members.length) groups.push({ word: t, mask: m, members });
    }
    if (this.work) {
      this.work.words += groups.length;
      for (const g of groups) this.work.expansions += g.members.length - 1;
    }
    return groups;
  }

  /**
   * The catalog's own abbreviations: for each set of initials, the word pair (a description's or an
   * example's adjacent words, a term of the index) that most tools say, when at least
   * `acronymMinTools` and `acronymMinShare` of them do ("pr" → "pull request" in an API whose operations
   * say it hundreds of times). Built at the first request word that could be one, once per finder.
   */
  acronyms(): Map<string, number> {
    if (this.acronymTable) return this.acronymTable;
    const table = new Map<string, number>();
    const { df } = this.index.data;
    const L = STAGE_LIMITS;
    const min = Math.max(L.acronymMinTools, this.index.docs * L.acronymMinShare);
    this.index.terms.forEach((term, id) => {
      const space = term.indexOf(" ");
      if (space < 0 || df[id]! < min) return;
      const initials = term[0]! + term[space + 1]!;
      const had = table.get(initials);
      if (had === undefined || df[had]! < df[id]!) table.set(initials, id);
    });
    this.acronymTable = table;
    return table;
  }

  /** Vocabulary terms a word the catalog does not contain most likely meant (FlexSearch candidates within a small edit distance). */
  private fuzzy(word: string): Member[] {
    if (!TYPO_WORD.test(word)) return [];
    const cached = this.fuzzyCache.get(word);
    if (cached) return cached;
    const L = STAGE_LIMITS;
    if (this.work) this.work.typoLookups++;
    const res = this.loadFuzzy().search(word, { limit: L.typoCandidates, suggest: true }) as unknown as { result: number[] }[];
    const maxEd = typoEdits(word);
    const near = this.params.fuzzyWeight;
    const far = this.params.fuzzyWeight * L.typoFarShare;
    const found: Member[] = [];
    for (const id of new Set(res.flatMap((r) => r.result))) {
      // An everyday English word is meant as written: never another word spelt alike (last → list, tell → toll;
      // docs/find-decisions.md, "Session 15").
      if (!this.index.typoReaches(word, id)) continue;
      const t = this.index.terms[id]!;
      const ed = editDistance(word, t, maxEd);
      if (ed <= maxEd) found.push({ term: id, w: ed <= 1 ? near : far });
      else if (t.startsWith(word)) found.push({ term: id, w: far });
    }
    const idf = this.index.idf;
    const top = found.sort((a, b) => b.w - a.w || idf[b.term]! - idf[a.term]! || a.term - b.term).slice(0, L.typoKept);
    if (this.fuzzyCache.size < L.typoCacheEntries) this.fuzzyCache.set(word, top);
    return top;
  }
}

/** Add expansion terms at weight `w`; a term already a member keeps the better of the two weights. */
function addRelated(members: Member[], ids: readonly number[], exact: number | undefined, w: number): void {
  for (const id of ids) {
    if (id === exact) continue;
    const had = members.find((m) => m.term === id);
    if (had) had.w = Math.max(had.w, w);
    else members.push({ term: id, w });
  }
}
