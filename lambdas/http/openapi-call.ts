// The OpenAPI paths of POST /v1/call and GET /v1/admin/misses (both miss logs). Apart from the call routes so the
// api Lambda can document them (the call Lambda serves them behind the same HTTP API) without
// bundling ajv and the backends: contract schemas only.
import { CallBody, CallResponse, IdempotencyKey } from "../contract/call.js";
import { MissesQuery, MissesResponse } from "../contract/misses.js";
import { body, errorWith, errors, headerParameter, ok, queryParameters, type PathItems } from "./openapi.js";

/** What an upstream's rate limit answers: its own code, and the upstream's Retry-After passed on. */
const RATE_LIMITED = errorWith(
  "UPSTREAM_RATE_LIMITED: the tool's upstream is rate limiting (it answered HTTP 429); back off and retry, after Retry-After seconds when it said how long. (TOO_MANY_REQUESTS: this gateway's own limit.)",
  {
    "Retry-After": {
      description: "Seconds to wait, from the upstream's own Retry-After (delta-seconds or an HTTP date, given here as seconds); absent when it sent none",
      schema: { type: "integer", minimum: 0 },
    },
  },
);

export const CALL_PATHS: PathItems = {
  "/v1/call": {
    post: {
      operationId: "call",
      summary: "Call a tool you are granted: arguments are validated, near-miss names resolved, the tool pinned on your session",
      parameters: [headerParameter("Idempotency-Key", IdempotencyKey)],
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
};
