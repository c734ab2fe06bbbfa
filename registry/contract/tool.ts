// The registry's tool file format (YAML). Strict: an unknown key is an error.
// These schemas are the single source of the format; `npm run registry:schema` publishes them as JSON Schema.
import * as z from "zod";
import { BUILTIN_HANDLERS } from "./callable.js";
import { PROMPT_ROLE } from "./model-roles.js";

export const FORMAT_VERSION = 1;

const jsonSchema = z.record(z.string(), z.unknown()).describe("A JSON Schema (draft 2020-12 or draft-07) object");

/** Governance declarations, checked at build time (see build/validate). */
export const Governance = {
  read_only: z.boolean().optional().describe("The tool changes nothing"),
  destructive: z.boolean().optional().describe("The tool deletes or overwrites data"),
  idempotent: z.boolean().optional().describe("Repeating the call has no further effect"),
  consequential: z.boolean().optional().describe("The tool affects someone; requires `affects`"),
  affects: z.string().optional().describe("Input property (required by input_schema) that identifies who is affected"),
  impact: z.number().optional().describe("Estimated impact in [0, 1]"),
  audit_args: z
    .boolean()
    .optional()
    .describe(
      "Write the argument values into each call's audit record (default: only their SHA-256 digest); only for arguments that carry no secrets or personal data",
    ),
};
export const IMPACT_BOUNDS = { min: 0, max: 1 } as const;

/** A retired tool: find and surfaces leave it out, a call is refused with 410 naming the replacement. */
export const Deprecation = z.strictObject({
  replaced_by: z.string().optional().describe("Full name of the tool to call instead"),
  reason: z.string().describe("Why it was retired, in one sentence"),
  since: z.string().describe("When (a date or a version)"),
});
export type Deprecation = z.infer<typeof Deprecation>;

/** Default kill-after budget when a tool gives no `timeout_secs`. */
export const DEFAULT_TIMEOUT_SECS = 60;

/**
 * Template grammar shared by the build (which rejects anything else) and the backends (which render):
 * `{{input.x}}` or `{{input.x.y}}`, whitespace inside the braces allowed. Use with `matchAll`.
 */
export const TEMPLATE_TOKEN_RE = /\{\{([^{}]*)\}\}/g;
/** The only reference a template may make; group 1 is the top-level input property. */
export const INPUT_REF_RE = /^\s*input\.([A-Za-z_$][A-Za-z0-9_$-]*)((?:\.[A-Za-z0-9_$-]+)*)\s*$/;
/** `${VAR}` environment references (secrets, endpoints), resolved by the gateway, never stored. */
export const ENV_REF_RE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * Bounds of the search hints a tool author may add (`examples`, `aliases`): enough to teach find a
 * capability's everyday wording, not a keyword dump that would outrank every other tool.
 */
export const SEARCH_HINT_LIMITS = { examples: 8, exampleLength: 120, aliases: 12, aliasLength: 40, detailsLength: 1000 } as const;

const common = {
  name: z.string().describe("The verb; the tool's full name is `family.verb`"),
  description: z.string().describe("One sentence: what the tool does (the search indexes it)"),
  input_schema: jsonSchema.optional().describe("JSON Schema of the arguments; defaults to an empty object schema"),
  output_schema: jsonSchema.optional().describe("JSON Schema the result is checked against on the way out"),
  timeout_secs: z.number().positive().max(900).optional().describe("Kill-after budget in seconds; default 60"),
  tags: z.array(z.string()).optional().describe("Extra search words (synonyms, verbs)"),
  examples: z
    .array(z.string())
    .optional()
    .describe(
      `Requests a user would make that this tool serves, in the user's words ("what is 255 in hex"); find indexes them as a field of their own. At most ${SEARCH_HINT_LIMITS.examples}, each at most ${SEARCH_HINT_LIMITS.exampleLength} characters`,
    ),
  aliases: z
    .array(z.string())
    .optional()
    .describe(
      `Other names for the capability ("hex", "RAM", "km/h"); find indexes them as a field of their own. At most ${SEARCH_HINT_LIMITS.aliases}, each at most ${SEARCH_HINT_LIMITS.aliasLength} characters`,
    ),
  details: z
    .string()
    .optional()
    .describe(
      `Longer text about the tool than its one sentence (the OpenAPI importer writes an operation's long description here, at most 60 words): find indexes it as a field of its own, at a low weight, and agents are not shown it. At most ${SEARCH_HINT_LIMITS.detailsLength} characters`,
    ),
  ...Governance,
  deprecated: Deprecation.optional().describe("Retire the tool: find leaves it out unless asked by its name, calls are refused with 410 TOOL_DEPRECATED"),
  result_budget_tokens: z
    .number()
    .int()
    .min(256)
    .max(200_000)
    .optional()
    .describe("o200k tokens an answer may take before it is cut into parts fetched by continuation; default the gateway's (8,000)"),
};

export const HttpTool = z.strictObject({
  ...common,
  kind: z.literal("http"),
  method: z.enum(["GET", "POST", "PUT", "PATCH", "DELETE"]).default("GET"),
  url: z.string().describe("URL template: `{{input.x}}` and `${ENV}` references"),
  headers: z.record(z.string(), z.string()).optional().describe("Header templates; secrets only as `${ENV}`"),
  query: z.record(z.string(), z.string()).optional().describe("Query parameter templates"),
  body: z.unknown().optional().describe("JSON body template; string leaves are templated"),
  defaults: z
    .record(z.string(), z.unknown())
    .optional()
    .describe(
      "Values the templates use for inputs the caller leaves out, by input property. An input schema's `default` only describes what the upstream assumes and is never sent",
    ),
  output: z.enum(["json", "text"]).default("json"),
});

export const McpTool = z.strictObject({
  ...common,
  kind: z.literal("mcp"),
  upstream_tool: z.string().optional().describe("Name of the tool on the upstream server; defaults to `name`"),
  url: z.string().describe("Streamable HTTP endpoint of the upstream server; `${ENV}` references allowed"),
  headers: z.record(z.string(), z.string()).optional().describe("Headers sent upstream; secrets only as `${ENV}`"),
});

export const ExecTool = z.strictObject({
  ...common,
  kind: z.literal("exec"),
  command: z.string().describe("The executable (no shell)"),
  args: z.array(z.string()).default([]).describe("Argument templates: `{{input.x}}` only"),
  env: z.record(z.string(), z.string()).optional().describe("Environment added to the family's `env`; values may use declared `${VAR}`s"),
  cwd: z.string().optional(),
  paths: z
    .array(z.string())
    .optional()
    .describe("Input properties that are file system paths: resolved with realpath and refused unless inside the operator's roots (TOOLBELT_FILE_ROOTS)"),
  output: z.enum(["text", "json"]).default("text"),
  not_found_exit_codes: z
    .array(z.number().int().min(1).max(255))
    .optional()
    .describe("Exit statuses by which the command says it found nothing (grep: 1): the call answers 404 UPSTREAM_NOT_FOUND instead of 502"),
});

export { BUILTIN_HANDLERS } from "./callable.js";

export const BuiltinTool = z.strictObject({
  ...common,
  kind: z.literal("builtin"),
  handler: z.string().describe(`Name of the gateway-implemented handler: ${BUILTIN_HANDLERS.join(", ")}`),
});

export const PromptTool = z.strictObject({
  ...common,
  kind: z.literal("prompt"),
  prompt: z.string().describe("The instructions sent to the model: `{{input.x}}` references only"),
  model: z
    .string()
    .regex(/^[A-Za-z][A-Za-z0-9_-]{0,63}$/, "a model role is letters, digits, _ and - (starting with a letter)")
    .default(PROMPT_ROLE)
    .describe("The model role that answers (the gateway's TOOLBELT_MODELS maps roles to models); default `prompt`"),
});

export const ToolDef = z.discriminatedUnion("kind", [HttpTool, McpTool, ExecTool, BuiltinTool, PromptTool]);
export type ToolDef = z.infer<typeof ToolDef>;
export const TOOL_KINDS = ["http", "mcp", "exec", "builtin", "prompt"] as const;
export type ToolKind = (typeof TOOL_KINDS)[number];

/** A tool file: `version` plus a list of tools of one family. */
export const ToolFile = z.strictObject({
  version: z.number().int().positive().default(FORMAT_VERSION),
  tools: z.array(ToolDef),
});
export type ToolFile = z.infer<typeof ToolFile>;
