// Values a tool file states beside a schema (`examples` in its input and output schemas, the http tool's
// `defaults`) checked against that schema: an example the gateway would refuse teaches agents to fail.
import { Ajv, type ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { schemaDialect } from "../../registry/contract/json-schema-dialect.js";
import type { JsonSchema } from "../../registry/contract/schema-types.js";
import { isRecord, type Finding, type Segment } from "./finding.js";

const options = { allErrors: false, strict: false, addUsedSchema: false, validateSchema: false } as const;
let ajv7: Ajv | undefined;
let ajv2020: Ajv2020 | undefined;
const instance = (root: Record<string, unknown>) => {
  if (schemaDialect(root as JsonSchema) === "2020-12") return (ajv2020 ??= withFormats(new Ajv2020(options)));
  return (ajv7 ??= withFormats(new Ajv(options)));
};
const withFormats = <T extends Ajv | Ajv2020>(a: T): T => {
  addFormats.default(a);
  return a;
};

/** Keywords whose value is one schema, a list of schemas, or a map of names to schemas. */
const ONE = ["items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames", "unevaluatedItems", "unevaluatedProperties"];
const MANY = ["allOf", "anyOf", "oneOf", "prefixItems"];
const MAP = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"];

/** A subschema compiled on its own, with the root's `$defs` so local `$ref`s resolve; undefined if it does not compile. */
function compile(root: Record<string, unknown>, sub: Record<string, unknown>): ValidateFunction | undefined {
  const defs = Object.fromEntries(["$defs", "definitions"].filter((k) => isRecord(root[k])).map((k) => [k, root[k]]));
  const { $schema: _dialect, $id: _id, ...rest } = sub;
  try {
    return instance(root).compile({ ...defs, ...rest });
  } catch {
    return undefined;
  }
}

const show = (v: unknown) => {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
};

/**
 * Every `examples` entry of a schema (at any depth) that its own subschema refuses. `severity` is
 * `error` for hand-written files; the importer reports (and drops) such examples as warnings.
 */
export function checkExamples(schema: unknown, at: Segment[], severity: "error" | "warning" = "error"): Finding[] {
  if (!isRecord(schema)) return [];
  const out: Finding[] = [];
  const walk = (s: unknown, path: Segment[], depth: number) => {
    if (!isRecord(s) || depth > 32) return;
    if (Array.isArray(s.examples) && s.examples.length > 0) {
      const fn = compile(schema, s);
      s.examples.forEach((example, i) => {
        if (fn === undefined || fn(example)) return;
        const why = fn.errors?.[0];
        out.push({
          code: "INVALID_VALUE",
          severity,
          at: [...path, "examples", i],
          message: `example ${show(example)} does not match its own schema (${why?.instancePath || "the value"} ${why?.message ?? "is refused"}): the gateway would refuse it, so agents must not be shown it`,
        });
      });
    }
    for (const k of ONE) if (k in s) walk(s[k], [...path, k], depth + 1);
    for (const k of MANY) if (Array.isArray(s[k])) (s[k] as unknown[]).forEach((x, i) => walk(x, [...path, k, i], depth + 1));
    for (const k of MAP) if (isRecord(s[k])) for (const [name, x] of Object.entries(s[k])) walk(x, [...path, k, name], depth + 1);
  };
  walk(schema, at, 0);
  return out;
}

/** The `defaults` of an http tool: each names an input property and fits that property's schema. */
export function checkDefaults(defaults: Record<string, unknown> | undefined, input: unknown): Finding[] {
  const props = isRecord(input) && isRecord(input.properties) ? input.properties : {};
  const out: Finding[] = [];
  for (const [name, value] of Object.entries(defaults ?? {})) {
    const prop = props[name];
    if (!Object.hasOwn(props, name) || !isRecord(prop)) {
      out.push({
        code: "INVALID_VALUE",
        at: ["defaults", name],
        message: `\`${name}\` is not a property of input_schema: \`defaults\` gives values for inputs the caller may leave out`,
      });
      continue;
    }
    const fn = compile(input as Record<string, unknown>, prop);
    if (fn !== undefined && !fn(value)) {
      out.push({
        code: "INVALID_VALUE",
        at: ["defaults", name],
        message: `${show(value)} does not match the schema of input \`${name}\` (${fn.errors?.[0]?.message ?? "refused"})`,
      });
    }
  }
  return out;
}

/**
 * The importer's side: a copy of `schema` without the examples its own subschemas refuse, and a
 * warning for each one left out (a document's example of a uuid in 7 hex digits must not reach agents).
 */
export function withoutInvalidExamples<T>(schema: T, at: Segment[] = []): { schema: T; dropped: Finding[] } {
  const dropped = checkExamples(schema, at, "warning");
  if (dropped.length === 0) return { schema, dropped };
  const copy = structuredClone(schema);
  // Last index first, so earlier indexes of the same list stay valid.
  for (const f of [...dropped].reverse()) {
    let node: unknown = copy;
    for (const seg of f.at.slice(at.length, -1)) node = isRecord(node) || Array.isArray(node) ? (node as Record<string, unknown>)[seg as string] : undefined;
    if (Array.isArray(node)) node.splice(Number(f.at[f.at.length - 1]), 1);
  }
  // An emptied list says nothing: remove it.
  const prune = (s: unknown): void => {
    if (Array.isArray(s)) s.forEach(prune);
    else if (isRecord(s)) {
      if (Array.isArray(s.examples) && s.examples.length === 0) delete s.examples;
      Object.values(s).forEach(prune);
    }
  };
  prune(copy);
  return { schema: copy, dropped };
}
