// POST /v1/sessions and GET /v1/sessions/{id}/surface: the belt of one principal's session.
import { Hono } from "hono";
import { ToolbeltError } from "../../core/errors.js";
import { OpenSessionBody, SESSION_ID_RE, type SessionResponse, type SessionView } from "../../contract/sessions.js";
import type { Caller, SessionRecord } from "../../core/ports.js";
import type { Deps } from "../deps.js";
import { callerOf, type AppEnv } from "../env.js";
import { parseJsonBody } from "../parse.js";

/** What a client sees of a session: declared tools only as far as they are granted. */
export function sessionView(deps: Deps, s: SessionRecord, caller: Caller): SessionView {
  return {
    id: s.id,
    brief: s.brief ?? null,
    declared: deps.sessions.declaredTools(s, caller),
    created_at: new Date(s.created_at).toISOString(),
    expires_at: new Date(s.expires_at * 1000).toISOString(),
  };
}

export function sessionRoutes(deps: Deps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.post("/v1/sessions", async (c) => {
    const caller = callerOf(c);
    const body = await parseJsonBody(c, OpenSessionBody, { maxBytes: deps.config.http.maxBodyBytes, optional: true });
    const session = await deps.sessions.open(caller, body.brief);
    return c.json<SessionResponse>({ session: sessionView(deps, session, caller), surface: deps.sessions.surface(session, caller) }, 201, {
      location: `/v1/sessions/${session.id}/surface`,
    });
  });

  app.get("/v1/sessions/:id/surface", async (c) => {
    const caller = callerOf(c);
    const id = c.req.param("id");
    if (!SESSION_ID_RE.test(id)) {
      throw new ToolbeltError("SESSION_NOT_FOUND", `no session ${JSON.stringify(id.slice(0, 80))}: use an id returned by POST /v1/sessions`, {
        session: id.slice(0, 80),
      });
    }
    const session = await deps.sessions.get(id, caller);
    return c.json<SessionResponse>({ session: sessionView(deps, session, caller), surface: deps.sessions.surface(session, caller) });
  });

  return app;
}
