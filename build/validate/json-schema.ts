// Input and output schemas must compile as JSON Schema. `$schema` picks the dialect (draft-07 or 2020-12,
// the default, as in MCP); anything else is refused rather than guessed.
import { Ajv, type ErrorObject } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import { schemaDialect } from "../../registry/contract/json-schema-dialect.js";
import { RESERVED_ARGUMENT_KEYS } from "../../registry/contract/names.js";
import { isRecord, type Finding, type Segment } from "./finding.js";


// strict: false because real MCP schemas carry vendor keywords; `optimize: false` halves compile time.
const options = { strict: false, allErrors: true, addUsedSchema: false, logger: false, code: { optimize: false, source: false } } as const;
let ajv7: Ajv | undefined;
let ajv2020: Ajv2020 | undefined;
const draft7 = () => (ajv7 ??= new Ajv(options));
const draft2020 = () => (ajv2020 ??= new Ajv2020(options));

/** Keywords whose value is a schema, an array of schemas, or a map of schemas: where the walk descends. */
const ONE = ["not", "if", "then", "else", "additionalProperties", "additionalItems", "contains", "propertyNames", "unevaluatedItems", "unevaluatedProperties", "items"];
const MANY = ["allOf", "anyOf", "oneOf", "prefixItems", "items"];
const MAP = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"];

/**
 * Problems of one schema, `at` being its location in the file. The meta-schema check plus the walk for
 * regular expressions cover what compiling finds under strict: false; schemas with references are fully
 * compiled because only compiling resolves them. Compiling every schema costs ~0.2 ms each, too slow for
 * a check that runs on every push over thousands of tools.
 */
export function checkJsonSchema(schema: unknown, at: Segment[]): Finding[] {
  if (typeof schema === "boolean") return [];
  if (!isRecord(schema)) return [{ code: "SCHEMA_INVALID", at, message: "a JSON Schema must be an object" }];
  const dialect = schemaDialect(schema);
  if (!dialect) {
    return [
      {
        code: "SCHEMA_INVALID",
        at: [...at, "$schema"],
        message: `unsupported $schema ${JSON.stringify(schema.$schema)}: use draft-07 or 2020-12 (the default)`,
      },
    ];
  }
  const ajv: Ajv | Ajv2020 = dialect === "2020-12" ? draft2020() : draft7();
  let valid: boolean;
  try {
    valid = ajv.validateSchema(schema) as boolean;
  } catch (e) {
    return [{ code: "SCHEMA_INVALID", at, message: `does not compile: ${(e as Error).message}` }];
  }
  if (!valid) return metaErrors(ajv.errors ?? [], at);
  const out: Finding[] = [];
  walkPatterns(schema, at, out, 0);
  if (out.length > 0) return out;
  if (hasReference(schema)) {
    try {
      ajv.compile(schema);
    } catch (e) {
      out.push({ code: "SCHEMA_INVALID", at, message: `does not compile: ${(e as Error).message}` });
    }
  }
  return out;
}

/** Tool arguments are a JSON object: the input schema must say so, and name no reserved argument key. */
export function checkInputSchema(schema: unknown, at: Segment[]): Finding[] {
  const found = checkJsonSchema(schema, at);
  if (found.length > 0) return found;
  if (!isRecord(schema) || schema.type !== "object") {
    return [{ code: "SCHEMA_INVALID", at: [...at, "type"], message: 'an input_schema must have `type: "object"` (tool arguments are an object)' }];
  }
  const out: Finding[] = [];
  walkReserved(schema, at, out, 0);
  return out;
}

/** A property the gateway would refuse in every call (RESERVED_ARGUMENT_KEYS), at any depth of the schema. */
function walkReserved(s: unknown, at: Segment[], out: Finding[], depth: number): void {
  if (!isRecord(s) || depth > 64) return;
  const reserved = (name: string, where: Segment[]) =>
    out.push({
      code: "SCHEMA_INVALID",
      at: where,
      message: `\`${name}\` is a reserved argument name: the gateway refuses ${RESERVED_ARGUMENT_KEYS.map((k) => `\`${k}\``).join(", ")} anywhere in a call's arguments, so rename the property`,
    });
  const props = isRecord(s.properties) ? s.properties : {};
  for (const name of Object.keys(props)) if (RESERVED_ARGUMENT_KEYS.includes(name)) reserved(name, [...at, "properties", name]);
  // A required name without a property of its own (a property is reported once, above).
  if (Array.isArray(s.required)) {
    s.required.forEach((name, i) => {
      if (typeof name === "string" && RESERVED_ARGUMENT_KEYS.includes(name) && !Object.hasOwn(props, name)) reserved(name, [...at, "required", i]);
    });
  }
  for (const k of ONE) if (isRecord(s[k])) walkReserved(s[k], [...at, k], out, depth + 1);
  for (const k of MANY) {
    const v = s[k];
    if (Array.isArray(v)) v.forEach((x, i) => walkReserved(x, [...at, k, i], out, depth + 1));
  }
  for (const k of MAP) {
    const v = s[k];
    if (isRecord(v)) for (const [name, x] of Object.entries(v)) walkReserved(x, [...at, k, name], out, depth + 1);
  }
}

function metaErrors(errors: ErrorObject[], at: Segment[]): Finding[] {
  // The meta-schema reports one failure several times (anyOf branches); keep the first per location.
  const seen = new Set<string>();
  const out: Finding[] = [];
  for (const e of errors) {
    const rel = e.instancePath.split("/").slice(1).map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
    const key = rel.join("/");
    if (seen.has(key)) continue;
    seen.add(key);
    const segs = rel.map((s) => (/^\d+$/.test(s) ? Number(s) : s));
    out.push({ code: "SCHEMA_INVALID", at: [...at, ...segs], message: `not a valid JSON Schema: ${rel.length ? rel[rel.length - 1] + " " : ""}${e.message ?? "is invalid"}` });
  }
  return out;
}

function walkPatterns(s: unknown, at: Segment[], out: Finding[], depth: number): void {
  if (!isRecord(s) || depth > 64) return;
  if (typeof s.pattern === "string") tryRegex(s.pattern, [...at, "pattern"], out);
  if (isRecord(s.patternProperties)) for (const p of Object.keys(s.patternProperties)) tryRegex(p, [...at, "patternProperties", p], out);
  for (const k of ONE) if (isRecord(s[k])) walkPatterns(s[k], [...at, k], out, depth + 1);
  for (const k of MANY) {
    const v = s[k];
    if (Array.isArray(v)) v.forEach((x, i) => walkPatterns(x, [...at, k, i], out, depth + 1));
  }
  for (const k of MAP) {
    const v = s[k];
    if (isRecord(v)) for (const [name, x] of Object.entries(v)) walkPatterns(x, [...at, k, name], out, depth + 1);
  }
}

function tryRegex(p: string, at: Segment[], out: Finding[]): void {
  try {
    new RegExp(p, "u");
  } catch (e) {
    out.push({ code: "SCHEMA_INVALID", at, message: `invalid regular expression: ${(e as Error).message}` });
  }
}

function hasReference(s: unknown): boolean {
  if (Array.isArray(s)) return s.some(hasReference);
  if (!isRecord(s)) return false;
  for (const [k, v] of Object.entries(s)) {
    if (k === "$ref" || k === "$dynamicRef" || k === "$recursiveRef") return true;
    if (typeof v === "object" && v !== null && hasReference(v)) return true;
  }
  return false;
}
