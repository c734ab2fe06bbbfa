// Search hints (`examples`, `aliases`, and the `details` text): bounded per tool (an error names what to cut), and a hint
// repeated within a tool or across tools is a warning: it teaches find nothing, or two tools the same
// words, so neither wins.
import { SEARCH_HINT_LIMITS } from "../../registry/contract/tool.js";
import type { Finding } from "./finding.js";

export type SearchHints = { examples?: readonly string[] | undefined; aliases?: readonly string[] | undefined; details?: string | undefined };
const FIELDS = [
  { field: "examples", max: SEARCH_HINT_LIMITS.examples, length: SEARCH_HINT_LIMITS.exampleLength, what: "example" },
  { field: "aliases", max: SEARCH_HINT_LIMITS.aliases, length: SEARCH_HINT_LIMITS.aliasLength, what: "alias" },
] as const;

/** The form a hint is compared in: case, spacing and end punctuation do not make two hints different. */
export const hintKey = (s: string) =>
  s
    .toLowerCase()
    .replace(/[\s.!?]+$/u, "")
    .replace(/\s+/g, " ")
    .trim();

export function checkSearchHints(t: SearchHints): Finding[] {
  const out: Finding[] = [];
  // One long text would weigh in every find and grow every bundle: the importer keeps 60 words.
  const details = t.details?.trim().length ?? 0;
  if (details > SEARCH_HINT_LIMITS.detailsLength) {
    out.push({
      code: "SEARCH_HINT_LIMIT",
      at: ["details"],
      message: `the details are ${details} characters: at most ${SEARCH_HINT_LIMITS.detailsLength}; keep what a user might search by`,
    });
  }
  for (const { field, max, length, what } of FIELDS) {
    const list = t[field];
    if (!list) continue;
    if (list.length > max) {
      out.push({ code: "SEARCH_HINT_LIMIT", at: [field], message: `${list.length} ${field}: at most ${max}; keep the ones a user is most likely to say` });
    }
    const seen = new Map<string, number>();
    list.forEach((text, i) => {
      const key = hintKey(text);
      if (!key) out.push({ code: "SEARCH_HINT_LIMIT", at: [field, i], message: `an empty ${what}: remove it` });
      else if (text.trim().length > length) {
        out.push({ code: "SEARCH_HINT_LIMIT", at: [field, i], message: `the ${what} is ${text.trim().length} characters: at most ${length}` });
      }
      const first = seen.get(key);
      if (key && first !== undefined) {
        out.push({ code: "SEARCH_HINT_DUPLICATE", severity: "warning", at: [field, i], message: `the ${what} repeats ${field}[${first}]: remove one` });
      } else seen.set(key, i);
    });
  }
  return out;
}
