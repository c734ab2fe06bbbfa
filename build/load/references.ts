// References from the family list, briefs and policies to tools: names or globs that must match one.
import { globMatcher } from "../../registry/contract/globs.js";
import { familyOf } from "../../registry/contract/names.js";
import type { Finding } from "../validate/finding.js";
import { closest } from "../validate/issues.js";

/** Names or globs that must match at least one tool; a reference into a skipped family is only a warning. */
export function checkReferences(patterns: readonly string[], names: readonly string[], skipped: ReadonlySet<string>): Finding[] {
  const out: Finding[] = [];
  patterns.forEach((p, i) => {
    const match = globMatcher([p]);
    if (names.some(match)) return;
    const intoSkipped = skipped.has(familyOf(p));
    // A typo of a tool's name is the usual cause: name the nearest (globs get no hint).
    const hint = intoSkipped || p.includes("*") ? undefined : closest(p, names);
    out.push({
      code: "UNKNOWN_TOOL_REFERENCE",
      severity: intoSkipped ? "warning" : "error",
      at: [i],
      message: intoSkipped
        ? `\`${p}\` belongs to a skipped optional family`
        : `\`${p}\` matches no tool in the registry${hint ? ` (did you mean \`${hint}\`?)` : ""}`,
    });
  });
  return out;
}
