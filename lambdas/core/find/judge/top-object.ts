import type { CatalogTool } from "../../../../registry/contract/artifact.js";
import { encode } from "../../../../registry/contract/search-options.js";
import { Fit } from "../actions.js";
import { headWords } from "../hint-rules.js";
import { fitOf, type JudgeContext } from "./context.js";
import type { JudgeInput, Judgement } from "./types.js";

/**
 * The top-object rule, in an API's catalog: the request is an imperative ("pin this repository | to my
 * profile": its first word, the verb, then what it acts on, up to the first preposition), none of the
 * words of what it acts on, nor of their expansions, names what the top tool acts on (its name's
 * object: issues.delete-comment → comment), and no tool just behind that does the asked action (its
 * class, or the verb itself in its name) acts on it: the best match acts on something else.
 * When a tool just behind does, the ranking erred and the verdict holds back.
 */
export function topObjectRule(c: JudgeContext, q: JudgeInput): Judgement["object"] {
  const { verb: verbWord, groups, action } = q.request;
  if (verbWord === undefined) return undefined;
  const verb = encode(verbWord);
  const words = new Set(headWords(q.query).filter((t) => !verb.includes(t)));
  const object = groups.filter((g) => words.has(g.word));
  if (!object.length) return undefined;
  const part = c.toolObject(q.top);
  // A verb made of the tool's object ("tag the head as v1.4.2" → git.create-tag) asks for that object.
  if (c.namesObject(object, part.terms) || verb.some((v) => part.terms.has(v))) return undefined;
  const serves = (t: CatalogTool) => {
    const own = c.toolObject(t);
    return c.namesObject(object, own.terms) && (fitOf(action, c.toolAction(t)) !== Fit.conflict || verb.some((v) => own.name.has(v)));
  };
  if (q.runnersUp().some(serves)) return undefined;
  return { factor: c.params.objectVerdict, word: object[0]!.word, part: part.text };
}
