// The enumerated family list (`registry/families.yaml`): nothing joins the registry unless listed here.
import * as z from "zod";
import { FORMAT_VERSION } from "./tool.js";

export const ToolsSource = z.strictObject({
  tools: z.string().describe("Folder of tool files (*.yaml), relative to the registry root"),
});
export const McpSource = z.strictObject({
  mcp: z.strictObject({
    snapshot: z.string().describe("Snapshot file written by `npm run registry:pull`"),
    url: z.string().describe("Streamable HTTP endpoint; `${ENV}` references allowed"),
    headers: z.record(z.string(), z.string()).optional().describe("Secrets only as `${ENV}`"),
    drift: z
      .enum(["refuse", "warn"])
      .optional()
      .describe("A tool whose live definition differs from the snapshot: `refuse` (default, 502 UPSTREAM_DRIFT) or `warn` (called, logged and audited)"),
  }),
});
export const JsonlSource = z.strictObject({
  jsonl: z.string().describe("JSONL catalog (one tool per line: name, description, input_schema)"),
});
/** Where a family's tools come from: exactly one of `tools`, `mcp`, `jsonl`. */
export const FamilySource = z.union([ToolsSource, McpSource, JsonlSource]);
export type FamilySource = z.infer<typeof FamilySource>;

/** A gateway setting a family's templates may read as `${NAME}` (SECURITY.md: nothing undeclared is visible). */
export const FamilyVariable = z.strictObject({
  secret: z.boolean().default(false).describe("A credential: redacted from every answer and log, resolved from the secrets mechanism on AWS"),
  description: z.string().optional().describe("What the value is, for the operator who sets it"),
});
export type FamilyVariable = z.infer<typeof FamilyVariable>;

/**
 * The caller's own upstream token (registry/contract/credentials.ts): `per_principal` sends it as
 * `Authorization: Bearer <token>`; the long form names the header and an optional scheme.
 */
export const FamilyCredentials = z.union([
  z.literal("per_principal"),
  z.strictObject({
    per_principal: z.strictObject({
      header: z.string().describe("The request header that carries the token, e.g. `Authorization` or `X-Api-Key`"),
      scheme: z.string().optional().describe("Written before the token with one space (`Bearer`); none: the token alone"),
    }),
  }),
]);
export type FamilyCredentials = z.infer<typeof FamilyCredentials>;

export const FamilyDef = z.strictObject({
  name: z.string(),
  description: z.string().describe("One sentence about the family"),
  required: z.boolean().default(true).describe("A required family that fails to load fails the build"),
  source: FamilySource,
  variables: z
    .record(z.string(), FamilyVariable)
    .optional()
    .describe("Gateway settings the family's templates may read as `${NAME}`; no other variable is visible to its tools"),
  env: z
    .record(z.string(), z.string())
    .optional()
    .describe(
      "Environment of the family's exec children beyond the minimal base (PATH, HOME, LANG, LC_*, TZ); values may use declared `${VAR}`s; a tool's `env` extends it",
    ),
  egress: z
    .array(z.string())
    .optional()
    .describe(
      "Origins (`scheme://host[:port]`, literal or a declared `${VAR}` base URL) the family's http tools may reach; default: the origins of their URL templates",
    ),
  credentials: FamilyCredentials.optional().describe(
    "`per_principal`: the upstream is called as the caller, with the token that principal stored (PUT /v1/credentials/{family}); http and mcp families only",
  ),
});
export type FamilyDef = z.infer<typeof FamilyDef>;

export const FamiliesFile = z.strictObject({
  version: z.number().int().positive().default(FORMAT_VERSION),
  families: z.array(FamilyDef).min(1),
  always_loaded: z.array(z.string()).optional().describe("Tool names or `*` globs never searched for and always on the belt; replaces the default"),
});
export type FamiliesFile = z.infer<typeof FamiliesFile>;

/** Default always-loaded tools when `always_loaded` is not given. */
export const DEFAULT_ALWAYS_LOADED = ["toolbelt.reshape"];
// Defined beside the name rules, which import no zod: the Lambdas read it without the registry schemas.
export { META_TOOLS } from "./names.js";
