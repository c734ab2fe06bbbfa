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
  }),
});
export const JsonlSource = z.strictObject({
  jsonl: z.string().describe("JSONL catalog (one tool per line: name, description, input_schema)"),
});
/** Where a family's tools come from: exactly one of `tools`, `mcp`, `jsonl`. */
export const FamilySource = z.union([ToolsSource, McpSource, JsonlSource]);
export type FamilySource = z.infer<typeof FamilySource>;

export const FamilyDef = z.strictObject({
  name: z.string(),
  description: z.string().describe("One sentence about the family"),
  required: z.boolean().default(true).describe("A required family that fails to load fails the build"),
  source: FamilySource,
});
export type FamilyDef = z.infer<typeof FamilyDef>;

export const FamiliesFile = z.strictObject({
  version: z.number().int().positive().default(FORMAT_VERSION),
  families: z.array(FamilyDef).min(1),
  always_loaded: z
    .array(z.string())
    .optional()
    .describe("Tool names or `*` globs never searched for and always on the belt; replaces the default"),
});
export type FamiliesFile = z.infer<typeof FamiliesFile>;

/** Default always-loaded tools when `always_loaded` is not given. */
export const DEFAULT_ALWAYS_LOADED = ["toolbelt.reshape"];
// Defined beside the name rules, which import no zod: the Lambdas read it without the registry schemas.
export { META_TOOLS } from "./names.js";
