// The OpenAPI paths of POST /v1/call, GET /v1/admin/misses (both miss logs) and the per-principal credentials. Apart from the call routes so the
// api Lambda can document them (the call Lambda serves them behind the same HTTP API) without
// bundling ajv and the backends: contract schemas only.
import { ApprovalView, DecisionBody } from "../contract/approvals.js";
import { CallBody, CallResponse, IdempotencyKey } from "../contract/call.js";
import { AdminDisconnectResponse, ConnectResponse, CredentialBody, CredentialsList, DisconnectResponse } from "../contract/credentials.js";
import { MissesQuery, MissesResponse } from "../contract/misses.js";
import { body, errorWith, errors, headerParameter, ok, pathParameter, queryParameters, type PathItems } from "./openapi.js";

/** Both 429s: this gateway's own limits and an upstream's, each with the Retry-After to honour. */
const RATE_LIMITED = errorWith(
  "TOO_MANY_REQUESTS: a limit of this gateway's policy is reached (requests per second or minute, daily quota or calls at once); `details.limit` names it, `details.retry_after_secs` and Retry-After say when to try again. UPSTREAM_RATE_LIMITED: the tool's upstream is rate limiting (it answered HTTP 429); back off and retry, after Retry-After seconds when it said how long",
  {
    "Retry-After": {
      description:
        "Seconds to wait: until the gateway's limit frees a call (TOO_MANY_REQUESTS), or the upstream's own Retry-After (UPSTREAM_RATE_LIMITED: delta-seconds or an HTTP date, given here as seconds; absent when it sent none)",
      schema: { type: "integer", minimum: 0 },
    },
  },
);

/** On a call the policy's window limits counted: what the caller has left (draft-ietf-httpapi-ratelimit-headers, core/limits.ts). */
const RATE_LIMIT_HEADERS = {
  RateLimit: {
    description:
      'The counted limit with the fewest calls left: `"<scope>-<limit>";r=<calls left>;t=<seconds until its window resets>`. Absent when no window limit applied',
    schema: { type: "string" },
  },
  "RateLimit-Policy": {
    description: 'Every window limit the call counted: `"<scope>-<limit>";q=<calls per window>;w=<window seconds>`, comma-separated. Absent when none applied',
    schema: { type: "string" },
  },
};

const FAMILY = pathParameter("family", "A family declaring `credentials: per_principal`");

/** A call the policy's `approvals` hold: 202 with the error body naming the approval (core/approvals.ts). */
const HELD = errorWith(
  "APPROVAL_REQUIRED: the policy holds calls of this tool for approval; it did not run. `details.approval_id` names the approval, `details.approve` where an approver decides, `details.complete` where you then send the same call, before `details.expires_at`",
  {},
);
const APPROVAL = pathParameter("id", "The approval id a held call answered with (`details.approval_id`)");

export const CALL_PATHS: PathItems = {
  "/v1/call": {
    post: {
      operationId: "call",
      summary: "Call a tool you are granted: arguments are validated, near-miss names resolved, the tool pinned on your session",
      parameters: [headerParameter("Idempotency-Key", IdempotencyKey)],
      requestBody: body(CallBody),
      responses: {
        "200": { ...ok("The tool's result", CallResponse)["200"], headers: RATE_LIMIT_HEADERS },
        "202": HELD,
        ...errors(400, 401, 403, 404, 409, 410, 413, 414, 415, 422, 500, 501, 502, 503, 504),
        "429": RATE_LIMITED,
      },
    },
  },
  "/v1/approvals/{id}": {
    get: {
      operationId: "getApproval",
      summary: "A held call as its caller or an approver sees it: its tool, the digest of its arguments, its state and who decided",
      parameters: [APPROVAL],
      responses: { ...ok("The held call", ApprovalView), ...errors(401, 404, 410, 414, 500, 503) },
    },
    post: {
      operationId: "decideApproval",
      summary: "Approve or refuse a held call, once, before it expires (principals with `approver: true`; never their own call)",
      parameters: [APPROVAL],
      requestBody: body(DecisionBody),
      responses: { ...ok("Decided", ApprovalView), ...errors(400, 401, 403, 404, 409, 410, 413, 414, 415, 500, 503) },
    },
  },
  "/v1/approvals/{id}/call": {
    post: {
      operationId: "completeApproval",
      summary: "Complete an approved call: the caller who was held sends the same tool and arguments; it runs once, and a repeat answers with the first result",
      parameters: [APPROVAL],
      requestBody: body(CallBody),
      responses: {
        ...ok("The tool's result", CallResponse),
        ...errors(400, 401, 403, 404, 409, 410, 413, 414, 415, 422, 500, 501, 502, 503, 504),
        "429": RATE_LIMITED,
      },
    },
  },
  "/v1/admin/misses": {
    get: {
      operationId: "listMisses",
      summary:
        "The most frequent misses (admin principals only): tool names callers sent that were not a tool they may call, or with kind=find the find queries no tool answered well",
      parameters: queryParameters(MissesQuery),
      responses: { ...ok("Misses, most frequent first; with `name`, that name's latest events", MissesResponse), ...errors(400, 401, 403, 414, 500, 503) },
    },
  },
  "/v1/credentials": {
    get: {
      operationId: "listCredentials",
      summary: "The families you stored your own upstream token for, and every family that takes one (never a token)",
      responses: { ...ok("Your connected families", CredentialsList), ...errors(401, 414, 500, 503) },
    },
  },
  "/v1/credentials/{family}": {
    put: {
      operationId: "connectCredential",
      summary: "Store (or replace) your own token for a family's upstream: sealed, and sent on your calls of its tools only",
      parameters: [FAMILY],
      requestBody: body(CredentialBody),
      responses: { ...ok("Connected", ConnectResponse), ...errors(400, 401, 404, 413, 414, 415, 500, 503) },
    },
    delete: {
      operationId: "disconnectCredential",
      summary: "Remove your own token for a family",
      parameters: [FAMILY],
      responses: { ...ok("Removed, or there was none", DisconnectResponse), ...errors(401, 414, 500, 503) },
    },
  },
  "/v1/admin/credentials/{principal}/{family}": {
    delete: {
      operationId: "adminDisconnectCredential",
      summary: "Remove any principal's token for a family (admin principals only)",
      parameters: [pathParameter("principal", "The principal whose token goes (a policy id, or user:<sub> for a token's subject)"), FAMILY],
      responses: { ...ok("Removed, or there was none", AdminDisconnectResponse), ...errors(401, 403, 414, 500, 503) },
    },
  },
};
