import type { CatalogTool } from "../../../../registry/contract/artifact.js";
import type { MatchedWord } from "../../../contract/find.js";
import { encode, labelsInput } from "../../../../registry/contract/search-options.js";
import { actionOf, actionWords, Fit } from "../actions.js";
import { headWords, matchedWords } from "../hint-rules.js";
import { COMMON_WORDS } from "../words.js";
import { fitOf, IDENTITY_FIELDS, requestWord, verbTakesObject, type JudgeContext } from "./context.js";
import type { JudgeInput, Judgement } from "./types.js";

/**
 * The verb-only rule, where tools are judged by their authors' hints: the request is an imperative whose
 * verb is a word of the top tool's name and is followed by a determiner or a number (it names a thing: "set an
 * alarm", "convert 50 USD"; a bare word is more often the input: "reverse hello"), the tool met no specific
 * word of the request but the verb and no word of its head (its words before the first preposition, data
 * aside) that it is named or tagged by, and no tool just behind whose action does not conflict meets a specific word
 * of that head: a tool named by what it does, asked to do it to something else ("convert 50 USD to euros" →
 * time.convert, "set an alarm for 7am" → kv.set). Not when the request labels its input ("shuffle this
 * playlist: …"): its head names that input.
 */
export function verbOnlyRule(c: JudgeContext, q: JudgeInput): Judgement["verbOnly"] {
  const { verb: verbWord, action } = q.request;
  if (verbWord === undefined || labelsInput(q.query) || !verbTakesObject(q.query, verbWord)) return undefined;
  const hits = q.matches(q.top);
  if (!hits.some((m) => m.fields.includes("name") && encode(m.word).some((w) => encode(verbWord).includes(w)))) return undefined;
  // The verb, and the request's other words for the same action ("create a new folder": new is a create too).
  const table = c.actions;
  if (!table) return undefined;
  const verb = actionWords(q.query).flatMap((w) => (w === verbWord || (action !== undefined && actionOf([w], table) === action) ? encode(w) : []));
  const head = headWords(q.query).filter((t) => !verb.includes(t));
  // Beyond the verb, the tool met a specific word, or an everyday word of the head that it is named or tagged by ("the key cache": kv's key).
  const named = (m: MatchedWord) => m.fields.some((f) => IDENTITY_FIELDS.has(f));
  const beyond = (m: MatchedWord) => encode(m.word).some((w) => !verb.includes(w) && (!COMMON_WORDS.has(w) || (head.includes(w) && named(m))));
  if (hits.some(beyond)) return undefined;
  const object = head.filter((t) => !COMMON_WORDS.has(t));
  if (!object.length) return undefined;
  const meets = (t: CatalogTool) => {
    const theirs = matchedWords(q.matches(t));
    return object.some((w) => theirs.has(w)) && fitOf(action, c.toolAction(t)) !== Fit.conflict;
  };
  if (q.runnersUp().some(meets)) return undefined;
  return { factor: c.params.verbOnlyVerdict, verb: verbWord, word: requestWord(q.query, object[0]!) };
}
