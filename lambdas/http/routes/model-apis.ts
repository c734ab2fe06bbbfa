// GET /v1/tools/export and POST /v1/tools/search: Toolbelt as the index behind the model APIs' own tool
// search (docs/model-apis.md). Both see exactly the caller's granted, callable tools, and defer all but the belt's.
import { Hono } from "hono";
import type { CatalogTool } from "../../../registry/contract/artifact.js";
import { ExportQuery, type ExportAnswer, SearchBody, type SearchAnswer } from "../../contract/model-apis.js";
import { FIND_LIMITS } from "../../contract/find.js";
import { ToolbeltError } from "../../core/errors.js";
import { exportable, exportTools, searchAnswer } from "../../core/export.js";
import type { Caller } from "../../core/ports.js";
import { beltNames } from "../../core/surface.js";
import type { Deps } from "../deps.js";
import { callerOf, type AppEnv } from "../env.js";
import { checkBody, parseJsonBody } from "../parse.js";

/** The caller's belt: a session's (its pins too), a brief's as a new session would have it, or the principal's alone. */
async function beltOf(deps: Deps, caller: Caller, chosen: { session?: string | undefined; brief?: string | undefined }): Promise<(name: string) => boolean> {
  if (chosen.session !== undefined && chosen.brief !== undefined) {
    throw new ToolbeltError("INVALID_REQUEST", "give session or brief, not both: a session already names its brief", { issues: [] });
  }
  if (chosen.session !== undefined) {
    const record = await deps.sessions.get(chosen.session, caller);
    return setOf(deps.sessions.beltNames(record, caller));
  }
  let declared: readonly string[] = [];
  if (chosen.brief !== undefined) {
    const brief = deps.briefs.get(chosen.brief);
    if (!brief) {
      throw new ToolbeltError("NOT_FOUND", `no brief named ${JSON.stringify(chosen.brief)}; omit \`brief\` or use one of the listed names`, {
        brief: chosen.brief,
        available: [...deps.briefs.keys()].sort(),
      });
    }
    declared = brief.tools;
  }
  const { artifact, isAlwaysLoaded } = deps;
  return setOf(beltNames({ artifact, granted: caller.granted, isAlwaysLoaded, declared, pins: [], bounds: deps.config.surface }));
}

const setOf = (names: readonly string[]) => {
  const set = new Set(names);
  return (name: string) => set.has(name);
};

export function modelApiRoutes(deps: Deps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  // The exportable tools of one grant filter, by full name (a principal's filter is one object per cold start).
  const byGrant = new WeakMap<Caller["granted"], ReadonlyMap<string, CatalogTool>>();
  const exportedOf = (caller: Caller) => {
    let m = byGrant.get(caller.granted);
    if (!m) byGrant.set(caller.granted, (m = new Map(exportable(deps.artifact.tools, caller.granted).map((t) => [t.name, t]))));
    return m;
  };

  app.get("/v1/tools/export", async (c) => {
    const caller = callerOf(c);
    const query = checkBody(ExportQuery, c.req.query());
    const onBelt = await beltOf(deps, caller, query);
    return c.json<ExportAnswer>(exportTools(query.format, { tools: deps.artifact.tools, granted: caller.granted, onBelt }));
  });

  app.post("/v1/tools/search", async (c) => {
    const caller = callerOf(c);
    const body = await parseJsonBody(c, SearchBody, { maxBytes: deps.config.http.maxBodyBytes });
    const id = body.format === "anthropic" ? body.tool_use_id : body.call_id;
    if (!id) {
      const field = body.format === "anthropic" ? "tool_use_id" : "call_id";
      throw new ToolbeltError("INVALID_REQUEST", `${field} is required with format ${body.format}: copy it from the model's search call`, {
        issues: [{ path: field, code: "missing", message: `${field} is required with format ${body.format}` }],
      });
    }
    const onBelt = await beltOf(deps, caller, body);
    // find's longest answer, names only: the result takes the best `limit`, and `more` counts the rest.
    const found = await deps.finder.find({ query: body.query, limit: FIND_LIMITS.maxResults, schemas: "none", mode: "keyword" }, caller.granted);
    const answer = searchAnswer({
      format: body.format,
      found: { verdict: found.verdict, names: found.tools.map((t) => t.name), ...(found.note ? { note: found.note } : {}) },
      limit: body.limit,
      exported: exportedOf(caller),
      onBelt,
      ...(body.format === "anthropic" ? { tool_use_id: id } : { call_id: id }),
    });
    return c.json<SearchAnswer>(answer);
  });
  return app;
}
