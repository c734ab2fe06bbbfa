// Input and output schemas must compile as JSON Schema. `$schema` picks the dialect (draft-07 or 2020-12,
// the default, as in MCP); anything else is refused rather than guessed. Hand-written tool files are
// checked strictly (unknown keywords, `required` naming no property, null keyword values are errors);
// MCP snapshots and JSONL catalogs carry other people's schemas, where unknown keywords are warnings.
import { Ajv, type ErrorObject } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { schemaDialect } from "../../registry/contract/json-schema-dialect.js";
import { RESERVED_ARGUMENT_KEYS } from "../../registry/contract/names.js";
import { isRecord, type Finding, type Segment } from "./finding.js";
import { closest } from "./issues.js";
import { checkSchemaLimits, DEFAULT_SCHEMA_LIMITS, type SchemaLimits } from "./schema-limits.js";

// strict: false because real MCP schemas carry vendor keywords; `optimize: false` halves compile time.
const options = { strict: false, allErrors: true, addUsedSchema: false, logger: false, code: { optimize: false, source: false } } as const;
let ajv7: Ajv | undefined;
let ajv2020: Ajv2020 | undefined;
const draft7 = () => (ajv7 ??= new Ajv(options));
const draft2020 = () => (ajv2020 ??= new Ajv2020(options));
// Strict instances compile hand-written schemas as ajv strict mode does (formats known, `x-` keywords allowed).
// Only the schema and number rules: `required` is checked by the walk below with a hint, types may be implied.
const strictOptions = { ...options, strict: false, strictSchema: true, strictNumbers: true } as const;
let strict7: Ajv | undefined;
let strict2020: Ajv2020 | undefined;
const withFormats = <T extends Ajv | Ajv2020>(a: T): T => {
  addFormats.default(a);
  return a;
};
const strictDraft7 = () => (strict7 ??= withFormats(new Ajv(strictOptions)));
const strictDraft2020 = () => (strict2020 ??= withFormats(new Ajv2020(strictOptions)));

/** Formats the call gateway checks (ajv-formats), the same in both dialects. */
let formats: Set<string> | undefined;
const FORMATS = () => (formats ??= new Set(Object.keys(strictDraft2020().formats)));

/** `strict` for schemas people write (tool files), `lenient` for imported ones (snapshots, JSONL catalogs). */
export type SchemaMode = "strict" | "lenient";

const TYPES = ["array", "boolean", "integer", "null", "number", "object", "string"];
/** Keywords that may legitimately hold `null` (a value, not a schema). */
const NULL_OK = new Set(["const", "default"]);

/** Keywords whose value is a schema, an array of schemas, or a map of schemas: where the walk descends. */
const ONE = [
  "contentSchema",
  "not",
  "if",
  "then",
  "else",
  "additionalProperties",
  "additionalItems",
  "contains",
  "propertyNames",
  "unevaluatedItems",
  "unevaluatedProperties",
  "items",
];
const MANY = ["allOf", "anyOf", "oneOf", "prefixItems", "items"];
const MAP = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"];

/**
 * Problems of one schema, `at` being its location in the file. The meta-schema check plus the walk for
 * regular expressions cover what compiling finds under strict: false; schemas with references are fully
 * compiled because only compiling resolves them. Compiling every schema costs ~0.2 ms each, too slow for
 * a check that runs on every push over thousands of tools.
 */
export function checkJsonSchema(schema: unknown, at: Segment[], mode: SchemaMode = "lenient", limits: SchemaLimits = DEFAULT_SCHEMA_LIMITS): Finding[] {
  if (typeof schema === "boolean") return [];
  if (!isRecord(schema)) return [{ code: "SCHEMA_INVALID", at, message: "a JSON Schema must be an object" }];
  // Before any walk below: they recurse, and a schema over the limits is refused whatever else it says.
  const tooLarge = checkSchemaLimits(schema, at, limits);
  if (tooLarge.length > 0) return tooLarge;
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
  const keywords = new Set(Object.keys(ajv.RULES.keywords));
  const vendor = new Set<string>();
  const words: Finding[] = [];
  walkKeywords(schema, at, { keywords, mode, vendor, out: words }, 0);
  const wordErrors = words.filter((f) => (f.severity ?? "error") === "error");
  let valid: boolean;
  try {
    valid = ajv.validateSchema(schema) as boolean;
  } catch (e) {
    return [...words, { code: "SCHEMA_INVALID", at, message: `does not compile: ${(e as Error).message}` }];
  }
  // A keyword problem already said (a misspelt type, a null value) is not repeated in the meta-schema's words.
  if (!valid) return [...words, ...metaErrors(ajv.errors ?? [], at).filter((m) => !wordErrors.some((w) => within(m.at, w.at)))];
  const out: Finding[] = [...words];
  walkPatterns(schema, at, out, 0);
  if (out.some((f) => (f.severity ?? "error") === "error")) return out;
  if (mode === "strict" || hasReference(schema)) {
    const compiler = mode === "strict" ? (dialect === "2020-12" ? strictDraft2020() : strictDraft7()) : ajv;
    try {
      for (const k of vendor) if (!compiler.getKeyword(k)) compiler.addKeyword(k);
      compiler.compile(schema);
    } catch (e) {
      out.push({ code: "SCHEMA_INVALID", at, message: `does not compile: ${(e as Error).message}` });
    }
  }
  return out;
}

/** `inner` is `outer` or below it. */
const within = (inner: Segment[], outer: Segment[]) => outer.length <= inner.length && outer.every((s, i) => inner[i] === s);

type KeywordWalk = { keywords: ReadonlySet<string>; mode: SchemaMode; vendor: Set<string>; out: Finding[] };

/**
 * Every schema object's keys: unknown keywords (with the nearest real one), null values (the YAML
 * flow-map comma trap: `{description: City name, such as Paris.}` makes a key `such as Paris.`), type
 * names outside the seven JSON types, and in strict mode `required` names that are not properties.
 */
function walkKeywords(s: unknown, at: Segment[], w: KeywordWalk, depth: number): void {
  if (!isRecord(s) || depth > 64) return;
  const severity = w.mode === "strict" ? "error" : "warning";
  const keys = Object.keys(s);
  keys.forEach((k, i) => {
    if (k.startsWith("x-")) {
      w.vendor.add(k);
      return;
    }
    const v = s[k];
    const known = w.keywords.has(k);
    if (v === null && !NULL_OK.has(k)) {
      const before = keys[i - 1];
      const split = !known && before !== undefined && typeof s[before] === "string";
      w.out.push({
        code: "SCHEMA_INVALID",
        ...(known ? {} : { severity }),
        at: [...at, k],
        message: split
          ? `\`${k}\` is a key with no value: in a YAML flow map \`{…}\` a comma ends the value of \`${before}\` and starts a new key; quote the value (\`${before}: "${String(s[before])}, ${k}"\`)`
          : `\`${k}\` has no value (null)${known ? "" : ", and is not a JSON Schema keyword"}: give it one, and quote the value if it contains \`, \` or \`: \``,
      });
      return;
    }
    if (!known) {
      const hint = closest(k, w.keywords);
      w.out.push({
        code: "SCHEMA_INVALID",
        severity,
        at: [...at, k],
        message: `unknown keyword \`${k}\`${hint ? ` (did you mean \`${hint}\`?)` : ""}: it would be ignored, so the schema would not enforce it (vendor keywords start with \`x-\`)`,
      });
    }
  });
  const types = typeof s.type === "string" ? [[s.type, ["type"]] as const] : Array.isArray(s.type) ? s.type.map((t, i) => [t, ["type", i]] as const) : [];
  for (const [t, rel] of types) {
    if (typeof t !== "string" || TYPES.includes(t)) continue;
    const hint = closest(t, TYPES);
    w.out.push({
      code: "SCHEMA_INVALID",
      at: [...at, ...rel],
      message: `type \`${t}\` is not a JSON Schema type: use one of ${TYPES.join(", ")}${hint ? ` (did you mean \`${hint}\`?)` : ""}`,
    });
  }
  if (w.mode === "strict" && typeof s.format === "string" && !FORMATS().has(s.format)) {
    const hint = closest(s.format, FORMATS());
    w.out.push({
      code: "SCHEMA_INVALID",
      at: [...at, "format"],
      message: `unknown format \`${s.format}\`${hint ? ` (did you mean \`${hint}\`?)` : ""}: the gateway would not check it`,
    });
  }
  if (w.mode === "strict" && Array.isArray(s.required) && isRecord(s.properties)) {
    const props = s.properties;
    s.required.forEach((name, i) => {
      if (typeof name !== "string" || Object.hasOwn(props, name)) return;
      const hint = name.length > 2 ? closest(name, Object.keys(props)) : undefined;
      w.out.push({
        code: "SCHEMA_INVALID",
        at: [...at, "required", i],
        message: `\`required\` names \`${name}\`, which is not in \`properties\`${hint ? ` (did you mean \`${hint}\`?)` : ""}: a required argument needs a declared property`,
      });
    });
  }
  for (const k of ONE) if (isRecord(s[k])) walkKeywords(s[k], [...at, k], w, depth + 1);
  for (const k of MANY) {
    const v = s[k];
    if (Array.isArray(v)) v.forEach((x, i) => walkKeywords(x, [...at, k, i], w, depth + 1));
  }
  for (const k of MAP) {
    const v = s[k];
    if (isRecord(v)) for (const [name, x] of Object.entries(v)) if (isRecord(x)) walkKeywords(x, [...at, k, name], w, depth + 1);
  }
}

/** Tool arguments are a JSON object: the input schema must say so, and name no reserved argument key. */
export function checkInputSchema(schema: unknown, at: Segment[], mode: SchemaMode = "lenient", limits: SchemaLimits = DEFAULT_SCHEMA_LIMITS): Finding[] {
  const found = checkJsonSchema(schema, at, mode, limits);
  if (found.some((f) => (f.severity ?? "error") === "error")) return found;
  if (!isRecord(schema) || schema.type !== "object") {
    return [...found, { code: "SCHEMA_INVALID", at: [...at, "type"], message: 'an input_schema must have `type: "object"` (tool arguments are an object)' }];
  }
  const out: Finding[] = [...found];
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
    const rel = e.instancePath
      .split("/")
      .slice(1)
      .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
    const key = rel.join("/");
    if (seen.has(key)) continue;
    seen.add(key);
    const segs = rel.map((s) => (/^\d+$/.test(s) ? Number(s) : s));
    out.push({
      code: "SCHEMA_INVALID",
      at: [...at, ...segs],
      message: `not a valid JSON Schema: ${rel.length ? rel[rel.length - 1] + " " : ""}${e.message ?? "is invalid"}`,
    });
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
