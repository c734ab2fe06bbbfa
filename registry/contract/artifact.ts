// The artifact is the contract between the build and the Lambdas: written once by `build/`,
// imported (never rebuilt) by `lambdas/` at cold start.
import type { JsonSchema } from "./schema-types.js";
import type { Deprecation, ToolKind } from "./tool.js";
import type { PerPrincipalCredentials } from "./credentials.js";
import type { ToolDigest } from "./tool-digest.js";

/**
 * 2: catalog.json keeps the tools' schemas apart, as JSON text (`StoredCatalog.schemas`), parsed on
 * first use by the runtime: scanning a string is far cheaper at import than building objects.
 * 3: names.json is `NamesFile` (each tool's model-safe name), no longer a plain list of names.
 */
export const ARTIFACT_FORMAT_VERSION = 3;
/** File names inside the artifact directory. */
export const ARTIFACT_FILES = {
  manifest: "manifest.json",
  catalog: "catalog.json",
  names: "names.json",
  index: "index.json",
} as const;

export type GovernanceInfo = {
  read_only?: boolean;
  destructive?: boolean;
  idempotent?: boolean;
  consequential?: boolean;
  affects?: string;
  impact?: number;
  /** The call's audit record carries the argument values (default: only their digest). */
  audit_args?: boolean;
};

/** Kind-specific dispatch settings, as validated by the build. Templates are kept verbatim. */
export type Backend =
  | {
      kind: "http";
      method: string;
      url: string;
      headers?: Record<string, string>;
      query?: Record<string, string>;
      body?: unknown;
      /** Values the templates use for inputs the caller left out (the tool's `defaults`). */
      defaults?: Record<string, unknown>;
      output: "json" | "text";
      /** Origin templates the resolved URL must match (the family's `egress`, or derived from `url`). */
      egress?: string[];
    }
  | { kind: "mcp"; url: string; headers?: Record<string, string>; tool: string }
  | {
      kind: "exec";
      command: string;
      args: string[];
      /** The family's `env` merged with the tool's (the tool wins); the child gets this plus the minimal base only. */
      env?: Record<string, string>;
      cwd?: string;
      /** Input properties confined to the operator's file roots. */
      paths?: string[];
      output: "json" | "text";
      /** Exit statuses that mean "found nothing": answered 404, not 502. */
      not_found_exit_codes?: number[];
    }
  | { kind: "builtin"; handler: string }
  | { kind: "prompt"; prompt: string; model: string };

export type CatalogTool = {
  /** `family.verb` */
  name: string;
  /**
   * The model-safe name (`^[a-zA-Z0-9_-]{1,64}$`, names.ts `modelName`), set by the runtime's loader
   * from names.json; catalog.json does not repeat it. Read it with `modelNameOf`.
   */
  model_name?: string;
  family: string;
  kind: ToolKind;
  description: string;
  input_schema: JsonSchema;
  output_schema?: JsonSchema;
  governance: GovernanceInfo;
  timeout_ms: number;
  tags?: string[];
  /** Longer text than the description (an imported operation's long description): search text at a low weight, not shown to agents. */
  details?: string;
  /** Requests in the user's words the tool serves (search hints, indexed as their own field). */
  examples?: string[];
  /** Other names for the capability (search hints, indexed as their own field). */
  aliases?: string[];
  /** Retired: find shows it only by its exact name, surfaces drop it, calls answer 410 TOOL_DEPRECATED. */
  deprecated?: Deprecation;
  /** o200k tokens of an answer before it is cut into parts (default TOOLBELT_RESULT_BUDGET_TOKENS). */
  result_budget_tokens?: number;
  backend: Backend;
  /** Where the tool was defined, relative to the registry root. */
  source: string;
  /** Identifier in an imported JSONL catalog (evaluation uses it to match gold labels). */
  id?: string;
  /** o200k_base tokens of the tool's surface entry (surface-entry.ts), counted by the build; absent if it did not count. */
  tokens?: number;
  /** The definition as pulled or imported, pinned by the build (tool-digest.ts): MCP calls are refused when the upstream's differs. */
  digest?: ToolDigest;
};

export type FamilyInfo = {
  name: string;
  description: string;
  required: boolean;
  tool_count: number;
  /** A few example verbs for the capability manifest. */
  examples: string[];
  /** Settings the family's templates read as `${NAME}`; nothing else of the gateway's environment is visible to them. */
  variables?: Record<string, { secret: boolean; description?: string }>;
  /** The caller's own upstream token and the header it goes in (`credentials: per_principal`); absent: the deployment's variables only. */
  credentials?: PerPrincipalCredentials;
  /** o200k_base tokens of the family's manifest entry with all its tools granted, counted by the build. */
  tokens?: number;
};

export type Manifest = {
  format_version: number;
  /** SHA-256 of the normalized registry input (hex). */
  registry_hash: string;
  counts: { families: number; tools: number };
  /** Always-loaded names/globs from the registry (before deployment overrides). */
  always_loaded: string[];
  /** Optional families that failed to load and were skipped. */
  skipped_families: string[];
};

export type Catalog = { families: FamilyInfo[]; tools: CatalogTool[] };

/** A tool as catalog.json stores it (format 2): without its schemas. `loadArtifact` gives `CatalogTool`. */
export type StoredCatalogTool = Omit<CatalogTool, "input_schema" | "output_schema" | "model_name">;
/** catalog.json (format 2): tool i's input schema is `schemas[2i]`, its output schema `schemas[2i+1]` (null: none), as JSON text. */
export type StoredCatalog = { families: FamilyInfo[]; tools: StoredCatalogTool[]; schemas: (string | null)[] };

/** names.json (format 3): the catalog's names in catalog order, and each one's model-safe name at the same index. */
export type NamesFile = { names: string[]; model_names: string[] };
