// Templates of tool definitions: `{{input.x}}` from the validated arguments, `${VAR}` from the
// variables the tool's family declares (variables.ts). Every `${VAR}` value used is remembered so it
// can be redacted.
import { ownAt } from "../../registry/contract/own-path.js";
import { ToolbeltError } from "../core/errors.js";

export type EnvMap = Readonly<Record<string, string | undefined>>;
// Redaction is the core's (core/redaction.ts); re-exported for the backends that render templates.
export { REDACTED, Secrets } from "../core/redaction.js";
import type { Secrets } from "../core/redaction.js";

const INPUT_RE = /\{\{\s*input((?:\.[A-Za-z0-9_$-]+)*)\s*\}\}/g;
const SOLE_INPUT_RE = /^\{\{\s*input((?:\.[A-Za-z0-9_$-]+)*)\s*\}\}$/;
const ENV_RE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** Own properties only: `{{input.constructor}}` of an input without one is absent, not Object's function. */
export function lookup(input: unknown, dotted: string): unknown {
  return ownAt(input, dotted.split(".").filter(Boolean));
}

export function stringify(v: unknown): string {
  if (v === undefined || v === null) return "";
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean" || typeof v === "bigint") return String(v);
  return JSON.stringify(v);
}

export type RenderContext = { input: Record<string, unknown>; env: EnvMap; secrets: Secrets; tool: string };

export function substituteEnv(template: string, ctx: RenderContext): string {
  return template.replace(ENV_RE, (_, name: string) => {
    // Own string values only: `${constructor}` or `${toString}` are unset variables, not Object's methods.
    const declared = Object.hasOwn(ctx.env, name);
    const value = declared ? ctx.env[name] : undefined;
    if (typeof value !== "string") {
      throw new ToolbeltError(
        "UNAVAILABLE",
        declared
          ? `${ctx.tool} needs the environment variable ${name}, which is not set on this gateway; tell the operator`
          : `${ctx.tool} reads the variable ${name}, which its family does not declare; tell the operator`,
        { tool: ctx.tool, variable: name },
      );
    }
    ctx.secrets.add(value);
    return value;
  });
}

/** Encodes (or refuses) one input value; `path` is the reference after `input` (`.id`), to name the argument. */
export type Encoder = (value: string, path: string) => string;

/** Input placeholders first (their values are never re-scanned for `${VAR}`), then env references. */
export function renderString(template: string, ctx: RenderContext, encode: Encoder = (s) => s): string {
  const parts = template.split(INPUT_RE);
  // split with one capture group: even indexes are literal text, odd ones are input paths.
  return parts.map((p, i) => (i % 2 === 0 ? substituteEnv(p, ctx) : encode(stringify(lookup(ctx.input, p)), p))).join("");
}

/** A string that is exactly one `{{input.x}}` yields the raw value (keeping its type; undefined if absent). */
export function soleInputPath(template: string): string | undefined {
  return SOLE_INPUT_RE.exec(template)?.[1];
}

export function renderValue(template: string, ctx: RenderContext): unknown {
  const sole = soleInputPath(template);
  return sole !== undefined ? lookup(ctx.input, sole) : renderString(template, ctx);
}

/** A JSON template: string leaves are rendered; object keys whose value renders to undefined are dropped. */
export function renderJson(template: unknown, ctx: RenderContext): unknown {
  if (typeof template === "string") return renderValue(template, ctx);
  if (Array.isArray(template)) return template.map((t) => renderJson(t, ctx)).filter((v) => v !== undefined);
  if (template && typeof template === "object") {
    // fromEntries defines keys: a `"__proto__"` key stays a key instead of replacing the prototype.
    return Object.fromEntries(
      Object.entries(template).flatMap(([k, v]) => {
        const r = renderJson(v, ctx);
        return r !== undefined ? [[k, r]] : [];
      }),
    );
  }
  return template;
}

/** Input placeholders only (exec arguments): `${...}` stays literal, there is no shell to expand it. */
export function renderInputOnly(template: string, input: Record<string, unknown>): string {
  return template.replace(INPUT_RE, (_, path: string) => stringify(lookup(input, path)));
}
