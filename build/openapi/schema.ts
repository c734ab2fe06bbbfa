// OpenAPI schema objects → JSON Schema 2020-12 that the strict check accepts. OpenAPI 3.0 schemas are a
// JSON Schema dialect of their own (`nullable`, `example`, boolean `exclusiveMinimum`), 3.1 ones are
// 2020-12 plus OpenAPI keywords; both lose what an agent cannot use (`discriminator`, `xml`, `x-…`).
import { fullFormats } from "ajv-formats/dist/formats.js";
import { printable } from "../../registry/contract/printable.js";
import { isRecord } from "../validate/finding.js";

/** Keywords whose value is one schema. */
const ONE = ["not", "if", "then", "else", "additionalProperties", "contains", "propertyNames", "unevaluatedItems", "unevaluatedProperties", "contentSchema"];
/** Keywords whose value is a list of schemas. */
const MANY = ["allOf", "anyOf", "oneOf", "prefixItems"];
/** Keywords whose value maps names to schemas. */
const MAP = ["properties", "patternProperties", "$defs", "dependentSchemas"];
/** Keywords copied as they are (values, not schemas). */
const VALUES = new Set([
  "type",
  "enum",
  "const",
  "multipleOf",
  "maximum",
  "exclusiveMaximum",
  "minimum",
  "exclusiveMinimum",
  "maxLength",
  "minLength",
  "maxItems",
  "minItems",
  "uniqueItems",
  "maxContains",
  "minContains",
  "maxProperties",
  "minProperties",
  "required",
  "dependentRequired",
  "title",
  "description",
  "default",
  "deprecated",
  "readOnly",
  "writeOnly",
  "examples",
  "contentEncoding",
  "contentMediaType",
]);
const FORMATS = new Set(Object.keys(fullFormats));
/** Deeper schemas are cut: an input schema this deep helps no agent. */
const MAX_DEPTH = 32;

const compiles = (pattern: string) => {
  try {
    new RegExp(pattern, "u");
    return true;
  } catch {
    return false;
  }
};

/**
 * Which way the schema is read: a request's input leaves out `readOnly` properties (the server sets
 * them: Train Travel's booking `id`), a response's output leaves out `writeOnly` ones (never returned).
 */
export type SchemaDirection = "request" | "response";

/**
 * A JSON Schema 2020-12 copy of an OpenAPI (3.0 or 3.1) schema whose `$ref`s are already resolved. A
 * schema that contains itself (a recursive `$ref`) becomes `{}` at the repetition; unknown formats and
 * patterns JavaScript cannot compile are dropped, since the gateway could not check them.
 */
export function toJsonSchema(schema: unknown, direction: SchemaDirection = "request"): Record<string, unknown> | boolean {
  return convert(schema, [], direction === "request" ? "readOnly" : "writeOnly");
}

function convert(s: unknown, stack: unknown[], hidden: "readOnly" | "writeOnly"): Record<string, unknown> | boolean {
  if (typeof s === "boolean") return s;
  if (!isRecord(s) || stack.includes(s) || stack.length >= MAX_DEPTH) return {};
  const inner = [...stack, s];
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(s)) {
    if (v === null && k !== "default" && k !== "const") continue;
    if (ONE.includes(k)) out[k] = convert(v, inner, hidden);
    else if (MANY.includes(k) && Array.isArray(v)) out[k] = v.map((x) => convert(x, inner, hidden));
    else if (MAP.includes(k) && isRecord(v)) {
      const entries = Object.entries(v).filter(
        ([name, x]) => (k !== "patternProperties" || compiles(name)) && !(k === "properties" && isRecord(x) && x[hidden] === true),
      );
      out[k] = Object.fromEntries(entries.map(([name, x]) => [name, convert(x, inner, hidden)]));
    } else if (k === "items") {
      // A list of item schemas is a draft-04 tuple, `prefixItems` in 2020-12.
      if (Array.isArray(v)) out.prefixItems = v.map((x) => convert(x, inner, hidden));
      else out.items = convert(v, inner, hidden);
    } else if (k === "format") {
      if (typeof v === "string" && FORMATS.has(v)) out.format = v;
    } else if (k === "pattern") {
      if (typeof v === "string" && compiles(v)) out.pattern = v;
    } else if (k === "example") {
      if (!("examples" in s)) out.examples = [v];
    } else if ((k === "description" || k === "title") && typeof v === "string") out[k] = printable(v, { multiline: true });
    else if (VALUES.has(k)) out[k] = v;
  }
  // 3.0: `exclusiveMinimum: true` qualifies `minimum`; 2020-12 gives the bound itself.
  for (const [flag, bound] of [
    ["exclusiveMinimum", "minimum"],
    ["exclusiveMaximum", "maximum"],
  ] as const) {
    if (typeof out[flag] !== "boolean") continue;
    if (out[flag] === true && typeof out[bound] === "number") {
      out[flag] = out[bound];
      delete out[bound];
    } else delete out[flag];
  }
  if (s.nullable === true) allowNull(out);
  if (Array.isArray(out.required) && isRecord(out.properties)) {
    // The strict check refuses a required name without a property (a 3.0 habit with allOf): keep the declared ones.
    const props = out.properties;
    out.required = out.required.filter((n) => typeof n === "string" && Object.hasOwn(props, n));
    if ((out.required as unknown[]).length === 0) delete out.required;
  }
  return out;
}

/** OpenAPI 3.0 `nullable: true`: null joins the type, the enum, or the alternatives. */
function allowNull(out: Record<string, unknown>): void {
  if (typeof out.type === "string") out.type = [out.type, "null"];
  else if (Array.isArray(out.type) && !out.type.includes("null")) out.type = [...out.type, "null"];
  if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  for (const k of ["oneOf", "anyOf"]) {
    const alts = out[k];
    if (out.type === undefined && Array.isArray(alts)) out[k] = [...alts, { type: "null" }];
  }
}
