// Stage 5, present: a ranked tool as the answer shows it (a name and one line, or with its schemas),
// explain's matched words (computed only when asked, from the tool's text, for the tools shown), and
// the schemas the answer carries (schemas.ts).
import type { CatalogTool } from "../../../registry/contract/artifact.js";
import { isCallable } from "../../../registry/contract/callable.js";
import { modelNameOf } from "../../../registry/contract/names.js";
import { encode, spellSymbols, stripAgentPhrasing, toolFieldTexts, type FieldName } from "../../../registry/contract/search-options.js";
import { shortDescription, withoutExamples } from "../../../registry/contract/surface-entry.js";
import type { MatchedWord } from "../../contract/find.js";
import type { Analyser, Group } from "./analyse.js";
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
  details: "details",
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
 * them, or without `examples` as surfaces show them (complete for calling). Shaped once per tool and
 * kind, then shared: callers copy it into their answer and never change it.
 */
export function shape(t: CatalogTool, schemas: boolean, examples = true): AlwaysTool {
  let shapes = shaped.get(t);
  if (!shapes) shaped.set(t, (shapes = []));
  const kind = schemas ? (examples ? 2 : 1) : 0;
  return (shapes[kind] ??= shapeOf(t, schemas, examples));
}
const shaped = new WeakMap<CatalogTool, AlwaysTool[]>();

function shapeOf(t: CatalogTool, schemas: boolean, examples: boolean): AlwaysTool {
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
 * later table). Returns a function of a tool (and the fields to look in). `fieldTerms` is a tool's
 * encoded fields, kept across requests (fieldTermCache). `groups`: the request's analysis, when it is
 * one step (find's own, not analysed again).
 */
export function matchExplainer(analyser: Analyser, fieldTerms: (t: CatalogTool) => ToolTerms, query: string, groups?: readonly Group[]) {
  // The surface word of each query term, read at the first match (the judge often meets none).
  let words: Map<string, string> | undefined;
  const surface = (term: string) => {
    if (!words) {
      words = encodeWithWords(spellSymbols(query));
      const plain = stripAgentPhrasing(query);
      if (plain !== query) for (const [t, w] of encodeWithWords(spellSymbols(plain))) words.set(t, w);
    }
    return words.get(term) ?? term;
  };
  // Each member's words split once per request, not once per tool looked at.
  const reach = analyser.matchable(query, groups).map(({ term, reach: members }) => ({ term, members: members.map((m) => ({ m, parts: m.split(" ") })) }));
  return (t: CatalogTool, only: readonly FieldName[] = ALL_FIELDS): MatchedWord[] => {
    const tool = fieldTerms(t);
    let asked = 0;
    for (const f of only) asked |= FIELD_BIT[f];
    const out: MatchedWord[] = [];
    for (const { term, members } of reach) {
      for (const { m, parts } of members) {
        // A member may be a word pair (an abbreviation's meaning, "pr" → "pull request"): both words in the field.
        let hit = asked;
        for (let i = 0; i < parts.length && hit; i++) hit &= tool.fields.get(parts[i]!) ?? 0;
        if (!hit) continue;
        const fields = only.filter((f) => hit & FIELD_BIT[f]);
        const first = tool.terms[fields[0]!];
        const expansion = parts.map((p) => first.get(p)!).join(" ");
        out.push({ word: surface(term), fields: fields.map((f) => FIELD_LABEL[f]), ...(m !== term ? { expansion } : {}) });
        break;
      }
    }
    return out;
  };
}

/** A tool's encoded fields: per field, term → the surface word it came from; per term, the fields holding it (FIELD_BIT). */
export type ToolTerms = { terms: Record<FieldName, Map<string, string>>; fields: Map<string, number> };

const FIELD_BIT = Object.fromEntries(ALL_FIELDS.map((f, i) => [f, 1 << i])) as Record<FieldName, number>;

/**
 * A tool's encoded fields, encoded at the first request that looks at the tool and kept: the judge's
 * hint rules read the top tool's fields on most requests, and encoding a tool's text was half of a
 * find's CPU on a small catalog (/tmp profile, issue 27). One lookup per word tells every field holding it.
 */
export function fieldTermCache(familyDescription: (family: string) => string): (t: CatalogTool) => ToolTerms {
  const cache = new WeakMap<CatalogTool, ToolTerms>();
  return (t) => {
    let tool = cache.get(t);
    if (!tool) {
      const texts = toolFieldTexts(t, familyDescription(t.family));
      const terms = {} as Record<FieldName, Map<string, string>>;
      const fields = new Map<string, number>();
      for (const f of ALL_FIELDS) {
        terms[f] = encodeWithWords(texts[f]);
        for (const term of terms[f].keys()) fields.set(term, (fields.get(term) ?? 0) | FIELD_BIT[f]);
      }
      cache.set(t, (tool = { terms, fields }));
    }
    return tool;
  };
}
