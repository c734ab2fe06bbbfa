import { encode } from "../../../../registry/contract/search-options.js";
import { COMMON_WORDS } from "../words.js";
import { anchored, type JudgeContext } from "./context.js";
import type { JudgeInput, Judgement } from "./types.js";

/**
 * The description-body rule: every specific word (not everyday English) the request met the top tool
 * in is only in the body of its long description (after its first sentence), where words are often
 * incidental ("retry a failed payment" → a webhook whose description says deliveries are retried).
 */
export function descriptionBodyRule(c: JudgeContext, q: JudgeInput): Judgement["body"] {
  const parts = c.descriptionParts(q.top);
  if (!parts.long) return undefined;
  const specific = q.matches(q.top).filter((m) => encode(m.word).some((t) => !COMMON_WORDS.has(t)));
  if (specific.length === 0 || specific.some((m) => anchored(m, parts))) return undefined;
  return { factor: c.params.bodyOneWord, word: specific[0]!.word };
}
