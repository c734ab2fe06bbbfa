// The Hono environment every route module shares: the authenticated caller and the request id.
import type { Context } from "hono";
import { ToolbeltError } from "../core/errors.js";
import type { Caller } from "../core/ports.js";

export type AppEnv = {
  Variables: { requestId: string; caller?: Caller };
  // Set by the Lambda adapter (hono/aws-lambda); absent under the Node server.
  Bindings: { lambdaContext?: { awsRequestId?: string } };
};

/** The authenticated caller (the auth middleware runs before every non-public /v1 route). */
export function callerOf(c: Context<AppEnv>): Caller {
  const caller = c.get("caller");
  if (!caller) throw new ToolbeltError("UNAUTHENTICATED", "missing API key: send the header `Authorization: Bearer <key>`");
  return caller;
}
