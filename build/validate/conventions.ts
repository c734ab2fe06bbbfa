// Conventions of a well-described tool: warnings, never errors, because a tool that breaks one still
// works. They hold every registry to what the example registry is held to: parameters an agent can
// fill in without guessing, declarations an agent and a policy can read, and exec arguments that do
// not silently become empty strings. Governance rules that protect callers (a read-only tool that
// deletes, a consequential one without `affects`) are errors in governance.ts, not here.
import type { RegistryCode } from "../../registry/contract/diagnostics.js";
import type { ToolDef } from "../../registry/contract/tool.js";
import { isRecord, type Finding } from "./finding.js";
import { stringLeaves } from "./templates.js";

/** The templates of a tool that sends only what they reference (http, exec, prompt); undefined for kinds that pass the whole input on. */
function templateTexts(t: ToolDef): string[] | undefined {
  switch (t.kind) {
    case "http":
      return [t.url, ...Object.values(t.headers ?? {}), ...Object.values(t.query ?? {}), ...stringLeaves(t.body, []).map((f) => f.text)];
    case "exec":
      return [...t.args, ...(t.cwd !== undefined ? [t.cwd] : []), ...Object.values(t.env ?? {})];
    case "prompt":
      return [t.prompt];
    default:
      return undefined;
  }
}

export const CONVENTION_CODES: readonly RegistryCode[] = [
  "PARAM_UNDOCUMENTED",
  "REQUIRED_WITHOUT_EXAMPLE",
  "GOVERNANCE_UNDECLARED",
  "OPTIONAL_INPUT_EMBEDDED",
  "INPUT_NEVER_SENT",
];

type Prop = { description?: unknown; examples?: unknown; enum?: unknown; const?: unknown; default?: unknown };

const warn = (code: RegistryCode, at: Finding["at"], message: string): Finding => ({ code, at, message, severity: "warning" });

export function checkConventions(t: ToolDef): Finding[] {
  const out: Finding[] = [];
  const schema = isRecord(t.input_schema) ? t.input_schema : {};
  const props = (isRecord(schema.properties) ? schema.properties : {}) as Record<string, Prop>;
  const required = Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === "string") : [];

  for (const [name, p] of Object.entries(props)) {
    if (!isRecord(p)) continue;
    if (typeof p.description !== "string" || p.description.trim() === "") {
      out.push(
        warn("PARAM_UNDOCUMENTED", ["input_schema", "properties", name], `parameter \`${name}\` has no description: say what it is and its unit or format`),
      );
    }
  }
  for (const name of required) {
    const p = Object.hasOwn(props, name) ? props[name] : undefined;
    // An enum or const already shows the values; anything else, an agent fills in from an example.
    if (!isRecord(p) || p.enum !== undefined || p.const !== undefined) continue;
    if (!Array.isArray(p.examples) || p.examples.length === 0) {
      out.push(
        warn(
          "REQUIRED_WITHOUT_EXAMPLE",
          ["input_schema", "properties", name],
          `required parameter \`${name}\` has no \`examples\`: add one value an agent could send (\`examples: [...]\`)`,
        ),
      );
    }
  }

  if (t.kind === "http" && t.read_only === undefined && t.method === "GET") {
    out.push(
      warn(
        "GOVERNANCE_UNDECLARED",
        ["read_only"],
        `a ${t.method} tool usually changes nothing: declare \`read_only: true\` (or \`read_only: false\` if this one does)`,
      ),
    );
  }
  if (t.kind === "http" && t.method === "DELETE" && t.destructive === undefined) {
    out.push(
      warn(
        "GOVERNANCE_UNDECLARED",
        ["destructive"],
        "a DELETE tool usually deletes: declare `destructive: true` with `consequential: true` and `affects`, or `destructive: false`",
      ),
    );
  }
  if (t.kind === "exec" && t.read_only === undefined && t.destructive === undefined) {
    out.push(
      warn(
        "GOVERNANCE_UNDECLARED",
        ["read_only"],
        "an exec tool runs a program: declare `read_only: true` when it only reads, or `destructive`/`consequential` when it writes",
      ),
    );
  }

  if (t.kind === "exec") {
    t.args.forEach((arg, i) => {
      const sole = /^\{\{\s*input\.[A-Za-z0-9_]+\s*\}\}$/.test(arg);
      if (sole) return; // an absent sole template drops the argument
      for (const m of arg.matchAll(/\{\{\s*input\.([A-Za-z0-9_]+)\s*\}\}/g)) {
        const name = m[1]!;
        const p = Object.hasOwn(props, name) ? props[name] : undefined;
        if (required.includes(name) || !isRecord(p) || p.default !== undefined) continue;
        out.push(
          warn(
            "OPTIONAL_INPUT_EMBEDDED",
            ["args", i],
            `optional \`${name}\` is embedded in \`${arg}\`: when a caller leaves it out the argument renders with an empty value; give it a \`default\`, make it required, or make it the whole argument`,
          ),
        );
      }
    });
  }
  // An http, exec or prompt tool sends only what its templates reference: a property none does is accepted and dropped.
  const texts = templateTexts(t);
  if (texts) {
    const sent = new Set(texts.flatMap((text) => [...text.matchAll(/\{\{\s*input\.([A-Za-z_$][A-Za-z0-9_$-]*)/g)].map((m) => m[1]!)));
    for (const name of Object.keys(props).filter((n) => !sent.has(n))) {
      out.push(
        warn(
          "INPUT_NEVER_SENT",
          ["input_schema", "properties", name],
          `no template of this ${t.kind} tool references \`${name}\`: callers send it and the tool never receives it; use it (\`{{input.${name}}}\`) or remove it`,
        ),
      );
    }
  }
  return out;
}
