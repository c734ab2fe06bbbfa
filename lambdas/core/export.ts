// The caller's tools as the model APIs' tool definitions, and find's answer as each API's custom tool
// search result. Pure: the route and the offline CLI pass the catalog, the grants and the belt in.
import type { CatalogTool } from "../../registry/contract/artifact.js";
import { isCallable } from "../../registry/contract/callable.js";
import { META_TOOLS, modelNameOf } from "../../registry/contract/names.js";
import { NONE_NOTE } from "../contract/find.js";
import {
  type AnthropicSearchResult,
  type AnthropicToolDefinition,
  type ExportAnswer,
  type ModelApiFormat,
  type ObjectSchema,
  type OpenAIFunctionDefinition,
  type OpenAISearchResult,
  type OpenAIToolSearchDefinition,
  SEARCH_TOOL_NAME,
  type SearchAnswer,
} from "../contract/model-apis.js";

export type ExportInput = {
  tools: readonly CatalogTool[];
  granted: (name: string) => boolean;
  /** On the caller's belt (always-loaded, declared, pinned): sent loaded; every other tool is deferred. */
  onBelt: (name: string) => boolean;
};

/** Most input_examples per tool: a few show the shape; more cost tokens on every load. */
export const MAX_INPUT_EXAMPLES = 3;

const META = new Set(META_TOOLS);

/** The tools an export offers: granted, callable, not a meta-tool (the search tool stands in for find; the model calls tools directly). */
export function exportable(tools: readonly CatalogTool[], granted: (name: string) => boolean): CatalogTool[] {
  return tools.filter((t) => granted(t.name) && !META.has(t.name) && isCallable(t) && modelNameOf(t) !== SEARCH_TOOL_NAME);
}

const SEARCH_PARAMETERS: ObjectSchema = {
  type: "object",
  properties: { query: { type: "string", description: "One capability in plain words, e.g. convert 9:30 in London to New York time." } },
  required: ["query"],
  additionalProperties: false,
};
const SEARCH_DESCRIPTION =
  "Search the tools you may call and load the ones that fit. Most tools are not loaded yet: search before saying a capability is missing.";

// Keywords both APIs refuse at the top of a tool's schema (they want one object); the gateway still checks them on call.
const TOP_LEVEL_REFUSED = ["oneOf", "anyOf", "allOf", "not", "enum", "if", "then", "else"];
// Identify a document, not a tool's input: dropped so the schema reads as the API's own (2020-12) dialect.
const DOCUMENT_KEYWORDS = ["$schema", "$id"];
const RULES_NOTE = "Some argument rules are not shown here; the gateway checks them when the tool is called.";

type Adapted = { schema: ObjectSchema; changes: string[] };

/** The input schema made acceptable to both APIs: one object at the top, no document keywords. */
export function adaptSchema(input: Record<string, unknown>): Adapted {
  const schema: Record<string, unknown> = { ...input };
  const changes: string[] = [];
  for (const k of DOCUMENT_KEYWORDS) if (k in schema) delete schema[k], changes.push(`dropped ${k}`);
  for (const k of TOP_LEVEL_REFUSED) if (k in schema) delete schema[k], changes.push(`dropped top-level ${k} (checked on call)`);
  if (schema.type !== "object") changes.push(`type ${JSON.stringify(schema.type ?? null)} set to object`), (schema.type = "object");
  return { schema: schema as ObjectSchema, changes };
}

/**
 * Example arguments from the input schema's property `examples` (never the tool-level `examples`, which are
 * requests in words for find): example k takes each property's k-th example (else its first), and is kept
 * only when it conforms to the whole schema.
 */
export function inputExamples(schema: Record<string, unknown>): Record<string, unknown>[] {
  const props = Object.entries((schema.properties ?? {}) as Record<string, { examples?: unknown }>).filter(
    ([, p]) => p !== null && typeof p === "object" && Array.isArray(p.examples) && p.examples.length > 0,
  );
  const count = Math.min(MAX_INPUT_EXAMPLES, Math.max(0, ...props.map(([, p]) => (p.examples as unknown[]).length)));
  const seen = new Set<string>();
  const out: Record<string, unknown>[] = [];
  for (let k = 0; k < count; k++) {
    const example = Object.fromEntries(props.map(([name, p]) => [name, (p.examples as unknown[])[k] ?? (p.examples as unknown[])[0]]));
    const key = JSON.stringify(example);
    if (!seen.has(key) && conforms(schema, example) === true) seen.add(key), out.push(example);
  }
  return out;
}

// Keywords that only annotate: they never make a value invalid.
const ANNOTATIONS = new Set(["description", "title", "default", "examples", "deprecated", "readOnly", "writeOnly", "$comment", "$schema", "$id"]);
const typeOf = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "array" : Number.isInteger(v) ? "integer" : typeof v);

/**
 * Whether `value` conforms to `schema`, for the keywords an argument schema mostly uses; undefined when the schema
 * uses one this does not evaluate ($ref, combinators, format...), so an example is left out rather than shown unproven.
 * (The api Lambda carries no JSON Schema validator; the model-APIs tests check every example with ajv too.)
 */
export function conforms(schema: unknown, value: unknown): boolean | undefined {
  if (schema === true || schema === undefined) return true;
  if (schema === false) return false;
  if (schema === null || typeof schema !== "object") return undefined;
  const s = schema as Record<string, unknown>;
  let verdict: boolean | undefined = true;
  const fail = (ok: boolean | undefined) => {
    if (ok === false) verdict = false;
    else if (ok === undefined && verdict) verdict = undefined;
  };
  const current = () => verdict;
  const t = typeOf(value);
  for (const [k, v] of Object.entries(s)) {
    if (ANNOTATIONS.has(k)) continue;
    switch (k) {
      case "type": {
        const types = Array.isArray(v) ? v : [v];
        fail(types.includes(t) || (t === "integer" && types.includes("number")));
        break;
      }
      case "enum":
        fail(Array.isArray(v) && v.some((e) => JSON.stringify(e) === JSON.stringify(value)));
        break;
      case "const":
        fail(JSON.stringify(v) === JSON.stringify(value));
        break;
      case "minLength":
      case "maxLength":
        if (typeof value === "string") fail(k === "minLength" ? [...value].length >= (v as number) : [...value].length <= (v as number));
        break;
      case "pattern":
        if (typeof value === "string") fail(safeTest(v, value));
        break;
      case "minimum":
      case "maximum":
      case "exclusiveMinimum":
      case "exclusiveMaximum":
        if (typeof value === "number") fail(inBound(k, v as number, value));
        break;
      case "minItems":
      case "maxItems":
        if (Array.isArray(value)) fail(k === "minItems" ? value.length >= (v as number) : value.length <= (v as number));
        break;
      case "items":
        if (Array.isArray(value)) for (const item of value) fail(conforms(v, item));
        break;
      case "required":
        if (t === "object") fail((v as string[]).every((name) => Object.hasOwn(value as object, name)));
        break;
      case "properties":
      case "additionalProperties":
        if (t === "object") fail(objectConforms(s, value as Record<string, unknown>));
        break;
      default:
        fail(undefined);
    }
  }
  // Read through a function: TypeScript narrows `verdict` to its initial value, not seeing the closure's writes.
  return current();
}

function objectConforms(s: Record<string, unknown>, value: Record<string, unknown>): boolean | undefined {
  const props = (s.properties ?? {}) as Record<string, unknown>;
  let verdict: boolean | undefined = true;
  for (const [name, v] of Object.entries(value)) {
    const sub = Object.hasOwn(props, name) ? props[name] : (s.additionalProperties ?? true);
    const ok = conforms(sub, v);
    if (ok === false) return false;
    if (ok === undefined) verdict = undefined;
  }
  return verdict;
}

function inBound(keyword: string, bound: number, n: number): boolean {
  if (keyword === "minimum") return n >= bound;
  if (keyword === "maximum") return n <= bound;
  return keyword === "exclusiveMinimum" ? n > bound : n < bound;
}

function safeTest(pattern: unknown, text: string): boolean | undefined {
  try {
    return new RegExp(pattern as string, "u").test(text);
  } catch {
    return undefined;
  }
}

type Definition = { anthropic: AnthropicToolDefinition; openai: OpenAIFunctionDefinition; changes: string[]; examples: number };

/** One tool in both formats (the route picks one): model-safe name, adapted schema, examples, deferral. */
export function toolDefinitions(t: CatalogTool, deferred: boolean): Definition {
  const { schema, changes } = adaptSchema(t.input_schema as Record<string, unknown>);
  const examples = inputExamples(schema);
  const name = modelNameOf(t);
  const description = changes.some((c) => c.includes("checked on call")) ? `${t.description}\n\n${RULES_NOTE}` : t.description;
  // Anthropic takes the examples as input_examples, so they leave the properties (they would cost tokens twice);
  // OpenAI's function tool has no such field, so they stay where the model reads them.
  const anthropicSchema = examples.length ? withoutPropertyExamples(schema) : schema;
  const defer = deferred ? { defer_loading: true } : {};
  return {
    anthropic: { name, description, input_schema: anthropicSchema, ...(examples.length ? { input_examples: examples } : {}), ...defer },
    openai: { type: "function", name, description, parameters: schema, strict: false, ...defer },
    changes,
    examples: examples.length,
  };
}

function withoutPropertyExamples(schema: ObjectSchema): ObjectSchema {
  const properties = Object.fromEntries(
    Object.entries(schema.properties ?? {}).map(([k, p]) => {
      if (p === null || typeof p !== "object") return [k, p];
      const { examples: _moved, ...rest } = p as Record<string, unknown>;
      return [k, rest];
    }),
  );
  return { ...schema, properties };
}

export const anthropicSearchTool = (): AnthropicToolDefinition => ({
  name: SEARCH_TOOL_NAME,
  description: SEARCH_DESCRIPTION,
  input_schema: SEARCH_PARAMETERS,
});
export const openaiSearchTool = (): OpenAIToolSearchDefinition => ({
  type: "tool_search",
  execution: "client",
  description: SEARCH_DESCRIPTION,
  parameters: SEARCH_PARAMETERS,
});

export function exportTools<F extends ModelApiFormat>(format: F, input: ExportInput): ExportAnswer<F> {
  const names: Record<string, string> = {};
  const adjusted: Record<string, string[]> = {};
  const defs: (AnthropicToolDefinition | OpenAIFunctionDefinition)[] = [];
  let deferred = 0;
  let examples = 0;
  for (const t of exportable(input.tools, input.granted)) {
    const defer = !input.onBelt(t.name);
    const d = toolDefinitions(t, defer);
    const name = modelNameOf(t);
    names[name] = t.name;
    const changes = format === "anthropic" && d.examples ? [...d.changes, "property examples moved to input_examples"] : d.changes;
    if (changes.length) adjusted[name] = changes;
    defs.push(d[format]);
    deferred += defer ? 1 : 0;
    examples += format === "anthropic" ? d.examples : 0;
  }
  const search = format === "anthropic" ? anthropicSearchTool() : openaiSearchTool();
  return {
    format,
    tools: [search, ...defs] as ExportAnswer<F>["tools"],
    names,
    counts: { tools: defs.length, deferred, loaded: defs.length - deferred, input_examples: examples },
    adjusted,
  };
}

export type SearchInput = {
  format: ModelApiFormat;
  /** find's ranked names (its best first), its verdict and note. */
  found: { verdict: "match" | "none"; names: readonly string[]; note?: string };
  limit: number;
  /** The export's tools by full name (exportable ∩ belt decides defer_loading): only these are ever referenced. */
  exported: ReadonlyMap<string, CatalogTool>;
  onBelt: (name: string) => boolean;
  tool_use_id?: string;
  call_id?: string;
};

/**
 * find's answer as the API's custom tool search result: references (Anthropic) or definitions (OpenAI) of the
 * best `limit` exported tools; a `none` verdict is the API's empty result with find's note; `more` counts the rest.
 */
export function searchAnswer(input: SearchInput): SearchAnswer {
  const matched = input.found.verdict === "none" ? [] : input.found.names.map((n) => input.exported.get(n)).filter((t) => t !== undefined);
  const chosen = matched.slice(0, input.limit);
  const more = matched.length - chosen.length;
  const verdict = chosen.length ? "match" : "none";
  const note =
    verdict === "none"
      ? (input.found.note ?? NONE_NOTE)
      : more > 0
        ? `${more} more tool${more === 1 ? "" : "s"} matched; search again in narrower words to load a different one.`
        : undefined;
  const names = chosen.map(modelNameOf);
  let result: AnthropicSearchResult | OpenAISearchResult;
  if (input.format === "anthropic") {
    const content: AnthropicSearchResult["content"] = names.length
      ? names.map((tool_name) => ({ type: "tool_reference", tool_name }))
      : [{ type: "text", text: note ?? NONE_NOTE }];
    result = { type: "tool_result", tool_use_id: input.tool_use_id ?? "", content };
  } else {
    const tools = chosen.map((t) => toolDefinitions(t, !input.onBelt(t.name)).openai);
    result = { type: "tool_search_output", execution: "client", call_id: input.call_id ?? "", status: "completed", tools };
  }
  return { format: input.format, verdict, result, names, matched: matched.length, more, ...(note ? { note } : {}) };
}
