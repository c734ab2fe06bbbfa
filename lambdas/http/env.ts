// The Hono environment every route module shares: the authenticated caller and the request id.
import type { Context } from "hono";
import { ToolbeltError } from "../core/errors.js";
import type { CallContext } from "../core/call/audit.js";
import type { Caller } from "../core/ports.js";

export type AppEnv = {
  /** `correlationId`: the caller's `X-Correlation-Id`, checked; it goes into audit records and back in the answer. */
  Variables: { requestId: string; correlationId?: string; caller?: Caller };
  // Set by the Lambda adapter (hono/aws-lambda); absent under the Node server. `textAnswers`: the adapter
  // takes a JsonAnswer's text as is (answer.ts).
  // `outgoing`: set by the Node server (@hono/node-server), its http.ServerResponse.
  Bindings: { lambdaContext?: { awsRequestId?: string }; textAnswers?: boolean; outgoing?: unknown };
};

/** Where a call came in, for its audit record. */
export function callContext(c: Context<AppEnv>, via: CallContext["via"]): CallContext {
  const correlationId = c.get("correlationId");
  return { request_id: c.get("requestId"), ...(correlationId !== undefined ? { correlation_id: correlationId } : {}), via };
}

/** The authenticated caller (the auth middleware runs before every non-public /v1 route). */
export function callerOf(c: Context<AppEnv>): Caller {
  const caller = c.get("caller");
  if (!caller) throw new ToolbeltError("UNAUTHENTICATED", "missing API key: send the header `Authorization: Bearer <key>`");
  return caller;
}
