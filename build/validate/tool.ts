// All per-tool rules of a tool file entry (already parsed by the zod schema), collected, never first-fail.
import { MAX_TOOL_NAME, TOOL_NAME_RE, VERB_RE, fullName } from "../../registry/contract/names.js";
import { BUILTIN_HANDLERS, type ToolDef } from "../../registry/contract/tool.js";
import { checkDescription } from "./description.js";
import { checkUrlOrigin } from "./egress.js";
import { isRecord, type Finding } from "./finding.js";
import { checkConventions } from "./conventions.js";
import { checkGovernance } from "./governance.js";
import { closest } from "./issues.js";
import { checkInputSchema, checkJsonSchema } from "./json-schema.js";
import type { SchemaLimits } from "./schema-limits.js";
import { checkFreeText, checkNamedValues, checkUrl } from "./secrets.js";
import { checkSearchHints } from "./search-hints.js";
import { checkNoTemplate, checkTemplate, stringLeaves, type TemplateField } from "./templates.js";
import { checkDefaults, checkExamples } from "./values.js";
import { checkVariableNames, checkVariableRefs, type FamilyScope } from "./variables.js";

export const EMPTY_INPUT_SCHEMA = { type: "object", properties: {} } as const;

export function checkToolName(family: string, verb: string, at: Finding["at"] = ["name"]): Finding[] {
  const name = fullName(family, verb);
  if (name.length > MAX_TOOL_NAME) {
    return [{ code: "BAD_NAME", at, message: `full name \`${name.slice(0, 40)}…\` is ${name.length} characters; at most ${MAX_TOOL_NAME}` }];
  }
  if (!VERB_RE.test(verb) || !TOOL_NAME_RE.test(name)) {
    return [{ code: "BAD_NAME", at, message: `tool name \`${verb}\` must start with a letter and use only letters, digits, \`_\`, \`-\` and \`.\`` }];
  }
  return [];
}

export function checkToolDef(family: FamilyScope, t: ToolDef, limits?: SchemaLimits): Finding[] {
  const out: Finding[] = [...checkToolName(family.name, t.name), ...checkDescription(t.description), ...checkSearchHints(t)];
  const input = t.input_schema ?? EMPTY_INPUT_SCHEMA;
  if (t.input_schema !== undefined) out.push(...checkInputSchema(t.input_schema, ["input_schema"], "strict", limits));
  if (t.output_schema !== undefined) out.push(...checkJsonSchema(t.output_schema, ["output_schema"], "strict", limits));
  out.push(...checkExamples(t.input_schema, ["input_schema"]), ...checkExamples(t.output_schema, ["output_schema"]));

  const props = isRecord(input) && isRecord(input.properties) ? new Set(Object.keys(input.properties)) : new Set<string>();
  const templates: TemplateField[] = [];
  // Fields the backends render `${NAME}` in (exec args are not among them: no shell expands them).
  const variableFields: TemplateField[] = [];
  switch (t.kind) {
    case "http":
      templates.push({ at: ["url"], text: t.url });
      for (const [k, v] of Object.entries(t.headers ?? {})) templates.push({ at: ["headers", k], text: v });
      for (const [k, v] of Object.entries(t.query ?? {})) templates.push({ at: ["query", k], text: v });
      templates.push(...stringLeaves(t.body, ["body"]));
      out.push(
        ...checkUrlOrigin(t.url, ["url"]),
        ...checkUrl(t.url, ["url"]),
        ...checkNamedValues(t.headers, ["headers"], "header"),
        ...checkNamedValues(t.query, ["query"], "query parameter"),
      );
      for (const f of stringLeaves(t.body, ["body"])) out.push(...checkFreeText(f.text, f.at));
      out.push(...checkDefaults(t.defaults, input));
      variableFields.push(...templates);
      break;
    case "exec":
      out.push(...checkNoTemplate({ at: ["command"], text: t.command }, "the command"));
      t.args.forEach((a, i) => templates.push({ at: ["args", i], text: a }));
      if (t.cwd !== undefined) templates.push({ at: ["cwd"], text: t.cwd });
      for (const [k, v] of Object.entries(t.env ?? {})) templates.push({ at: ["env", k], text: v });
      out.push(...checkNamedValues(t.env, ["env"], "environment variable"));
      out.push(...checkVariableNames(Object.keys(t.env ?? {}), ["env"], "environment variable"));
      t.args.forEach((a, i) => out.push(...checkFreeText(a, ["args", i])));
      (t.paths ?? []).forEach((p, i) => {
        if (!props.has(p))
          out.push({
            code: "INVALID_VALUE",
            at: ["paths", i],
            message: `\`${p}\` is not a property of input_schema: \`paths\` lists the input properties that are file system paths`,
          });
      });
      variableFields.push(...templates.filter((f) => f.at[0] !== "args"));
      break;
    case "mcp":
      out.push(...checkNoTemplate({ at: ["url"], text: t.url }, "the upstream URL"), ...checkUrl(t.url, ["url"]));
      for (const [k, v] of Object.entries(t.headers ?? {})) out.push(...checkNoTemplate({ at: ["headers", k], text: v }, "an upstream header"));
      out.push(...checkNamedValues(t.headers, ["headers"], "header"));
      variableFields.push({ at: ["url"], text: t.url }, ...Object.entries(t.headers ?? {}).map(([k, v]) => ({ at: ["headers", k], text: v })));
      break;
    case "prompt":
      templates.push({ at: ["prompt"], text: t.prompt });
      variableFields.push(...templates);
      break;
    case "builtin":
      if (!(BUILTIN_HANDLERS as readonly string[]).includes(t.handler)) {
        const hint = closest(t.handler, BUILTIN_HANDLERS);
        out.push({
          code: "INVALID_VALUE",
          at: ["handler"],
          message: `\`${t.handler}\` is not a builtin handler of this gateway, so every call would fail: use one of ${BUILTIN_HANDLERS.map((h) => `\`${h}\``).join(", ")}${hint ? ` (did you mean \`${hint}\`?)` : ""}, or another kind (http, mcp, exec, prompt)`,
        });
      }
      break;
  }
  for (const f of templates) out.push(...checkTemplate(f, props));
  out.push(...checkVariableRefs(variableFields, family));
  out.push(...checkGovernance(t, input, t.kind === "http" ? t.method : undefined));
  out.push(...checkConventions(t));
  return out;
}
