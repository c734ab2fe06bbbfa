// The find port the entry points call (REST, MCP and the builtin meta-tool); its request and result
// are the wire contract's (lambdas/contract/find.ts).
import type { AlwaysTool, FindRequest, FindResult, FoundTool } from "../../contract/find.js";
import type { GrantFilter } from "../ports.js";

export type { AlwaysTool, FindRequest, FindResult, FoundTool };

export type FindOptions = {
  /** Tools the caller already holds with their schemas (its session's belt): their results carry no schema. */
  onBelt?: (name: string) => boolean;
};

export type Finder = {
  find(request: FindRequest, granted?: GrantFilter, options?: FindOptions): Promise<FindResult>;
  /** Names of the always-loaded tools (after glob expansion) that pass the filter. */
  alwaysLoaded(granted?: GrantFilter): string[];
};
