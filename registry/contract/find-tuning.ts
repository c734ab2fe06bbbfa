// Every number find is tuned by, in one file: the build's BM25F and expansion weights (the index is
// built with them: a change needs a rebuild), the query-time knobs, the judge's fit model and the
// stages' fixed limits. The stages (lambdas/core/find/) and the build (build/search-index.ts) read them
// from here and hold none of their own; the word lists are data files beside them. Each value's
// measurement is in test/eval/README.md under the section named beside it.
import type { FieldName } from "./search-options.js";

/** BM25F parameters. Impacts are precomputed with them at build time; changing them needs a rebuild. */
export type ScorerParams = {
  k1: number;
  weight: Record<FieldName, number>;
  b: Record<FieldName, number>;
  /** Weight of a WordNet synonym relative to the word itself (0 disables expansion). */
  synonymWeight: number;
  /**
   * Adjacent word pairs of the description ("water qualiti") are indexed as terms of their own with
   * this share of the description's weight, so "water quality" beats a tool with "water" and
   * "quality" far apart. 0 disables. (Name pairs measured worse: the name-coverage boost covers them.)
   */
  pairWeight: number;
  /**
   * Adjacent word pairs within one example (`examples`, one per line) as terms of their own, with this
   * weight (a field weight: examples 0.5, description 1.5): a request that says the author's phrase
   * ("square root", "random winner") beats one that shares its words apart. 0 disables (optional in
   * stored params: indexes built before it have none). 1 chosen on the example registry's dev split
   * (test/eval/README.md, "Sixth round").
   */
  examplePairWeight?: number;
  /** Weight of a word reached through the hand-written lexicon (build/lexicon.ts: save → write, folder → directory, search → 搜索). 0 disables. */
  lexiconWeight: number;
  /**
   * Weight of a word reached through the lexicon's capability groups (folder → directory, chart → diagram),
   * pairs of specific words only (build/lexicon.ts); the other pairs keep `lexiconWeight`. Absent or 0:
   * every pair at `lexiconWeight` (artifacts built before it).
   */
  capabilityWeight?: number;
  /**
   * Weight of a word reached through the paraphrase table (build/neighbours.txt: nearest neighbours in
   * word vectors, "hex" → hexadecimal, "ram" → memory), for requests worded without the tool's words. 0 disables.
   */
  paraphraseWeight?: number;
  /** Neighbours found in more than this share of the tools (and more than 5 tools) are left out (1 keeps all). */
  paraphraseMaxDf?: number;
};

/** Tuned on seal-tools dev and a metatool sample (see test/eval/README.md). Measured and switched off, then
 * removed: generic-word weights (genericWeight), a background cap from two public catalogs
 * (backgroundWeight) and real-word typo damping (realWords, bridgedFuzzy): README, "Fourth round".
 * `details` (an imported operation's long text, issue 27): 0.6, 0.4 of the description's weight; GitHub dev
 * nDCG is 63.0 to 63.5 from 0.15 to 0.75, held-out false-none 11.7 at 0.15 and 0.3, 8.3 at 0.6
 * (docs/find-decisions.md, "Imported details: a field of their own"). */
export const DEFAULT_SCORER_PARAMS: ScorerParams = {
  k1: 1.2,
  weight: { name: 3, desc: 1.5, params: 0.6, family: 0.4, tags: 1, aliases: 2, examples: 0.5, details: 0.6 },
  b: { name: 0.3, desc: 0.75, params: 0.75, family: 0.5, tags: 0.5, aliases: 0.3, examples: 0.5, details: 0.75 },
  synonymWeight: 0.2,
  pairWeight: 0.3,
  examplePairWeight: 1,
  lexiconWeight: 0.5,
  capabilityWeight: 0.7,
  paraphraseWeight: 0.4,
  paraphraseMaxDf: 0.05,
};

/** Query-time knobs (no rebuild needed); the eval overrides them with --qparams. */
export type QueryParams = {
  /** Weight of a vocabulary term reached by typo/prefix tolerance instead of the word itself. */
  fuzzyWeight: number;
  /** Boost for the share of a tool's name words the query contains: raw × (1 + nameBoost·coverage). */
  nameBoost: number;
  /** Calibration: score = 1 − exp(−raw / (scale · idfMax)), raw in units of one fully matched rarest word. */
  scale: number;
  /** For a multi-step query, the weight of each tool's best single-step score against the whole query's. */
  segmentWeight: number;
  /**
   * Factor on a query's scores when its top tool has search hints and the query hit none of the
   * tool's authored words itself (judge rule `hint-stray`): 0.6 chosen on dev splits
   * (test/eval/README.md, "Fourth round", section 6); 1 turns the rule off.
   */
  hintStray: number;
  /**
   * Factor on a query's scores when its top tool has search hints, the query met the tool in one
   * word only, and another of its words is foreign to the catalog (no term, no expansion), or, when
   * that one word is not in the tool's name or aliases, another specific word (not everyday filler, not
   * data) is one the tool did not match (judge rule `one-word`): 0.8 chosen on dev splits
   * (test/eval/README.md, "Fifth round", "Sixth round: small catalogs"); 1 turns the rule off.
   */
  hintOneHit: number;
  /**
   * Factor on a query's scores when its top tool has search hints and the request meets the catalog in
   * everyday words only (no direct match on a specific word by the top tool or the two after it) while,
   * before its first preposition, it names something the catalog lacks ("get me the latest bitcoin price"
   * → kv.get; judge rule `everyday-words`): 0.6 chosen on dev splits (test/eval/README.md, "Sixth round:
   * requests no tool serves"); 1 turns the rule off.
   */
  hintEveryday: number;
  /**
   * Task lifts (rerank, on queries of several steps or many words; 0 turns each off). stepLift:
   * each step's clear best tool moves this share of the way to the top tool's score. familyLift: the
   * siblings of the top tool and of those step tools move this share of the way to their score.
   * 0.3 / 0.3: every public set rose (livemcpbench 39.4 -> 41.0, seal +0.5 to +0.7, MetaTool multi +2.0),
   * two own held-out sets fell by one rank each (test/eval/README.md, "Fifth round: ranking"). stepLift
   * 0.4 with the lexicon's capability weight: seal +0.1 to +0.15 more, livemcpbench 42.3 -> 42.5 ("Sixth round").
   */
  stepLift: number;
  familyLift: number;
  /**
   * Action rule (rerank): a candidate whose action (create, read, update, delete, send) conflicts
   * with a short request's takes the factor 1 − actionPenalty ("put eggs on my todo list": todo.add
   * above todo.list). 0.4 on requests of ≤ `STAGE_LIMITS.actionMaxWords` words: every public set
   * within 0.1 nDCG@10, and the to-do case right beside other families too (0.3 left todo.list first
   * there; 0.5 cost analyst a false-none): docs/find-decisions.md, "Actions and scope"; 0 turns it off.
   */
  actionPenalty: number;
  /**
   * Object rule (rerank, with the action rule): on the same short requests, a candidate near the top
   * that meets none of the words of what the request asks for ("create a reminder | to water the
   * plants" → reminder) while another near candidate meets one takes 1 − objectPenalty ("create" alone
   * put calendar.create_event above todo.add). Never more than actionPenalty (retrieval's top-k
   * threshold allows for that fall only); a candidate takes one factor for either reason. 0 turns it off.
   */
  objectPenalty: number;
  /**
   * Scope rule (rerank, with the action rule): on the same requests, a candidate near the top whose
   * scope (the caller's own, an organisation's, a repository's: actions.ts `scopeFit`) conflicts with
   * the request's, or that lacks an owner the request names while a near candidate has it, takes
   * 1 − scopePenalty, at most actionPenalty, once per tool. 0 turns it off. 0.4: GitHub REST dev
   * near-miss none 25.0 → 41.7, every ranking as before, MetaTool false-none 4.7 → 4.8; 0.2 moved
   * nothing (docs/find-decisions.md, "Big imported REST catalogs").
   */
  scopePenalty: number;
  /**
   * Owner lift (rerank): in a catalog whose tool names say whose things they are about (the judge's
   * `scopedCatalogShare`), a request naming an owner (the caller's own, "my"; an organisation's, "the
   * acme org") moves each candidate scoped to that owner this share of the way to 1: the owner is a
   * word the tool meets, though its name spells it otherwise ("authenticated user"). 0 turns it off.
   */
  ownerLift: number;
  /**
   * Scope tie (rerank): in an API's catalog, a tool within this share of the top score that is about the request's
   * things (the caller's own, an organisation's, a repository's) while the top is not swaps places with it, whatever
   * the request's verb. 0 turns it off. 0.03 measured on nine GitHub splits: right tool first 316 → 322 of 583,
   * false-none 56 → 50, near-miss none 55 → 54, unrelated none 102 → 101; 0.05: 320, 48, 52, 100; 0.10: 315, gold
   * rank down 8 (docs/find-decisions.md, "Session 17").
   */
  scopeTie: number;
  /**
   * Question tie (rerank): in an API's catalog, when a which/what question's asked thing ("which PRs contain commit
   * …" → PRs) is not what the top tool's name acts on, a tool within this share of the top score whose name does
   * swaps places with it. 0 turns it off. 0.15 measured on nine GitHub splits (docs/find-decisions.md, "Session 18").
   */
  questionTie: number;
  /**
   * Verb tie (rerank): in an API's catalog, when no request word meets the top tool's verb (its name's first word)
   * and a tool within this share of the top score has a verb a request word meets (one that meets no word of the
   * top's name), the two swap places. 0 turns it off. 0.05 measured on ten GitHub splits (docs/find-decisions.md,
   * "Session 18").
   */
  verbTie: number;
  /**
   * Abbreviations by initials (analyse): a two-letter request word in capitals ("PR") WordNet does not know reaches the
   * catalog's most frequent word pair with those initials ("pr" → "pull request"), at this weight of the
   * word itself. 1: GitHub REST dev 59.8 → 62.0, every other set as before; 0.7: 60.1; without the
   * frequency floor (`STAGE_LIMITS.acronymMinTools`, `acronymMinShare`) LiveMCPBench 40.9 → 39.8
   * (docs/find-decisions.md, "Big imported REST catalogs"). 0 turns it off.
   */
  acronymWeight: number;
  /**
   * Factor on a request's scores when it met its top tool in one word only, found only in the body of
   * a long description (judge rule `description-body`: one incidental word in an imported operation's
   * long text is no confident match, issue 27); 1 turns it off. 0.8: no public set moves, everyday
   * requests answered none +0.5 to +1.5 on three catalogs, one more false-none on travel and on mcp-dev
   * (docs/find-decisions.md, "Long descriptions").
   */
  bodyOneWord: number;
  /**
   * Factor on a request's scores when its top tool is about other people's things than the request
   * names (the caller's own vs an organisation's or a repository's: actions.ts `scopeFit`) while a tool
   * just behind it is about the request's (judge rule `top-scope`): the catalog has operations of the
   * request's scope and the best match is not one ("turn on two-factor for my account" → an
   * organisation's member list). 0.5 with `oppositeVerdict` 0.4: GitHub REST dev near-miss none 41.7 → 75.0 at
   * false-none 4.4 as before, every other set as before (0.6 / 0.5: 58.3). docs/find-decisions.md, "The none
   * verdict on big REST catalogs"; 1 turns it off.
   */
  scopeVerdict: number;
  /**
   * Factor on a request's scores when the request says the opposite of a word in its top tool's name
   * ("mark as unread" → mark-notifications-as-read: un- + a name word, the prefixes in
   * data/request-words.json `opposites`; judge rule `opposite`): the tool does what the request
   * undoes. docs/find-decisions.md, "The none verdict on big REST catalogs"; 1 turns it off.
   */
  oppositeVerdict: number;
  /**
   * Factor on a request's scores, in a catalog whose tool names say whose things they are about (an
   * API's operations) or whose top tool is judged by its author's hints (a tool with hints, or any tool of
   * a catalog whose tools mostly have them), when the request asks for an action, its top tool does another and none of the
   * tools just behind it does the asked one (judge rule `top-action`: "add this repo to my star list" →
   * list-repos-starred-by-user). 0.6, the factor the rerank's action rule gives a conflicting tool.
   * docs/find-decisions.md, "The top-action rule"; 1 turns it off.
   */
  actionVerdict: number;
  /**
   * Factor on a request's scores, in an API's catalog, when no word of what the request asks for is in
   * the part of its top tool's name that says what the tool acts on, nor in that of a tool just behind
   * that does the asked action (judge rule `top-object`: "permanently delete an issue" →
   * issues.delete-comment). docs/find-decisions.md, "The top-object rule"; 1 turns it off.
   */
  objectVerdict: number;
  /**
   * Factor on a request's scores, in a catalog judged by its authors' hints, when the top tool met the
   * request only in its imperative's verb, a word of the tool's name, and no tool just behind meets what
   * the request acts on (judge rule `verb-only`: "convert 50 USD to euros" → time.convert).
   * docs/find-decisions.md, "Session 14"; 1 turns it off.
   */
  verbOnlyVerdict: number;
  /**
   * Factor on a request's scores, in a catalog whose tool names start with a verb, when the request's verb is
   * met in its top tool's name only as a word of what the tool acts on, while the tool's own verb and action
   * class are others (judge rule `verb-as-noun`: "feed the ducks at the pond" → getVideoSurveillanceFeed).
   * docs/find-decisions.md, "Session 14"; 1 turns it off.
   */
  verbNounVerdict: number;
};

export const DEFAULT_QUERY_PARAMS: QueryParams = {
  fuzzyWeight: 0.7,
  nameBoost: 0.5,
  scale: 1,
  segmentWeight: 0.5,
  hintStray: 0.6,
  hintOneHit: 0.8,
  hintEveryday: 0.6,
  stepLift: 0.4,
  familyLift: 0.3,
  actionPenalty: 0.4,
  objectPenalty: 0.4,
  scopePenalty: 0.4,
  ownerLift: 0.1,
  scopeTie: 0.03,
  questionTie: 0.15,
  verbTie: 0.05,
  acronymWeight: 1,
  bodyOneWord: 0.8,
  scopeVerdict: 0.5,
  oppositeVerdict: 0.4,
  actionVerdict: 0.6,
  objectVerdict: 0.6,
  verbOnlyVerdict: 0.6,
  verbNounVerdict: 0.6,
};

/**
 * Default `min_score`. Scores are 1 − exp(−evidence), one fully matched rarest word ≈ 0.5, so 0.4
 * asks for about one specific word matched well; the judge's fit factor (≤ 1) then lowers the scores
 * of a query no tool seems to fit, its threshold fitted at this default. Chosen on dev halves
 * (metatool single false-none ≤ 5% against no_tool none-rate; seal-tools dev); the trade-off is in
 * test/eval/README.md, "No tool fits".
 */
export const DEFAULT_MIN_SCORE = 0.4;

/** Fixed numbers of the stages (not searched by the eval; each says why it is what it is). */
export const STAGE_LIMITS = {
  /** Analyse: steps of a task-shaped query scored separately (bits of a mask). */
  maxSteps: 12,
  /** Analyse: typo candidates are looked up for words of at least this many letters. */
  typoMinLetters: 4,
  /** Analyse: a word of this many letters or more may be two edits from its term, a shorter one one edit. */
  typoTwoEdits: 8,
  /** Analyse: FlexSearch candidates read per unknown word, and the typo matches kept. */
  typoCandidates: 100,
  typoKept: 3,
  /** Analyse: the weight share of a typo match two edits away, or reached as a prefix. */
  typoFarShare: 0.8,
  /** Analyse: most unknown words whose typo matches are remembered. */
  typoCacheEntries: 20_000,
  /** Rerank: the task lifts apply from this many query terms (a one-capability request keeps its ranking). */
  taskMinTerms: 6,
  /** Rerank: a family holding more than this share of the catalog is not lifted (a mixed bag says nothing about a task). */
  familyMaxShare: 0.25,
  /**
   * Rerank: a step whose best tool reaches this step score has a clear answer: that tool and its family
   * are lifted, and no lifted sibling passes it. The default min_score: such a tool is never under the floor.
   */
  clearStep: 0.4,
  /**
   * Rerank: the action rule applies to requests of at most this many words (a longer one often names
   * several actions). 12 measured: GitHub REST dev 59.8 → 61.3, devteam 87.6 → 88.7, but MetaTool
   * false-none 4.7 → 5.2 (docs/find-decisions.md, "Big imported REST catalogs"): kept at 8.
   */
  actionMaxWords: 8,
  /**
   * Rerank: the same in an API's catalog (actions.ts `apiCatalog`), where the operations on one object differ in
   * their verb and a request brings names and numbers ("Delete version 1234 of the npm package widgets owned by the
   * acme organization"). 14 measured on the eight GitHub splits: right tool first 275 → 285 of 523, nDCG@10 63.6 →
   * 64.7, false-none 53 → 52, near-miss none as before, unrelated none 96 → 93; no other catalog is an API's
   * (docs/find-decisions.md, "Session 17").
   */
  apiActionMaxWords: 14,
  /** Analyse: a word pair is an abbreviation's meaning only when at least this many tools say it, */
  acronymMinTools: 3,
  /** and at least this share of the catalog's tools (an API's central object, not a chance phrase). */
  acronymMinShare: 0.005,
  /** Rerank: the action rule weighs only candidates scoring at least this share of the top score (the rest cannot reach the top). */
  actionNear: 0.5,
  /** Judge: a description whose body (after its first sentence) has at least this many words is long (the description-body rule). */
  longBodyWords: 20,
  /**
   * Judge: the tools after the top that its rules may look at (ranked again only when a rule asks): the
   * scope rule looks for one about the request's scope among them (the top ten in all).
   */
  judgeRunnersUp: 9,
  /**
   * Judge: the top-scope rule reads scope only in a catalog whose tool names say whose things they are
   * about (at least this share of them: an API imported with its user, organisation and repository
   * operations). On the GitHub REST catalog 68% do; on MetaTool 2.5%, Seal-Tools, LiveMCPBench and
   * the cases under 1%, where "my" is everyday phrasing and a tool named "TalentOrg" no organisation's.
   */
  scopedCatalogShare: 0.1,
  /** Judge: the everyday-words rule looks at this many of those runners-up for a specific word. */
  everydayLook: 2,
  /**
   * Judge: the verb-as-noun rule reads a tool name's first word as its verb only when at least this many tools'
   * names start with it (get, calculate, list-; not MetaTool's "HousePurchasingTool" and "HouseRentingTool").
   */
  nameVerbMinTools: 5,
  /** Judge: the opposite rule reads a name word of at least this many letters ("read" in "unread"; not "it" in "unit"). */
  oppositeMinLetters: 4,
} as const;

/** The edits a typo match may be away from a word of this length (`typoTwoEdits`): the analyser's, the build's and the judge's rule. */
export const typoEdits = (word: string): number => (word.length >= STAGE_LIMITS.typoTwoEdits ? 2 : 1);

/**
 * Whether a term near a word is the same word in another form, not another word: it extends the word (time →
 * timer) or the word extends it (healthy → health, writer → write; not dirt → dir, a stem too short to tell).
 * An everyday English word keeps such typo matches (analyse.ts `fuzzy`, build/english-words.ts).
 */
export const formOf = (word: string, term: string): boolean => term.startsWith(word) || (word.startsWith(term) && term.length >= STAGE_LIMITS.typoMinLetters);

/**
 * Weights over the features (log score, coverage, known, log(1 + terms), the form signs), fitted on
 * dev only: a logistic regression, then a seeded coordinate search for the operating point
 * (test/eval/verdict-fit.ts --seed 2026 --fn 4.5; README "No tool fits"). `bias` holds the threshold
 * chosen on dev (metatool single dev false-none ≤ 4.5% at the default min_score). Sixth round (README):
 * the third round's weights kept, why / hypothetical / minIdf and the bias searched on them
 * (VERDICT_KEEP=1 VERDICT_OWNFN=1 VERDICT_DROP=reasoning,named).
 */
export const VERDICT_MODEL = {
  logScore: 1.698,
  coverage: 0.3764,
  known: 2.0609,
  logTerms: -0.2467,
  question: -1.3484,
  narrative: -1.7328,
  language: -1.6087,
  selfContained: -2.1288,
  fresh: 0.6835,
  why: -0.4421,
  hypothetical: -1.1746,
  minIdf: -0.3989,
  bias: 2.2462,
};
export type VerdictModel = typeof VERDICT_MODEL;

/** Build: a lexicon word reaches a catalog word at the capability weight only when at most this share of the tools has it. */
export const CAPABILITY_MAX_DF = 0.1;
