// The hint rules, for a top tool judged by its author's words (a tool with search hints, or any tool of a
// catalog whose authors mostly wrote them), strongest first: a stray match, one word met, everyday words only.
// The one-word rule serves an API's catalog on its own too. Their tests of the request's words are hint-rules.ts.
import { encode } from "../../../../registry/contract/search-options.js";
import type { MatchedWord } from "../../../contract/find.js";
import { STAGE_LIMITS } from "../../../../registry/contract/find-tuning.js";
import { Fit, questionWord } from "../actions.js";
import { askedWords, matchedWords, specificHit, strayMatch } from "../hint-rules.js";
import { anchored, AUTHORED_FIELDS, fitOf, type JudgeContext } from "./context.js";
import type { HintFinding, JudgeInput } from "./types.js";

/** The first hint rule that fires on the request's top tool, in the order of their strength. */
export function hintRules(c: JudgeContext, q: JudgeInput): HintFinding {
  const p = c.params;
  // Evidence the model cannot see on a small catalog: a match the tool's author did not anticipate,
  if (p.hintStray < 1 && strayMatch(q.matches(q.top, AUTHORED_FIELDS), c.index)) return { hint: { rule: "hint-stray", factor: p.hintStray } };
  const hits = q.matches(q.top);
  // or one that meets the tool in a single word while another is foreign or unmatched (`oneWordRule`),
  const { hint, input } = oneWordRule(c, q, hits);
  if (hint) return { hint };
  // or one in everyday words only ("get", "show", "list", "latest") while the request names something the
  // catalog lacks ("get me the latest bitcoin price" → kv.get), unless a tool just behind meets a specific word.
  if (p.hintEveryday < 1) {
    const word = everydayWord(c, q, hits);
    if (word !== undefined) return { hint: { rule: "everyday-words", factor: p.hintEveryday, word } };
  }
  return input ? { input } : {};
}

/**
 * The one-word rule: the request meets the top tool in a single word while another word is foreign to
 * the whole catalog ("load the dishwasher" → system.load, "hand me the remote" → git.remotes), or, when
 * that word is not one the tool is named by (its name, its aliases), another specific word the tool did
 * not match ("order a pizza" → random.shuffle's "random order"). Not when that word is the request's
 * input: it asks for the tool's own action and the tool met all it asks for ("remind me | to water the plants").
 */
export function oneWordRule(c: JudgeContext, q: JudgeInput, matched?: MatchedWord[]): HintFinding {
  const factor = c.params.hintOneHit;
  if (factor >= 1) return {};
  const all = matched ?? q.matches(q.top);
  // Beside a word met elsewhere, one met only in a long description's body is incidental there ("goes" in a
  // paragraph on forks): not a second hit. (When every hit is in the body, that is the description-body rule's case.)
  const parts = c.descriptionParts(q.top);
  const outside = parts.long ? all.filter((m) => anchored(m, parts)) : all;
  const hits = outside.length ? outside : all;
  const word = oneWord(c, q.query, hits);
  if (word === undefined) return {};
  const action = askedAction(c, q, all);
  return action === undefined ? { hint: { rule: "one-word", factor, word } } : { input: { action, word } };
}

/** The one-word rule's word: the request's word that shows the top tool met it in one word only (undefined: the rule does not fire). */
function oneWord(c: JudgeContext, query: string, hits: MatchedWord[]): string | undefined {
  if (hits.length > 1) return undefined;
  const foreign = c.words.foreignWord(query);
  if (foreign !== undefined) return foreign;
  const named = hits.some((m) => m.fields.includes("name") || m.fields.includes("aliases"));
  return named ? undefined : c.words.unmatchedWord(query, matchedWords(hits));
}

/**
 * The request's action class when it is the top tool's too and the tool met every specific word of
 * what the request asks for (its words before the first preposition) other than the action word
 * itself: then the request's other words are what it gives the tool. Undefined otherwise.
 */
function askedAction(c: JudgeContext, q: JudgeInput, hits: MatchedWord[]): string | undefined {
  if (!c.actions) return undefined;
  const { action, actionWord } = q.request;
  if (action === undefined || actionWord === undefined) return undefined;
  // A question's words are what it asks about, not what it hands a tool ("when is the release date of the next Dune film").
  if (questionWord(actionWord, c.actions)) return undefined;
  if (fitOf(action, c.toolAction(q.top)) !== Fit.same) return undefined;
  const verb = new Set(encode(actionWord));
  const met = matchedWords(hits);
  return askedWords(q.query).every((t) => verb.has(t) || met.has(t)) ? action : undefined;
}

/** The everyday-words rule: the word the request names that the catalog lacks (undefined: the rule does not fire). */
function everydayWord(c: JudgeContext, q: JudgeInput, hits: MatchedWord[]): string | undefined {
  if (specificHit(hits)) return undefined;
  const object = c.words.unknownObject(q.query, matchedWords(hits));
  if (object === undefined) return undefined;
  return q
    .runnersUp()
    .slice(0, STAGE_LIMITS.everydayLook)
    .every((t) => !specificHit(q.matches(t)))
    ? object
    : undefined;
}
