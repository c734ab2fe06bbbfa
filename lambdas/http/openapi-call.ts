// The OpenAPI paths of POST /v1/call and GET /v1/admin/misses. Apart from the call routes so the
// api Lambda can document them (the call Lambda serves them behind the same HTTP API) without
// bundling ajv and the backends: contract schemas only.
import { CallBody, CallResponse, IdempotencyKey } from "../contract/call.js";
import { MissesQuery, MissesResponse } from "../contract/misses.js";
import { body, errors, headerParameter, ok, queryParameters, type PathItems } from "./openapi.js";

export const CALL_PATHS: PathItems = {
  "/v1/call": {
    post: {
      operationId: "call",
      summary: "Call a tool you are granted: arguments are validated, near-miss names resolved, the tool pinned on your session",
      parameters: [headerParameter("Idempotency-Key", IdempotencyKey)],
      requestBody: body(CallBody),
      responses: { ...ok("The tool's result", CallResponse), ...errors(400, 401, 403, 404, 409, 410, 413, 414, 415, 422, 500, 501, 502, 503, 504) },
    },
  },
  "/v1/admin/misses": {
    get: {
      operationId: "listMisses",
      summary: "The most frequent tool-name misses (admin principals only)",
      parameters: queryParameters(MissesQuery),
      responses: { ...ok("Misses, most frequent first; with `name`, that name's latest events", MissesResponse), ...errors(400, 401, 403, 414, 500, 503) },
    },
  },
};
