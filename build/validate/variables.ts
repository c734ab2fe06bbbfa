// `${NAME}` reads a gateway setting, and a family sees only the variables it declares: a template
// that reads anything else would fail at call time (and, before declarations, read any secret).
import { ENV_REF_RE } from "../../registry/contract/tool.js";
import type { Finding, Segment } from "./finding.js";
import { closest } from "./issues.js";

/** Environment variable names (`${NAME}`, `variables`, `env` keys). */
export const VARIABLE_NAME_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** What a family's tools may read: its name, declared variables and exec environment; where its http tools may go. */
export type FamilyScope = { name: string; variables: ReadonlySet<string>; env?: Readonly<Record<string, string>>; egress?: readonly string[] };

export type TextField = { at: Segment[]; text: string };

/** Every `${NAME}` in `fields` that the family does not declare, with the closest declared name as a hint. */
export function checkVariableRefs(fields: readonly TextField[], family: FamilyScope): Finding[] {
  const out: Finding[] = [];
  for (const { at, text } of fields) {
    if (!text.includes("${")) continue;
    for (const m of text.matchAll(ENV_REF_RE)) {
      const name = m[1]!;
      if (family.variables.has(name)) continue;
      const hint = closest(name, family.variables);
      out.push({
        code: "UNDECLARED_VARIABLE",
        at,
        message:
          `\`\${${name}}\` is not a variable of family \`${family.name}\`: ` +
          (hint ? `did you mean \`${hint}\`? Otherwise declare` : "declare") +
          ` it under the family's \`variables\` in families.yaml (its tools see no other setting of the gateway)`,
      });
    }
  }
  return out;
}

/** Names of a `variables` or `env` map that cannot be environment variables. */
export function checkVariableNames(names: Iterable<string>, at: Segment[], what: string): Finding[] {
  const out: Finding[] = [];
  for (const name of names) {
    if (!VARIABLE_NAME_RE.test(name)) {
      out.push({ code: "BAD_NAME", at: [...at, name], message: `${what} \`${name}\` must be letters, digits and \`_\`, not starting with a digit` });
    }
  }
  return out;
}
