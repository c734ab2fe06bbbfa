// A description is one sentence the search indexes. More than one sentence is a warning, not an error:
// sentence detection is a heuristic (abbreviations, version numbers) and a heuristic must not fail a build.
// An empty description is an error: a tool nobody can find by what it does is a registry mistake.
import type { Finding } from "./finding.js";

const SENTENCE_END = /[.!?](?=\s+["'([]?[A-Z0-9])|[。！？](?=\s*\S)|\n\s*\n/u;
const ABBREVIATIONS = /\b(e\.g|i\.e|etc|vs|cf|approx|no|dr|mr|mrs|st)\.$/i;
export const MAX_DESCRIPTION = 300;

export function checkDescription(text: string, at: Finding["at"] = ["description"]): Finding[] {
  const d = text.trim();
  if (d === "")
    return [{ code: "DESCRIPTION_NOT_ONE_SENTENCE", severity: "error", at, message: "the description is empty: say in one sentence what the tool does" }];
  if (splitsIntoSentences(d)) {
    return [
      {
        code: "DESCRIPTION_NOT_ONE_SENTENCE",
        severity: "warning",
        at,
        message: "the description has more than one sentence: keep one (details belong in the schema's property descriptions)",
      },
    ];
  }
  if (d.length > MAX_DESCRIPTION) {
    return [
      {
        code: "DESCRIPTION_NOT_ONE_SENTENCE",
        severity: "warning",
        at,
        message: `the description is ${d.length} characters: one sentence of at most ${MAX_DESCRIPTION}`,
      },
    ];
  }
  return [];
}

function splitsIntoSentences(d: string): boolean {
  let rest = d;
  for (;;) {
    const m = SENTENCE_END.exec(rest);
    if (!m) return false;
    const before = rest.slice(0, m.index + 1);
    if (!ABBREVIATIONS.test(before)) return true;
    rest = rest.slice(m.index + 1);
  }
}

/** The first sentence of a longer text (MCP descriptions are often paragraphs). */
export function firstSentence(text: string): string {
  const d = text.trim();
  let offset = 0;
  for (;;) {
    const m = SENTENCE_END.exec(d.slice(offset));
    if (!m) return d;
    const end = offset + m.index + 1;
    if (!ABBREVIATIONS.test(d.slice(0, end))) return d.slice(0, end).trim();
    offset = end;
  }
}
