// All backends wired from one options object (the handler's environment map and the finder).
import type { Backends } from "../core/call/types.js";
import type { Finder } from "../core/find/types.js";
import { createBuiltinBackend } from "./builtin.js";
import { createExecBackend } from "./exec.js";
import { createHttpBackend } from "./http.js";
import { createMcpBackend, type McpBackend } from "./mcp.js";
import type { EnvMap } from "./templates.js";

export type BackendsOptions = {
  env: EnvMap;
  finder?: Pick<Finder, "find">;
  /** exec runs the registry's commands on the gateway host (default on: the registry is the authority). */
  exec?: boolean;
  /** Directories file and git tools may touch (none: they answer 403 PATH_OUTSIDE_ROOTS). */
  fileRoots?: readonly string[];
  maxResponseBytes?: number;
};

export function createBackends(options: BackendsOptions): { backends: Backends; mcp: McpBackend } {
  const mcp = createMcpBackend({ env: options.env });
  const backends: Backends = {
    http: createHttpBackend({ env: options.env, ...(options.maxResponseBytes ? { maxResponseBytes: options.maxResponseBytes } : {}) }),
    mcp,
    builtin: createBuiltinBackend(options.finder ? { finder: options.finder } : {}),
    ...(options.exec !== false ? { exec: createExecBackend({ env: options.env, roots: options.fileRoots ?? [] }) } : {}),
  };
  return { backends, mcp };
}
