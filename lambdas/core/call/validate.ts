// JSON Schema checks for arguments (before dispatch) and results (after), one compiled validator
// per schema object, cached for the life of the process (the catalog's schemas never change).
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { schemaDialect } from "../../../registry/contract/json-schema-dialect.js";
import { RESERVED_ARGUMENT_KEYS } from "../../../registry/contract/names.js";
import type { JsonSchema } from "../../../registry/contract/schema-types.js";
import { clipEchoed, MAX_LISTED_PROBLEMS, ToolbeltError } from "../errors.js";

export type SchemaProblem = {
  /** Where in the value, as a JSON path (`$` is the whole value). */
  path: string;
  message: string;
  keyword: string;
};

export type SchemaCheck = { valid: true; data: unknown } | { valid: false; problems: SchemaProblem[] };

type Draft = "07" | "2020";
type Flavour = "input" | "output";

const options = (flavour: Flavour) => ({
  allErrors: true,
  // Errors carry the offending value, so messages can say what was sent.
  verbose: true,
  strict: false,
  // Tools may share `$id`s; never register them globally.
  addUsedSchema: false,
  // Schema defaults fill arguments for the local backends (exec, builtin, prompt: the tool's own
  // defaults); backends that send upstream read `sentArguments` instead. Results are never changed.
  useDefaults: flavour === "input",
  // Own properties only: an optional parameter named `constructor` or `toString` that was not sent is
  // absent, not Object's function (without this every call omitting it failed "must be string").
  ownProperties: true,
});

// Same dialect rule as the build (no `$schema` = 2020-12); schemas the build never saw (imported
// catalogs written for draft-04/06) are read as draft-07, the nearest dialect ajv speaks.
function draftOf(schema: JsonSchema): Draft {
  return schemaDialect(schema) === "2020-12" ? "2020" : "07";
}

/** For each validated input (with its defaults filled), the arguments exactly as the caller sent them. */
const sentByCaller = new WeakMap<object, Record<string, unknown>>();

/**
 * What the caller sent, without the schema defaults the check filled in: what an http or MCP upstream
 * receives, since an OpenAPI or MCP `default` describes what the server assumes, and sending it would
 * overwrite fields a partial update left alone. Arguments not from a check come back unchanged.
 */
export function sentArguments(args: Record<string, unknown>): Record<string, unknown> {
  return sentByCaller.get(args) ?? args;
}

export type SchemaValidator = {
  check(schema: JsonSchema, value: unknown, flavour: Flavour): SchemaCheck;
};

export function createSchemaValidator(): SchemaValidator {
  const instances = new Map<string, Ajv | Ajv2020>();
  const cache = new Map<Flavour, WeakMap<JsonSchema, ValidateFunction>>([
    ["input", new WeakMap()],
    ["output", new WeakMap()],
  ]);
  const instance = (draft: Draft, flavour: Flavour) => {
    const key = `${draft}:${flavour}`;
    let ajv = instances.get(key);
    if (!ajv) {
      ajv = draft === "2020" ? new Ajv2020(options(flavour)) : new Ajv(options(flavour));
      addFormats.default(ajv);
      instances.set(key, ajv);
    }
    return ajv;
  };
  const compile = (schema: JsonSchema, flavour: Flavour): ValidateFunction => {
    const byFlavour = cache.get(flavour)!;
    let fn = byFlavour.get(schema);
    if (!fn) {
      const draft = draftOf(schema);
      // Drafts other than 07 and 2019/2020 (e.g. draft-04 in imported catalogs) are read as draft-07.
      const known = draft === "2020" || typeof schema.$schema !== "string" || /draft-07/.test(schema.$schema);
      const { $schema: _ignored, ...rest } = schema;
      try {
        fn = instance(draft, flavour).compile(known ? schema : rest);
      } catch (e) {
        // The build compiles every schema; reaching this means a hand-edited or foreign artifact.
        throw new ToolbeltError("UNAVAILABLE", `this tool's ${flavour} schema does not compile (${(e as Error).message}); tell the operator`, {
          schema_error: (e as Error).message,
        });
      }
      byFlavour.set(schema, fn);
    }
    return fn;
  };
  return {
    check(schema, value, flavour) {
      const fn = compile(schema, flavour);
      const data = flavour === "input" ? structuredClone(value) : value;
      if (fn(data)) {
        if (flavour === "input" && data !== null && typeof data === "object") sentByCaller.set(data, structuredClone(value) as Record<string, unknown>);
        return { valid: true, data };
      }
      return { valid: false, problems: describeErrors(fn.errors ?? []) };
    },
  };
}

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** One JSON path step: `[0]`, `.name` or `["first name"]`. */
const step = (p: string) => (/^\d+$/.test(p) ? `[${p}]` : IDENT.test(p) ? `.${p}` : `[${JSON.stringify(p)}]`);

/** `/items/0/first name` → `$.items[0]["first name"]` */
export function jsonPath(pointer: string, extra?: string): string {
  const parts =
    pointer === ""
      ? []
      : pointer
          .slice(1)
          .split("/")
          .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));
  if (extra !== undefined) parts.push(extra);
  return "$" + parts.map(step).join("");
}

// RESERVED_ARGUMENT_KEYS: JSON.parse makes `__proto__` an own key, and zod and JSON Schema validators
// would otherwise drop or ignore it silently; the build refuses input schemas that name them.
const RESERVED_MESSAGE = "is a reserved key name (__proto__, constructor and prototype are refused anywhere in arguments): rename or remove it";
/** Most reserved-key problems reported; the rest are counted. */
export const MAX_RESERVED_KEY_PROBLEMS = MAX_LISTED_PROBLEMS;

/** Every reserved key in a JSON value, with its path (at most MAX_RESERVED_KEY_PROBLEMS listed), and their count. */
export function reservedKeys(value: unknown): { problems: SchemaProblem[]; count: number } {
  const problems: SchemaProblem[] = [];
  let count = 0;
  // Iterative: arguments from entry points without a depth limit must not overflow the stack here.
  const stack: { value: unknown; path: string }[] = [{ value, path: "$" }];
  const seen = new Set<object>();
  while (stack.length) {
    const { value: v, path } = stack.pop()!;
    if (v === null || typeof v !== "object" || seen.has(v)) continue;
    seen.add(v);
    const keys = Object.keys(v);
    const paths = keys.map((key) => (Array.isArray(v) ? `${path}[${key}]` : path + step(key)));
    keys.forEach((key, i) => {
      if (Array.isArray(v) || !RESERVED_ARGUMENT_KEYS.includes(key)) return;
      count++;
      if (problems.length < MAX_RESERVED_KEY_PROBLEMS) problems.push({ path: clipEchoed(paths[i]!), message: RESERVED_MESSAGE, keyword: "reserved_key" });
    });
    // Children in reverse, so the stack visits them in order (problems come out in document order).
    for (let i = keys.length - 1; i >= 0; i--) stack.push({ value: (v as Record<string, unknown>)[keys[i]!], path: paths[i]! });
  }
  return { problems, count };
}

const show = (v: unknown) => {
  const s = JSON.stringify(v);
  return s === undefined ? String(v) : s.length > 60 ? `${s.slice(0, 57)}...` : s;
};
const typeOf = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);

/** Ajv errors in words an agent can act on, each with the JSON path of the offending value. */
export function describeErrors(errors: readonly ErrorObject[]): SchemaProblem[] {
  const out: SchemaProblem[] = [];
  const seen = new Set<string>();
  for (const e of errors) {
    const p = e.params as Record<string, unknown>;
    let path = jsonPath(e.instancePath);
    let message: string;
    switch (e.keyword) {
      case "required":
        path = jsonPath(e.instancePath, String(p.missingProperty));
        message = "is required but missing";
        break;
      case "additionalProperties":
        path = jsonPath(e.instancePath, String(p.additionalProperty));
        message = "is not an accepted property; remove it or check its spelling";
        break;
      case "type":
        message = `must be ${p.type === "integer" ? "an integer" : `of type ${String(p.type)}`}, got ${typeOf(e.data)} ${show(e.data)}`;
        break;
      case "enum":
        message = `must be one of ${(p.allowedValues as unknown[]).map(show).join(", ")}, got ${show(e.data)}`;
        break;
      case "const":
        message = `must be exactly ${show(p.allowedValue)}`;
        break;
      case "format":
        message = `must be a valid ${String(p.format)}, got ${show(e.data)}`;
        break;
      case "pattern":
        message = `must match the pattern ${String(p.pattern)}, got ${show(e.data)}`;
        break;
      case "minLength":
      case "maxLength":
      case "minItems":
      case "maxItems":
      case "minimum":
      case "maximum":
      case "exclusiveMinimum":
      case "exclusiveMaximum":
      case "minProperties":
      case "maxProperties":
        message = `${e.message ?? "is out of range"}, got ${show(e.data)}`;
        break;
      default:
        message = e.message ?? `fails the ${e.keyword} rule`;
    }
    // The path may carry a caller's key of any length.
    path = clipEchoed(path);
    const key = `${path} ${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ path, message, keyword: e.keyword });
  }
  return out;
}

export const summarize = (problems: readonly SchemaProblem[]) => problems.map((p) => `${p.path} ${p.message}`).join("; ");
