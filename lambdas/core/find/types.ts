// The find contract, shared by REST, MCP and the builtin meta-tool.
import type { JsonSchema } from "../../../registry/contract/schema-types.js";
import type { GrantFilter } from "../ports.js";

export type FindRequest = {
  query: string;
  limit?: number;
  min_score?: number;
  /** Scope the search to one family (the box); without it, the whole registry (the shed). */
  family?: string;
  /** Include each tool's input schema and output shape (default true). */
  schemas?: boolean;
};

export type FoundTool = {
  name: string;
  /** The model-safe name (names.json): what a function-calling API accepts; call takes it as the name. */
  model_name: string;
  family: string;
  description: string;
  score: number;
  input_schema?: JsonSchema;
  output_schema?: JsonSchema;
};

export type AlwaysTool = Omit<FoundTool, "score">;

export type FindResult = {
  mode: "keyword" | "decision";
  verdict: "match" | "none";
  tools: FoundTool[];
  always: AlwaysTool[];
  fallback_reason?: string;
};

export type Finder = {
  find(request: FindRequest, granted?: GrantFilter): Promise<FindResult>;
  /** Names of the always-loaded tools (after glob expansion) that pass the filter. */
  alwaysLoaded(granted?: GrantFilter): string[];
};
