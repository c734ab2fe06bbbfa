// zod issues → findings: unknown keys name the key, missing fields say so, everything else is an invalid value.
import type { z } from "zod";
import { isRecord, type Finding, type Segment } from "./finding.js";

type Issue = z.core.$ZodIssue;

/** Value at a path, or undefined when any step is missing. */
export function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let cur: unknown = data;
  for (const seg of path) {
    if (Array.isArray(cur) && typeof seg === "number") cur = cur[seg];
    else if (isRecord(cur) && typeof seg === "string") cur = Object.hasOwn(cur, seg) ? cur[seg] : undefined;
    else return undefined;
  }
  return cur;
}

export function issuesToFindings(
  issues: readonly Issue[],
  data: unknown,
  suggest?: (key: string, at: Segment[]) => string | undefined,
): Finding[] {
  const out: Finding[] = [];
  const walk = (list: readonly Issue[], base: Segment[]) => {
    for (const issue of list) {
      const at = [...base, ...issue.path.filter((p): p is Segment => typeof p !== "symbol")];
      switch (issue.code) {
        case "unrecognized_keys":
          for (const key of issue.keys) {
            const hint = suggest?.(key, at);
            out.push({
              code: "UNKNOWN_KEY",
              at: [...at, key],
              message: `unknown key \`${key}\`${hint ? ` (did you mean \`${hint}\`?)` : ""}`,
            });
          }
          break;
        case "invalid_union": {
          if (issue.errors.length === 0) {
            const field = at[at.length - 1];
            const missing = valueAt(data, at) === undefined;
            out.push(
              missing
                ? { code: "MISSING_FIELD", at, message: `missing required field \`${String(field)}\`` }
                : { code: "INVALID_VALUE", at, message: issue.message },
            );
          } else {
            // The branch with the fewest complaints is the one the author most likely meant.
            const best = [...issue.errors].sort((a, b) => a.length - b.length)[0]!;
            walk(best, at);
          }
          break;
        }
        case "invalid_type":
          if (valueAt(data, at) === undefined && at.length > 0) {
            out.push({ code: "MISSING_FIELD", at, message: `missing required field \`${String(at[at.length - 1])}\`` });
          } else {
            out.push({ code: "INVALID_VALUE", at, message: issue.message.replace(/^Invalid input: /, "") });
          }
          break;
        default:
          out.push({ code: "INVALID_VALUE", at, message: issue.message.replace(/^Invalid input: /, "") });
      }
    }
  };
  walk(issues, []);
  return out;
}

/** Closest candidate within a small edit distance, for "did you mean" hints. */
export function closest(word: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestD = Math.max(2, Math.floor(word.length / 3)) + 1;
  for (const c of candidates) {
    const d = editDistance(word.toLowerCase(), c.toLowerCase());
    if (d < bestD) [best, bestD] = [c, d];
  }
  return best;
}

function editDistance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = prev[j]!;
      prev[j] = Math.min(prev[j]! + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = tmp;
    }
  }
  return prev[b.length]!;
}
