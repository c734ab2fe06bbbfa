import { encode } from "../../../../registry/contract/search-options.js";
import { STAGE_LIMITS } from "../../../../registry/contract/find-tuning.js";
import { actionOf, actionWords } from "../actions.js";
import lists from "../data/request-words.json" with { type: "json" };
import type { JudgeContext } from "./context.js";
import type { JudgeInput, Judgement } from "./types.js";

/** A word starting with one of the opposite-making prefixes (the opposite rule's first check). */
const OPPOSITE_START = new RegExp(`(?:^|[^a-z])(?:${lists.opposites.prefixes.join("|")})[a-z]`);

/**
 * The opposite rule: a request word is an opposite-making prefix and a word of the top tool's name
 * ("unread" = un + "read" of mark-notifications-as-read) and the catalog never says it: the tool
 * does what the request asks to undo, and no tool speaks of the undoing. (A word the catalog says,
 * "display" beside a tool named "play", is the catalog's own word, not an opposite.)
 */
export function oppositeRule(c: JudgeContext, q: JudgeInput): Judgement["opposite"] {
  // Most requests hold no word starting with a prefix: one test of the text (split as actionWords splits it) first.
  if (!OPPOSITE_START.test(q.query.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase())) return undefined;
  const name = new Set(actionWords(q.top.name));
  for (const word of actionWords(q.query)) {
    const prefix = lists.opposites.prefixes.find((p) => word.startsWith(p));
    if (prefix === undefined || name.has(word)) continue;
    const toolWord = word.slice(prefix.length);
    if (toolWord.length < STAGE_LIMITS.oppositeMinLetters || !name.has(toolWord)) continue;
    // Last, as the dearest checks: a word the catalog says is its own, not an opposite (encoding the word);
    if (encode(word).some((t) => c.index.termOf(t) !== undefined)) continue;
    // a clause that removes the undone state asks for the thing ("just clear out all my unread notifications": mark them read).
    if (removes(c, q.query, word)) continue;
    return { factor: c.params.oppositeVerdict, word, toolWord };
  }
  return undefined;
}

/** Whether the clause of `query` (up to a comma, a full stop or a semicolon) that holds `word` asks first for a delete. */
function removes(c: JudgeContext, query: string, word: string): boolean {
  const clause = query.split(/[,.;:!?]+/).find((s) => actionWords(s).includes(word));
  return clause !== undefined && actionOf(actionWords(clause), c.actions!) === "delete";
}
