// "No tool fits": the top tool's lexical score alone cannot tell a request a tool answers from a
// question the agent can answer itself (most such questions share a rare word or two with some
// tool). The verdict also looks at how much of the query the top tool accounts for, how much of it
// the catalog knows at all, and whether it is phrased as a language task (explain, write, a
// wh-question) rather than an action. The features give a fit factor c in (0, 1] that multiplies
// every tool's score of the query: one factor per query, so the order is kept, scores stay in
// [0,1] and comparable, and `min_score` keeps its meaning (the confidence a shown tool fits).
import { QUOTED_TEXT, encodeQuery, withoutLabelledInput, type SearchIndexData } from "../../../registry/contract/search-options.js";
import type { CatalogTool } from "../../../registry/contract/artifact.js";
import { SearchIndex, ownList } from "./postings.js";
import { SIGNS } from "./words.js";
import { VERDICT_MODEL, type VerdictModel } from "../../../registry/contract/find-tuning.js";

export { VERDICT_MODEL, type VerdictModel };

export type VerdictFeatures = {
  /** The top tool's calibrated score. */
  score: number;
  /** IDF-weighted share of the query's known words (or their synonyms) that the top tool contains. */
  coverage: number;
  /** IDF-weighted share of the query's words the catalog knows (an unknown word weighs as the rarest; one of a labelled input does not count). */
  known: number;
  /** Number of distinct content words (encoded terms). */
  terms: number;
  /** 1 when it contains a question sentence not addressed to the assistant ("what is ...?", "can planets ...?"). */
  question: number;
  /** 1 when it narrates about a third person (he, she, his). */
  narrative: number;
  /** 1 when it asks for a language task the agent does itself (explain, describe, write, a joke), unless the top tool itself says each such word. */
  language: number;
  /** 1 when it asks for something fresh (today, latest, current, the last few days): data the agent cannot know. */
  fresh: number;
  /** 1 when it carries its own input ("the following", "this paragraph", "Text: ..."): nothing to fetch (0 when the top tool takes a free text: it is that tool's input). */
  selfContained: number;
  /** 1 when it asks for an explanation ("why ...", "how come ..."). */
  why: number;
  /** 1 when it is a hypothetical ("if X, what would ...", "suppose ...", "what if"). */
  hypothetical: number;
  /** Relative idf of the query's commonest word the catalog knows (1 without one): a request a tool serves usually holds a word of its domain. */
  minIdf: number;
};

/** The language signs, every occurrence (`toolSays`). */
const LANGUAGE_ALL = new RegExp(SIGNS.language.source, "gi");

// A data blob (base64, a hash) is input, not words: it would count as dozens of unknown words.
const BLOB = /[A-Za-z0-9+/=]{40,}/g;

const {
  question: QUESTION,
  fresh: FRESH,
  narrative: NARRATIVE,
  language: LANGUAGE,
  why: WHY,
  hypothetical: HYPOTHETICAL,
  selfContained: SELF_CONTAINED,
} = SIGNS;

/** A model's margin for a query's features: > 0 means a tool fits (at the default min_score). The fit script scores candidate models with it too. */
export function verdictMargin(m: VerdictModel, f: VerdictFeatures): number {
  return (
    m.logScore * Math.log(Math.max(1e-6, f.score)) +
    m.coverage * f.coverage +
    m.known * f.known +
    m.logTerms * Math.log1p(f.terms) +
    m.question * f.question +
    m.narrative * f.narrative +
    m.language * f.language +
    m.selfContained * f.selfContained +
    m.fresh * f.fresh +
    m.why * f.why +
    m.hypothetical * f.hypothetical +
    m.minIdf * f.minIdf +
    m.bias
  );
}

export class Verdict {
  private readonly index: SearchIndex;

  constructor(
    index: SearchIndex | SearchIndexData,
    private readonly model: VerdictModel = VERDICT_MODEL,
  ) {
    this.index = index instanceof SearchIndex ? index : new SearchIndex(index);
  }

  /** `topTakesText`: the top tool takes a free text, so a text the request brings is its input (selfContained is 0). */
  features(query: string, top: number, score: number, topTakesText = false): VerdictFeatures {
    const ix = this.index;
    const unblobbed = query.replace(BLOB, " ");
    const words = [...new Set(encodeQuery(unblobbed))];
    // Quoted text is data the request works on ("translate 'How are you?'"), not the request's form.
    const bare = query.replace(QUOTED_TEXT, " ");
    const language = LANGUAGE.test(bare) && !(top >= 0 && this.toolSays(bare, top));
    // A word of the input a request brings after a label ("hash: hello world") is data: one the catalog
    // lacks is not an unknown request word. Unless the request is a language task: then the text is the
    // agent's own work ("Summarize the following email: ..."), and its unknown words still count.
    const own = new Set(encodeQuery(language ? unblobbed : withoutLabelledInput(unblobbed)));
    let mass = 0;
    let knownMass = 0;
    let covered = 0;
    let minIdf = 1;
    for (const w of words) {
      const id = ix.termOf(w);
      const syn = ownList(ix.expand, w); // not "constructor" of Object

      if (id === undefined && !syn.length) {
        if (own.has(w)) mass += ix.idfMax;
        continue;
      }
      // A word known only through synonyms weighs as its rarest synonym.
      const idf = id !== undefined ? ix.idf[id]! : Math.max(...syn.map((t) => ix.idf[t]!));
      if (id !== undefined) minIdf = Math.min(minIdf, idf / ix.idfMax);
      mass += idf;
      knownMass += idf;
      if (top < 0) continue;
      if (id !== undefined && ix.posting(id, top) !== undefined) covered += idf;
      else if (syn.some((t) => ix.posting(t, top) !== undefined)) covered += 0.5 * idf;
    }
    return {
      score,
      coverage: knownMass > 0 ? covered / knownMass : 0,
      known: mass > 0 ? knownMass / mass : 0,
      terms: words.length,
      question: QUESTION.test(bare) ? 1 : 0,
      narrative: NARRATIVE.test(bare) ? 1 : 0,
      language: language ? 1 : 0,
      selfContained: !topTakesText && SELF_CONTAINED.test(query) ? 1 : 0,
      fresh: FRESH.test(bare) ? 1 : 0,
      why: WHY.test(bare) ? 1 : 0,
      hypothetical: HYPOTHETICAL.test(bare) ? 1 : 0,
      minIdf,
    };
  }

  /**
   * Whether the top tool itself says every language-task word of the request ("give alice write perms"
   * → a tool whose parameters say "write"): then the word names the tool's business, not text the
   * agent writes itself, and the `language` sign does not count.
   */
  private toolSays(text: string, top: number): boolean {
    const words = [...text.matchAll(LANGUAGE_ALL)].flatMap((m) => encodeQuery(m[0]));
    return (
      words.length > 0 &&
      words.every((w) => {
        const id = this.index.termOf(w);
        return id !== undefined && this.index.posting(id, top) !== undefined;
      })
    );
  }

  /** The model's margin: > 0 means a tool fits (at the default min_score). */
  margin(f: VerdictFeatures): number {
    return verdictMargin(this.model, f);
  }

  /**
   * The factor in (0, 1] for every score of the query. margin ≥ 0 ⇔ score·exp(rest/logScore) ≥ 1
   * (rest = the margin without the score's term), so with c = m·exp(rest/logScore), m the default
   * min_score, score·c ≥ m exactly when the margin is ≥ 0; capped at 1, the verdict only ever lowers
   * a score, and at the default min_score a tool is shown when its own score is ≥ m and the margin ≥ 0.
   */
  factor(f: VerdictFeatures, defaultMinScore: number): number {
    const m = this.model;
    if (m.logScore <= 0) return 1;
    const rest = this.margin(f) - m.logScore * Math.log(Math.max(1e-6, f.score));
    return Math.min(1, defaultMinScore * Math.exp(rest / m.logScore));
  }
}

/** Whether a tool's author wrote search hints for it (imported catalogs carry none). */
export const hasHints = (tool: Pick<CatalogTool, "aliases" | "examples">): boolean => Boolean(tool.aliases?.length || tool.examples?.length);
