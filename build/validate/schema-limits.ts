// Size limits of one tool schema, checked before anything walks it: ajv, JSON.stringify and the YAML
// library all recurse, so a 3,000-level schema from a hostile server would overflow the stack, and an
// 11 MB one would be served to every agent that finds the tool.
import type { Finding, Segment } from "./finding.js";

export type SchemaLimits = {
  /** Serialized size (UTF-8 JSON) of one input or output schema. */
  maxBytes: number;
  /** Nesting of objects and arrays in one schema, the schema object itself being level 1. */
  maxDepth: number;
};

export const DEFAULT_SCHEMA_LIMITS: SchemaLimits = { maxBytes: 64 * 1024, maxDepth: 32 };
/** Where the CLI reads the limits (a flag of the same name wins): named in the messages so the fix is findable. */
export const SCHEMA_LIMIT_ENV = { maxBytes: "TOOLBELT_MAX_SCHEMA_BYTES", maxDepth: "TOOLBELT_MAX_SCHEMA_DEPTH" } as const;

/** True when `value` nests objects or arrays deeper than `max`; iterative, and stops at the first too-deep node. */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const [v, depth] = item;
    if (typeof v !== "object" || v === null) continue;
    if (depth > max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) if (typeof child === "object" && child !== null) stack.push([child, depth + 1]);
  }
  return false;
}

/** The limit a schema breaks, as one message; depth first, since serializing a too-deep value may itself overflow. */
export function schemaLimitProblem(schema: unknown, limits: SchemaLimits = DEFAULT_SCHEMA_LIMITS): string | undefined {
  if (nestedDeeperThan(schema, limits.maxDepth)) {
    return `the schema is nested deeper than ${limits.maxDepth} levels (${SCHEMA_LIMIT_ENV.maxDepth}): flatten it, or raise the limit if an agent really needs it`;
  }
  const bytes = Buffer.byteLength(JSON.stringify(schema) ?? "", "utf8");
  if (bytes > limits.maxBytes) {
    return `the schema is ${bytes} bytes as JSON, more than ${limits.maxBytes} (${SCHEMA_LIMIT_ENV.maxBytes}): every agent that finds the tool would receive it`;
  }
  return undefined;
}

export function checkSchemaLimits(schema: unknown, at: Segment[], limits: SchemaLimits = DEFAULT_SCHEMA_LIMITS): Finding[] {
  const problem = schemaLimitProblem(schema, limits);
  return problem ? [{ code: "SCHEMA_INVALID", at, message: problem }] : [];
}
