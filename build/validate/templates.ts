// Templates reference `{{input.*}}` only, and only properties the input schema declares.
import { INPUT_REF_RE, TEMPLATE_TOKEN_RE } from "../../registry/contract/tool.js";
import type { Finding, Segment } from "./finding.js";

export type TemplateField = { at: Segment[]; text: string };

/** `known` is the input schema's property names; undefined when the schema declares none (then any is allowed). */
export function checkTemplate(field: TemplateField, known: ReadonlySet<string> | undefined): Finding[] {
  const out: Finding[] = [];
  const { text, at } = field;
  if (!text.includes("{{") && !text.includes("}}")) return out;
  let consumed = "";
  let last = 0;
  for (const m of text.matchAll(TEMPLATE_TOKEN_RE)) {
    consumed += text.slice(last, m.index);
    last = m.index + m[0].length;
    const ref = INPUT_REF_RE.exec(m[1] ?? "");
    if (!ref) {
      out.push({ code: "TEMPLATE_REFERENCE", at, message: `template \`${m[0]}\` may only reference the input, as \`{{input.name}}\`` });
    } else if (known && !known.has(ref[1]!)) {
      out.push({
        code: "TEMPLATE_REFERENCE",
        at,
        message: `template \`${m[0]}\` references \`${ref[1]}\`, which is not a property of the input_schema`,
      });
    }
  }
  consumed += text.slice(last);
  if (consumed.includes("{{") || consumed.includes("}}")) {
    out.push({ code: "TEMPLATE_REFERENCE", at, message: "unbalanced `{{`/`}}` in template" });
  }
  return out;
}

/** A field that takes no input references at all (e.g. a command, a family's MCP endpoint). */
export function checkNoTemplate(field: TemplateField, what: string): Finding[] {
  return field.text.includes("{{") ? [{ code: "TEMPLATE_REFERENCE", at: field.at, message: `${what} is not templated: \`{{...}}\` is not allowed here` }] : [];
}

/** Every string leaf of a JSON body template. */
export function stringLeaves(value: unknown, at: Segment[], out: TemplateField[] = [], depth = 0): TemplateField[] {
  if (depth > 64) return out;
  if (typeof value === "string") out.push({ at, text: value });
  else if (Array.isArray(value)) value.forEach((v, i) => stringLeaves(v, [...at, i], out, depth + 1));
  else if (typeof value === "object" && value !== null) {
    for (const [k, v] of Object.entries(value)) stringLeaves(v, [...at, k], out, depth + 1);
  }
  return out;
}
