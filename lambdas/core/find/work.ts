// Work units: a deterministic cost measure of find. The stages count what they do (postings read,
// tools scored, rerank passes, typo look-ups...) into a counter the caller hands the finder; without
// one they count nothing. The same requests on the same index always cost the same units, so a cost
// regression shows in a test without timing anything (test/unit/lambdas/core/find/work-units.test.ts).

export type WorkUnits = {
  /** Requests ranked (a find ranks once, and again when the judge or explain looks behind the top). */
  rankings: number;
  /** Query words analysed, and the expansions they brought (typo matches, synonyms, lexicon, paraphrases). */
  words: number;
  expansions: number;
  /** Typo look-ups in the FlexSearch vocabulary index (cache misses). */
  typoLookups: number;
  /** Posting entries read by retrieval (MaxScore's skipped entries of weak words included: they are read). */
  postings: number;
  /** Tools a ranking touched, and tools it scored in full (name boost, steps). */
  touched: number;
  scored: number;
  /** Tools a ranking hands to the later stages (rerank, action rule, top-k selection): those it scored, and the touched tools of a family the rerank may lift. */
  ranked: number;
  /** Rerank passes that lifted a task, the tools they looked at, and the postings they probed by binary search. */
  rerankPasses: number;
  rerankTools: number;
  rerankProbes: number;
  /** Top tools the judge looked at. */
  judged: number;
};

export const newWork = (): WorkUnits => ({
  rankings: 0,
  words: 0,
  expansions: 0,
  typoLookups: 0,
  postings: 0,
  touched: 0,
  scored: 0,
  ranked: 0,
  rerankPasses: 0,
  rerankTools: 0,
  rerankProbes: 0,
  judged: 0,
});

/** The kinds of work whose growth beyond `margin` (a share) over the baseline is a regression, each named with its growth. */
export function workRegressions(now: WorkUnits, baseline: WorkUnits, margin: number): string[] {
  const grown: string[] = [];
  for (const k of Object.keys(baseline) as (keyof WorkUnits)[]) {
    const base = baseline[k];
    if (now[k] > base * (1 + margin) && now[k] > base) grown.push(`${k}: ${now[k]} against ${base} (+${base ? Math.round((now[k] / base - 1) * 100) : "∞"}%)`);
  }
  return grown;
}
