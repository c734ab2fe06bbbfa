// All backends wired from one options object (the handler's environment map, the artifact's family
// declarations and the finder).
import type { FamilyInfo } from "../../registry/contract/artifact.js";
import type { Backends } from "../core/call/types.js";
import type { Finder } from "../core/find/types.js";
import type { Models } from "../core/ports.js";
import { createBuiltinBackend } from "./builtin.js";
import { createExecBackend } from "./exec.js";
import { createHttpBackend } from "./http.js";
import { createMcpBackend, type McpBackend, type McpDriftOptions } from "./mcp.js";
import { createPromptBackend } from "./prompt.js";
import type { EnvMap } from "./templates.js";
import { parseSecretSpec, SECRETS_ENV } from "../secrets.js";
import { familyViews, type CallerCredentials } from "./variables.js";
import { NO_MODELS } from "../models/index.js";
import type { FindMissLog } from "../core/misses.js";

export type BackendsOptions = {
  /** The gateway's environment: each family sees only the variables it declares in `families`. */
  env: EnvMap;
  families: readonly Pick<FamilyInfo, "name" | "variables">[];
  finder?: Pick<Finder, "find">;
  /** Where toolbelt.find records its misses (Deps.findMisses). */
  findMisses?: Pick<FindMissLog, "observe">;
  /** exec runs the registry's commands on the gateway host (default on: the registry is the authority). */
  exec?: boolean;
  /** Directories file and git tools may touch (none: they answer 403 PATH_OUTSIDE_ROOTS). */
  fileRoots?: readonly string[];
  /** The gateway's own files (data and artifact directories, policy and key files): refused even inside a root (403). */
  deniedPaths?: readonly string[];
  maxResponseBytes?: number;
  /** Models by role for prompt tools (none: they answer 503 MODEL_NOT_CONFIGURED). */
  models?: Models;
  /** Per-principal upstream tokens for the http and mcp families that declare `credentials: per_principal`. */
  credentials?: CallerCredentials;
  /** How the mcp backend checks pulled tools against their upstream's live tools/list. */
  mcpDrift?: McpDriftOptions;
};

export function createBackends(options: BackendsOptions): { backends: Backends; mcp: McpBackend } {
  // Built once per cold start: a request never looks at the environment itself.
  // Whatever the deployment loads from SSM is a secret, declared so by its family or not.
  const views = familyViews(options.families, options.env, Object.keys(parseSecretSpec(options.env[SECRETS_ENV])));
  const credentials = options.credentials ? { credentials: options.credentials } : {};
  const mcp = createMcpBackend({ views, ...credentials, ...(options.mcpDrift ? { drift: options.mcpDrift } : {}) });
  const backends: Backends = {
    http: createHttpBackend({ views, ...credentials, ...(options.maxResponseBytes ? { maxResponseBytes: options.maxResponseBytes } : {}) }),
    mcp,
    builtin: createBuiltinBackend({
      ...(options.finder ? { finder: options.finder } : {}),
      ...(options.findMisses ? { findMisses: options.findMisses } : {}),
    }),
    prompt: createPromptBackend({ models: options.models ?? NO_MODELS }),
    ...(options.exec !== false
      ? { exec: createExecBackend({ env: options.env, views, roots: options.fileRoots ?? [], deniedPaths: options.deniedPaths ?? [] }) }
      : {}),
  };
  return { backends, mcp };
}
