import type { CatalogTool } from "../../../../registry/contract/artifact.js";
import { encode } from "../../../../registry/contract/search-options.js";
import { Fit } from "../actions.js";
import { COMMON_WORDS } from "../words.js";
import { fitOf, type JudgeContext } from "./context.js";
import type { JudgeInput, Judgement } from "./types.js";

/**
 * The top-action rule, in an API's catalog or one judged by its authors' hints: the request asks for an action (its imperative's verb,
 * "add this repo to my star list" → create), the top tool does another (a list, a read), and none of
 * the tools just behind it does the asked one: the catalog's best matches for its words do not do
 * what it asks (the rerank's action rule lowers such a tool only on short requests, and only to
 * reorder). When a tool just behind does it and meets a specific word of the request besides its verb,
 * the ranking erred and the verdict holds back.
 */
export function topActionRule(c: JudgeContext, q: JudgeInput): Judgement["action"] {
  // The top tool's action is known once per tool: most requests stop here or at the request's first word.
  const tool = c.toolAction(q.top);
  if (tool === undefined) return undefined;
  const { action, actionWord } = q.request;
  if (action === undefined || actionWord === undefined || fitOf(action, tool) !== Fit.conflict) return undefined;
  // A tool behind that does the asked action is an alternative only when it meets the request beyond its verb in a
  // specific word: "set the server's timezone to UTC" is not served by kv.set, met by "set" alone, nor "delete the
  // old log files" by notes.delete, met besides in "old".
  const verb = encode(actionWord);
  const beyondVerb = (t: CatalogTool) => q.matches(t).some((m) => encode(m.word).some((w) => !verb.includes(w) && !COMMON_WORDS.has(w)));
  if (q.runnersUp().some((t) => fitOf(action, c.toolAction(t)) === Fit.same && beyondVerb(t))) return undefined;
  return { factor: c.params.actionVerdict, word: actionWord, request: action, tool };
}
