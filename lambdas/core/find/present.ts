// Stage 5, present: a ranked tool as the answer shows it (a name and one line, or with its schemas),
// explain's matched words (computed only when asked, from the tool's text, for the tools shown), and
// the schemas the answer carries (schemas.ts).
import type { CatalogTool } from "../../../registry/contract/artifact.js";
import { isCallable } from "../../../registry/contract/callable.js";
import { modelNameOf } from "../../../registry/contract/names.js";
import { encode, spellSymbols, stripAgentPhrasing, toolFieldTexts, type FieldName } from "../../../registry/contract/search-options.js";
import { shortDescription, withoutExamples } from "../../../registry/contract/surface-entry.js";
import type { MatchedWord } from "../../contract/find.js";
import type { Analyser } from "./analyse.js";
import type { AlwaysTool } from "./types.js";

/** The index's field names as explain shows them. */
const FIELD_LABEL: Record<FieldName, MatchedWord["fields"][number]> = {
  name: "name",
  desc: "description",
  params: "parameters",
  family: "family",
  tags: "tags",
  aliases: "aliases",
  examples: "examples",
};

const ALL_FIELDS = Object.keys(FIELD_LABEL) as FieldName[];

/** Encoded terms with the first surface word each came from (a CJK bigram stands for itself). */
function encodeWithWords(text: string): Map<string, string> {
  const words = new Map<string, string>();
  const terms = encode(text, (w, s) => {
    if (!words.has(s)) words.set(s, w);
  });
  for (const t of terms) if (!words.has(t)) words.set(t, t);
  return words;
}

/**
 * A tool as a result shows it. A result without schemas is a name and one line: the agent calls one
 * of the few with schemas, or finds another by its exact name. Schemas come as the registry declares
 * them, or without `examples` as surfaces show them (complete for calling).
 */
export function shape(t: CatalogTool, schemas: boolean, examples = true): AlwaysTool {
  const strip = examples ? <T>(s: T) => s : withoutExamples;
  return {
    name: t.name,
    model_name: modelNameOf(t),
    family: t.family,
    description: schemas ? t.description : shortDescription(t.description, 160),
    ...(schemas ? { input_schema: strip(t.input_schema), ...(t.output_schema ? { output_schema: strip(t.output_schema) } : {}) } : {}),
    ...(isCallable(t) ? {} : { callable: false as const }),
  };
}

/**
 * explain's matched words of a request: per query word, the tool's fields holding it, or else holding
 * the first of its expansions the tool has (the analyser's own members: typo, synonym, lexicon, any
 * later table). Returns a function of a tool (and the fields to look in).
 */
export function matchExplainer(analyser: Analyser, familyDescription: (family: string) => string, query: string) {
  const asked = encodeWithWords(spellSymbols(query));
  for (const [t, w] of encodeWithWords(spellSymbols(stripAgentPhrasing(query)))) asked.set(t, w);
  const reach = analyser.matchable(query);
  return (t: CatalogTool, only: readonly FieldName[] = ALL_FIELDS): MatchedWord[] => {
    const texts = toolFieldTexts(t, familyDescription(t.family));
    const fields = only.map((f) => ({ f, terms: encodeWithWords(texts[f]) }));
    const out: MatchedWord[] = [];
    for (const { term, reach: members } of reach) {
      for (const m of members) {
        const hit = fields.filter((x) => x.terms.has(m));
        if (!hit.length) continue;
        const word = asked.get(term) ?? term;
        out.push({ word, fields: hit.map((x) => FIELD_LABEL[x.f]), ...(m !== term ? { expansion: hit[0]!.terms.get(m)! } : {}) });
        break;
      }
    }
    return out;
  };
}
