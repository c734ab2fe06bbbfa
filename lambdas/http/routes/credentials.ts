// A principal's own upstream tokens (families with `credentials: per_principal`):
//   PUT    /v1/credentials/{family}                    body {"token": "..."}: connect (or replace) the caller's own
//   DELETE /v1/credentials/{family}                    remove the caller's own
//   GET    /v1/credentials                             the families the caller has connected, never a token
//   DELETE /v1/admin/credentials/{principal}/{family}  an operator removes anyone's
// There is no route that reads a token back, and none that touches another principal's but the admin one.
import { Hono } from "hono";
import {
  type AdminDisconnectResponse,
  type ConnectResponse,
  CredentialBody,
  type CredentialsList,
  type DisconnectResponse,
} from "../../contract/credentials.js";
import type { Credentials } from "../../core/credentials.js";
import { ToolbeltError } from "../../core/errors.js";
import { callerOf, type AppEnv } from "../env.js";
import { checkBody } from "../parse.js";

/** The body's token, read with fixed error messages (the JSON parser's own would quote the token it choked on), then held to the contract's schema. */
async function tokenOf(req: Request, maxBytes: number): Promise<string> {
  const text = await req.text();
  if (Buffer.byteLength(text, "utf8") > maxBytes) {
    throw new ToolbeltError("PAYLOAD_TOO_LARGE", `request body is over the limit of ${maxBytes} bytes`, { limit_bytes: maxBytes });
  }
  if (!/^application\/json\s*(?:;|$)/i.test(req.headers.get("content-type") ?? "")) {
    throw new ToolbeltError("UNSUPPORTED_MEDIA_TYPE", 'send `Content-Type: application/json` and the body {"token": "..."}', {
      accepted: ["application/json"],
    });
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ToolbeltError("BAD_JSON", 'request body is not valid JSON: send {"token": "..."}');
  }
  // zod's messages name the field and the rule broken, never the value.
  return checkBody(CredentialBody, body).token;
}

export function credentialRoutes(credentials: Credentials, opts: { maxBodyBytes: number }): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.get("/v1/credentials", async (c) => {
    const caller = callerOf(c);
    const connected = await credentials.list(caller.principal);
    return c.json<CredentialsList>({ principal: caller.principal, connected, families: [...credentials.families.keys()].sort() });
  });

  app.put("/v1/credentials/:family", async (c) => {
    const caller = callerOf(c);
    const token = await tokenOf(c.req.raw, opts.maxBodyBytes);
    const done = await credentials.connect({ principal: caller.principal, family: c.req.param("family") }, token);
    return c.json<ConnectResponse>({ connected: done });
  });

  app.delete("/v1/credentials/:family", async (c) => {
    const caller = callerOf(c);
    const family = c.req.param("family");
    const removed = await credentials.disconnect({ principal: caller.principal, family });
    return c.json<DisconnectResponse>({ family, removed });
  });

  app.delete("/v1/admin/credentials/:principal/:family", async (c) => {
    if (!callerOf(c).admin) {
      throw new ToolbeltError(
        "FORBIDDEN",
        "removing another principal's credentials is for operators: this needs a principal with `admin: true` in the policy",
      );
    }
    const principal = c.req.param("principal");
    const family = c.req.param("family");
    const removed = await credentials.disconnect({ principal, family });
    return c.json<AdminDisconnectResponse>({ principal, family, removed });
  });

  return app;
}
