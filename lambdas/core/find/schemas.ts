// Which results of a find carry their schemas. By default ("top") the best few scoring at least the
// default min_score, within a token budget for the whole answer, never a tool the caller already holds
// (on its belt), and always a tool asked for by its exact name. Keyword and decision mode share it.
import type { CatalogTool } from "../../../registry/contract/artifact.js";
import { withoutExamples } from "../../../registry/contract/surface-entry.js";
import { FIND_MAX_TOKENS, FIND_SCHEMA_TOP, NONE_NOTE, type FoundTool } from "../../contract/find.js";
import { shape } from "./present.js";

export type SchemaChoice = {
  policy: "top" | "all" | "none";
  /** The lowest score that earns a schema under "top" (the default min_score). */
  bar: number;
  /** Tools whose schemas the caller already has (on its session's belt): shown by name and one line only. */
  onBelt?: (name: string) => boolean;
  /** Tools asked for by their exact name: given their schema whatever it costs. */
  exact?: ReadonlySet<string>;
  /** The answer's budget in o200k tokens (FIND_MAX_TOKENS). */
  maxTokens?: number;
  /** Every result is its tool's light shape followed by its score (find without explain): sized without checking each. */
  lightResults?: boolean;
};

const encoder = new TextEncoder();
const bytes = (v: unknown) => encoder.encode(JSON.stringify(v)).length;

/**
 * What a tool's schemas add to an answer: the build's o200k count of its surface entry (name, description
 * and the schemas without examples, so a little more than the schemas), or bytes / 3.5 of those schemas
 * without a count (JSON schemas run 3.6-4.4 bytes a token: measured on the example and livemcpbench tools).
 */
const schemaCost = (t: CatalogTool) => {
  if (t.tokens !== undefined) return t.tokens;
  let cost = schemaCosts.get(t);
  if (cost === undefined) schemaCosts.set(t, (cost = Math.ceil(bytes([withoutExamples(t.input_schema), withoutExamples(t.output_schema ?? null)]) / 3.5)));
  return cost;
};
/** Per tool, its schemas' cost without a build count (computed at its first answer with schemas, then kept). */
const schemaCosts = new WeakMap<CatalogTool, number>();

/**
 * What the answer costs without schemas: bytes / 3.4, under the densest answer measured (500 answers of the
 * bench's five sets without schemas: 3.49-5.14 bytes an o200k token, mean 4.2), so the budget holds without a tokenizer.
 */
export const lightCost = (tools: readonly FoundTool[], byName: ReadonlyMap<string, CatalogTool>, allLight = false) =>
  Math.ceil(answerBytes(tools, byName, allLight) / 3.4) + 8;

const EMPTY_ANSWER = bytes({ mode: "keyword", verdict: "match", tools: [] });
const SCORE_KEY = ',"score":'.length;

/**
 * The UTF-8 bytes of JSON.stringify({mode: "keyword", verdict: "match", tools}) without serializing it on
 * every find: a result that is its tool's light shape (the same keys in the same order, the same values)
 * followed by its score costs the shape's cached size and the score's digits; any other result is serialized.
 * `allLight`: the caller built every result so (not checked, which was a tenth of a find's CPU).
 */
function answerBytes(tools: readonly FoundTool[], byName: ReadonlyMap<string, CatalogTool>, allLight: boolean): number {
  let n = EMPTY_ANSWER + Math.max(0, tools.length - 1);
  for (const f of tools) {
    const t = byName.get(f.name);
    const light = t && lightSize(t);
    n += light && (allLight || isLightEntry(f, light.keys, shape(t, false))) ? light.bytes + SCORE_KEY + JSON.stringify(f.score).length : bytes(f);
  }
  return n;
}

function isLightEntry(f: FoundTool, keys: readonly string[], light: object): boolean {
  const own = Object.keys(f);
  if (own.length !== keys.length + 1 || own[keys.length] !== "score") return false;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    if (own[i] !== k || (f as Record<string, unknown>)[k] !== (light as Record<string, unknown>)[k]) return false;
  }
  return true;
}

/** A tool's light shape: its keys, and the bytes of its JSON (a non-empty object's). */
function lightSize(t: CatalogTool): { keys: string[]; bytes: number } {
  let size = lightSizes.get(t);
  if (!size) {
    const light = shape(t, false);
    lightSizes.set(t, (size = { keys: Object.keys(light), bytes: bytes(light) }));
  }
  return size;
}
const lightSizes = new WeakMap<CatalogTool, { keys: string[]; bytes: number }>();

/** The note that says which schemas were left out for the budget, and how to get one. */
const leftOutNote = (names: readonly string[], max: number) =>
  `Input schema${names.length > 1 ? "s" : ""} of ${names.join(", ")} left out to keep this answer within ${max.toLocaleString("en")} tokens: find a tool by its exact name (or with schemas: "all") to get its schema.`;

/**
 * `light` are the results as names and one line each; `full(t)` a result with its description and schemas.
 * Under "top" the best FIND_SCHEMA_TOP results scoring at least the bar get their schemas (without `examples`,
 * as surfaces show them: complete for calling) while the answer stays within the budget; a schema that does
 * not fit is left out and named in `note`, and a smaller one further down may still fit. An answer
 * without results carries NONE_NOTE, whatever the policy (keyword and decision mode alike).
 */
export function chooseSchemas(
  light: readonly FoundTool[],
  byName: ReadonlyMap<string, CatalogTool>,
  full: (t: CatalogTool, examples: boolean) => Omit<FoundTool, "score">,
  choice: SchemaChoice,
): { tools: FoundTool[]; note?: string } {
  if (!light.length) return { tools: [], note: NONE_NOTE };
  if (choice.policy === "none") return { tools: [...light] };
  if (choice.policy === "all") return { tools: light.map((f) => ({ ...f, ...full(byName.get(f.name)!, true) })) };
  const max = choice.maxTokens ?? FIND_MAX_TOKENS;
  let spent = lightCost(light, byName, choice.lightResults === true);
  const leftOut: string[] = [];
  const tools = light.map((f, i) => {
    const t = byName.get(f.name)!;
    const asked = choice.exact?.has(f.name) === true;
    if (!asked && (i >= FIND_SCHEMA_TOP || f.score < choice.bar || choice.onBelt?.(f.name))) return f;
    const cost = schemaCost(t);
    if (!asked && spent + cost > max) {
      leftOut.push(f.name);
      return f;
    }
    spent += cost;
    return { ...f, ...full(t, false) };
  });
  return leftOut.length ? { tools, note: leftOutNote(leftOut, max) } : { tools };
}
