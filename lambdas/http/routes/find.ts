// POST /v1/find: rank the tools the caller may call (the whole registry, or one family).
import { Hono } from "hono";
import { FindBody, type FindResponse } from "../../contract/find.js";
import type { Deps } from "../deps.js";
import { callContext, callerOf, type AppEnv } from "../env.js";
import type { LogFields } from "../logger.js";
import { findFacts, writeFind } from "../telemetry.js";
import { checkBody, readJsonBody } from "../parse.js";
import { findBodyOf } from "../../contract/find-body.js";
import { answerJson } from "../answer.js";

export function findRoutes(deps: Deps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.post("/v1/find", async (c) => {
    const started = performance.now();
    const caller = callerOf(c);
    const body = await readJsonBody(c, { maxBytes: deps.config.http.maxBodyBytes });
    const { session, ...request } = findBodyOf(body) ?? checkBody(FindBody, body);
    // A named session must be the caller's; another principal's is reported as missing.
    const record = session ? await deps.sessions.get(session, caller) : undefined;
    // Within a session, the tools on its belt already have their schemas on its surface: results name them only.
    const belt = record ? new Set(deps.sessions.beltNames(record, caller)) : undefined;
    const result = await deps.finder.find(request, caller.granted, belt ? { onBelt: (name) => belt.has(name) } : {});
    // One object filled in order, not three spreads: on Node 20 each spread into a new literal costs microseconds (measured).
    const fields: LogFields = Object.assign(callContext(c, "rest"), findFacts(caller.principal, request.query, result, started));
    if (session) fields.session = session;
    writeFind(deps.logger, result.verdict, fields, deps.config.metricsNamespace);
    // A query no tool answered well goes to the find-miss log, in the background (never waited on).
    deps.findMisses?.observe(request, result, caller);
    if (!belt) return answerJson<FindResponse>(c, result);
    // Within a session, say which results are already on its belt (callable without another look-up).
    return answerJson<FindResponse>(c, { ...result, session, tools: result.tools.map((t) => ({ ...t, on_belt: belt.has(t.name) })) });
  });
  return app;
}
