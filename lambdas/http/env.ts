// The Hono environment every route module shares: the authenticated principal and the request id.
import type { Context } from "hono";
import type { Principal } from "../core/auth.js";
import { ToolbeltError } from "../core/errors.js";

export type AppEnv = {
  Variables: { requestId: string; principal?: Principal };
  // Set by the Lambda adapter (hono/aws-lambda); absent under the Node server.
  Bindings: { lambdaContext?: { awsRequestId?: string } };
};

/** The authenticated principal (the auth middleware runs before every non-public /v1 route). */
export function principalOf(c: Context<AppEnv>): Principal {
  const p = c.get("principal");
  if (!p) throw new ToolbeltError("UNAUTHENTICATED", "missing API key: send the header `Authorization: Bearer <key>`");
  return p;
}
