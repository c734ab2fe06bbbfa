// Registry diagnostics are data: every problem names its file, tool and JSON path, and all are collected.

export const REGISTRY_CODES = [
  "YAML_SYNTAX",
  "JSON_SYNTAX",
  "FILE_UNREADABLE",
  "UNKNOWN_KEY",
  "INVALID_VALUE",
  "MISSING_FIELD",
  "UNSUPPORTED_VERSION",
  "BAD_NAME",
  "NAME_COLLISION",
  "FAMILY_LOAD_FAILED",
  "FAMILY_SKIPPED",
  "SCHEMA_INVALID",
  "TEMPLATE_REFERENCE",
  "SECRET_LITERAL",
  "UNDECLARED_VARIABLE",
  "CONSEQUENTIAL_WITHOUT_AFFECTS",
  "AFFECTS_NOT_REQUIRED",
  "IMPACT_OUT_OF_BOUNDS",
  "CONTRADICTORY_GOVERNANCE",
  "DESCRIPTION_NOT_ONE_SENTENCE",
  "SEARCH_HINT_LIMIT",
  "SEARCH_HINT_DUPLICATE",
  "UNKNOWN_TOOL_REFERENCE",
  "DEPRECATED_TOOL_REFERENCE",
  "URL_ORIGIN_FROM_INPUT",
  "EGRESS_NOT_ORIGIN",
  "EGRESS_NOT_DECLARED",
  "PARAM_UNDOCUMENTED",
  "REQUIRED_WITHOUT_EXAMPLE",
  "GOVERNANCE_UNDECLARED",
  "OPTIONAL_INPUT_EMBEDDED",
  "INPUT_NEVER_SENT",
  "MODEL_ROLE_UNSET",
] as const;
export type RegistryCode = (typeof REGISTRY_CODES)[number];

export type Diagnostic = {
  severity: "error" | "warning";
  code: RegistryCode;
  /** Path of the file relative to the registry root. */
  file: string;
  /** Full tool name (`family.verb`) when the problem belongs to one tool. */
  tool?: string;
  /** JSON path inside the file, e.g. `$.tools[2].input_schema.properties.x`. */
  path: string;
  message: string;
  /** 1-based line in the file, when known (YAML and JSONL sources). */
  line?: number;
};
