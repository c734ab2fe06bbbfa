// zod issues → findings: unknown keys name the key, missing fields say so, everything else is an invalid value.
import type { z } from "zod";
import { editDistance } from "../../registry/contract/edit-distance.js";
import { ownAt } from "../../registry/contract/own-path.js";
import type { Finding, Segment } from "./finding.js";

type Issue = z.core.$ZodIssue;

export function issuesToFindings(issues: readonly Issue[], data: unknown, suggest?: (key: string, at: Segment[]) => string | undefined): Finding[] {
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
            const missing = ownAt(data, at) === undefined;
            out.push(
              missing
                ? { code: "MISSING_FIELD", at, message: `missing required field \`${String(field)}\`` }
                : { code: "INVALID_VALUE", at, message: oneOf(issue, ownAt(data, at)) ?? issue.message },
            );
          } else {
            // The branch with the fewest complaints is the one the author most likely meant.
            const best = [...issue.errors].sort((a, b) => a.length - b.length)[0]!;
            walk(best, at);
          }
          break;
        }
        case "invalid_type":
          if (ownAt(data, at) === undefined && at.length > 0) {
            out.push({ code: "MISSING_FIELD", at, message: `missing required field \`${String(at[at.length - 1])}\`` });
          } else {
            out.push({ code: "INVALID_VALUE", at, message: issue.message.replace(/^Invalid input: /, "") + unquoteHint(issue, ownAt(data, at)) });
          }
          break;
        case "invalid_value":
          out.push({ code: "INVALID_VALUE", at, message: oneOf(issue, ownAt(data, at)) ?? issue.message.replace(/^Invalid input: /, "") });
          break;
        default:
          out.push({ code: "INVALID_VALUE", at, message: issue.message.replace(/^Invalid input: /, "") });
      }
    }
  };
  walk(issues, []);
  return out;
}

/** `timeout_secs: "5"`: a number or boolean written in quotes is a string in YAML. */
function unquoteHint(issue: Issue, value: unknown): string {
  const expected = (issue as { expected?: unknown }).expected;
  if (typeof value !== "string") return "";
  const fits = (expected === "number" && value.trim() !== "" && Number.isFinite(Number(value))) || (expected === "boolean" && /^(true|false)$/.test(value));
  return fits ? `: write \`${value.trim()}\` without quotes` : "";
}

/** A value outside a fixed set (an enum, a `kind`): the allowed values and the closest one. */
function oneOf(issue: Issue, value: unknown): string | undefined {
  const raw = (issue as { options?: unknown; values?: unknown }).options ?? (issue as { values?: unknown }).values;
  if (!Array.isArray(raw) || raw.length === 0 || !raw.every((v) => typeof v === "string")) return undefined;
  const options = raw as string[];
  // Stricter than for keys: a short list of short words is close to everything (FETCH is not PATCH).
  const hint = typeof value === "string" ? closest(value, options, Math.max(1, Math.floor(value.length / 4))) : undefined;
  const got = typeof value === "string" ? `\`${value}\`` : JSON.stringify(value);
  return `${got} is not one of ${options.map((o) => `\`${o}\``).join(", ")}${hint ? ` (did you mean \`${hint}\`?)` : ""}`;
}

/** Closest candidate within a small edit distance, for "did you mean" hints. */
export function closest(word: string, candidates: Iterable<string>, maxDistance = Math.max(2, Math.floor(word.length / 3))): string | undefined {
  let best: string | undefined;
  let bestD = maxDistance + 1;
  for (const c of candidates) {
    const d = editDistance(word.toLowerCase(), c.toLowerCase(), bestD - 1);
    if (d < bestD) [best, bestD] = [c, d];
  }
  return best;
}
