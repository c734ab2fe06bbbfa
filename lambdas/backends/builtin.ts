// Tools implemented in the gateway: the meta-tools (find, call) and a JSON reshape.
import { ownAt } from "../../registry/contract/own-path.js";
import type { CatalogTool } from "../../registry/contract/artifact.js";
import { UNAVAILABLE_HANDLER } from "../../registry/contract/callable.js";
import type { BackendContext, BackendOutput, ToolBackend } from "../core/call/types.js";
import { ToolbeltError } from "../core/errors.js";
import type { FindRequest, Finder } from "../core/find/types.js";
import type { FindMissLog } from "../core/misses.js";

export type BuiltinBackendOptions = {
  /** The same finder REST uses; find is filtered by the caller's grants. */
  finder?: Pick<Finder, "find">;
  /** The find-miss log: toolbelt.find's misses are recorded as REST find's are. */
  findMisses?: Pick<FindMissLog, "observe">;
};

/** Split `a.b[0].c`, `$.a.b`, or a JSON pointer `/a/b/0/c` into segments. */
export function pathSegments(path: string): string[] {
  if (path === "" || path === "$") return [];
  if (path.startsWith("/"))
    return path
      .slice(1)
      .split("/")
      .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
  const body = path.startsWith("$.") ? path.slice(2) : path.startsWith("$[") ? path.slice(1) : path;
  return body
    .replace(/\[(\d+)\]/g, ".$1")
    .split(".")
    .filter((s) => s !== "");
}

export function pick(data: unknown, path: string): unknown {
  return ownAt(data, pathSegments(path));
}

/** `{data, mapping: {outKey: path}}` → `{outKey: value at path}`; a missing path gives null. */
export function reshape(args: Record<string, unknown>, tool: string): Record<string, unknown> {
  const mapping = args.mapping;
  if (!mapping || typeof mapping !== "object" || Array.isArray(mapping)) {
    throw new ToolbeltError("INVALID_ARGUMENTS", `${tool} needs \`mapping\`: an object from output keys to paths such as "a.b[0].c" or "/a/b/0/c"`, {
      tool,
      problems: [{ path: "$.mapping", message: "must be an object of output key → path", keyword: "type" }],
    });
  }
  const out: [string, unknown][] = [];
  const problems: { path: string; message: string; keyword: string }[] = [];
  for (const [key, path] of Object.entries(mapping)) {
    if (typeof path !== "string") {
      problems.push({ path: `$.mapping.${key}`, message: "must be a string path", keyword: "type" });
      continue;
    }
    out.push([key, pick(args.data, path) ?? null]);
  }
  if (problems.length) {
    throw new ToolbeltError("INVALID_ARGUMENTS", `${tool}: ${problems.map((p) => `${p.path} ${p.message}`).join("; ")}`, { tool, problems });
  }
  // fromEntries defines keys: an output key "__proto__" is a key, never the result's prototype.
  return Object.fromEntries(out);
}

export function createBuiltinBackend(options: BuiltinBackendOptions = {}): ToolBackend {
  return {
    async invoke(tool: CatalogTool, args: Record<string, unknown>, ctx: BackendContext): Promise<BackendOutput> {
      const b = tool.backend;
      if (b.kind !== "builtin") throw new ToolbeltError("INTERNAL", `${tool.name} is not a builtin tool`);
      switch (b.handler) {
        case "find": {
          if (!options.finder) throw new ToolbeltError("NOT_IMPLEMENTED", `${tool.name}: this gateway has no finder configured`, { tool: tool.name });
          // The arguments passed the tool's input schema (FindInput's): only its fields, the query as text.
          const fields = ["limit", "min_score", "family", "schemas", "explain", "mode", "min_probability", "chunk_size", "model"] as const;
          const picked = Object.fromEntries(fields.filter((f) => args[f] !== undefined).map((f) => [f, args[f]]));
          const req = { ...picked, query: String(args.query ?? "") } as FindRequest;
          const result = await options.finder.find(req, ctx.caller.granted);
          options.findMisses?.observe(req, result, ctx.caller);
          return { result };
        }
        case "call": {
          if (ctx.depth > 0) {
            throw new ToolbeltError("INVALID_ARGUMENTS", `${tool.name} cannot be called through itself; call the target tool directly`, {
              tool: tool.name,
              problems: [{ path: "$.tool", message: "must not be toolbelt.call itself", keyword: "recursion" }],
            });
          }
          if (typeof args.tool !== "string") {
            throw new ToolbeltError("INVALID_ARGUMENTS", `${tool.name} needs \`tool\`: the name of the tool to call`, {
              tool: tool.name,
              problems: [{ path: "$.tool", message: "is required and must be a string", keyword: "required" }],
            });
          }
          return { result: await ctx.call({ tool: args.tool, args: args.args ?? {} }) };
        }
        case "reshape":
          return { result: reshape(args, tool.name) };
        case UNAVAILABLE_HANDLER:
          throw new ToolbeltError(
            "NOT_IMPLEMENTED",
            `${tool.name} was imported from a catalog without a backend: it can be found but not called through this gateway`,
            { tool: tool.name },
          );
        default:
          throw new ToolbeltError(
            "NOT_IMPLEMENTED",
            `${tool.name} names the builtin handler ${JSON.stringify(b.handler)}, which this gateway does not implement`,
            {
              tool: tool.name,
              handler: b.handler,
            },
          );
      }
    },
  };
}
