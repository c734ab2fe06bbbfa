// The request-word lists of data/request-words.json as the patterns the stages test: the lists are
// data (their sources and purposes are in the file), the shapes of the patterns are code.
import common from "./data/common-words.json" with { type: "json" };
import lists from "./data/request-words.json" with { type: "json" };

/** `(?:a|b\s+c)`: a list's entries as alternatives, a space in a phrase matching any run of spaces. */
const alt = (entries: readonly string[]) => `(?:${entries.map((e) => e.replace(/ (?![^[]*\])/g, String.raw`\s+`)).join("|")})`;
const wordsRe = (entries: readonly string[], flags = "i") => new RegExp(String.raw`\b${alt(entries)}\b`, flags);

const { question: q, hypothetical: h, selfContained: sc } = lists;

/** The fit model's form signs (verdict.ts). */
export const SIGNS = {
  question: new RegExp(String.raw`\b${alt(q.whWords)}\b[^.!?]*\?|(?:^|[.!?]\s+)${alt(q.auxiliaries)}\s+(?!${alt(q.addressees)}\b)\w[^.!?]*\?`, "i"),
  fresh: wordsRe(lists.fresh.words),
  narrative: wordsRe(lists.narrative.words),
  language: wordsRe(lists.language.words),
  why: wordsRe(lists.why.words),
  hypothetical: new RegExp(
    String.raw`(?:^|[.!?]\s+)${alt(h.conditions)}\b[^.!?]*\b(?:would(?!\s+${alt(h.wishes)}\b)|${h.consequences.join("|")})\b|\b${alt(h.phrases)}\b`,
    "i",
  ),
  selfContained: new RegExp(String.raw`\b${alt(sc.markers)}\b|\b(?:this|the)\s+${alt(sc.texts)}\b|:\s+\S|\n`, "i"),
};

/** Where a request's object ends: its first preposition (hint-rules.ts). */
export const PREPOSITION = wordsRe(lists.prepositions.words);

/** Prepositions that open a source or a destination (actions.ts `ownerWords`). */
export const PLACE_WORDS: ReadonlySet<string> = new Set(lists.placePrepositions.words);
/** Every preposition of the list above, as words (actions.ts `ownerWords`: where a source's phrase ends). */
export const PREPOSITION_WORDS: ReadonlySet<string> = new Set(lists.prepositions.words);

/** Where an operation name's object ends: its first preposition of ownership (actions.ts `operationObject`). */
export const OWNER_WORDS: ReadonlySet<string> = new Set(lists.ownerPrepositions.words);

/** Determiners: after an imperative's verb, they open a noun phrase that names a thing (judge.ts, the verb-only rule). */
export const DETERMINERS: ReadonlySet<string> = new Set(lists.determiners.words);

/** Pronouns that, right after an imperative's verb, name whom the answer is for (analyse.ts). */
export const RECIPIENTS: ReadonlySet<string> = new Set(lists.recipients.words);

/** Wh-words that open a question about what is: in an API's catalog it asks to read (actions.ts `questionAction`). */
export const STATE_QUESTIONS: ReadonlySet<string> = new Set(lists.stateQuestions.words);

/** Wh-words whose next words name the thing a question wants back (analyse.ts `askedThing`, the question tie). */
export const THING_QUESTIONS: ReadonlySet<string> = new Set(lists.thingQuestions.words);
/** Words a which/what question may put before that thing ("what's the …", "which of my …"). */
export const QUESTION_FILLER: ReadonlySet<string> = new Set(lists.questionFiller.words);

/** A parameter name that says the tool takes a free text (judge.ts). */
export const TEXT_PARAM = new RegExp(`^${alt(lists.textParameters.words)}$`, "i");

/** A word that starts the next step of a task, with the comma or colon around it (segment.ts). */
export const CONNECTIVE = new RegExp(String.raw`(?:^|,?\s+)\b${alt(lists.connectives.words)}\b[,:]?\s+`, "giu");

/** Stems of the most frequent English words (data/common-words.json): everyday filler, not a sign of a request outside the catalog. */
export const COMMON_WORDS: ReadonlySet<string> = new Set(common.stems.split(" "));
