import type { CatalogTool } from "../../../../registry/contract/artifact.js";
import { encode } from "../../../../registry/contract/search-options.js";
import { STAGE_LIMITS } from "../../../../registry/contract/find-tuning.js";
import { Fit } from "../actions.js";
import { fitOf, nameWords, verbTakesObject, type JudgeContext } from "./context.js";
import type { JudgeInput, Judgement } from "./types.js";

/**
 * The verb-as-noun rule, on a tool judged by the fit model in a catalog whose tool names start with their
 * verb (the first word of at least `nameVerbMinTools` names: get, calculate; a prefix repeating the family
 * left out): the request's imperative verb, followed by a determiner or a number, is a word of what the top tool acts on (its name after its verb: getVideoSurveillance**Feed**, estimate**Walking**Time),
 * not its verb, the tool's action class is not the request's, and no tool just behind starts its name with the
 * request's verb: the tool is about the thing the request's verb names, not doing it ("feed the ducks at the
 * pond", "walk the dog").
 */
export function verbNounRule(c: JudgeContext, q: JudgeInput): Judgement["verbNoun"] {
  const { verb: verbWord, action } = q.request;
  if (verbWord === undefined || !verbTakesObject(q.query, verbWord)) return undefined;
  const verb = encode(verbWord);
  const [toolVerb, ...rest] = nameWords(q.top);
  if (toolVerb === undefined || !rest.some((w) => encode(w).some((t) => verb.includes(t)))) return undefined;
  if (c.nameVerbCount(toolVerb) < STAGE_LIMITS.nameVerbMinTools) return undefined;
  if (fitOf(action, c.toolAction(q.top)) === Fit.same) return undefined;
  const startsWithVerb = (t: CatalogTool) => encode(nameWords(t)[0] ?? "").some((x) => verb.includes(x));
  if (q.runnersUp().some(startsWithVerb)) return undefined;
  return { factor: c.params.verbNounVerdict, verb: verbWord, toolVerb };
}
