// The request and response schemas of POST /v1/call and GET /v1/admin/misses, and their OpenAPI
// paths. Apart from the call routes so the api Lambda can document them (the call Lambda serves them
// behind the same HTTP API) without bundling ajv and the backends: zod(-mini) imports only.
import * as z from "../core/zod-mini.js";
import { CallInput, described, SessionId } from "../core/requests.js";
import type { PathItems } from "./openapi.js";

export const CallBody = z.extend(CallInput, {
  session: described(z.optional(SessionId), "Your session: the tool is pinned on its surface after a successful call"),
});
export const CallResponseSchema = z.object({
  tool: described(z.string(), "Full name of the tool that ran"),
  resolved_from: described(z.optional(z.string()), "The name you sent, when it was a near-miss that resolved"),
  resolution: z.optional(z.enum(["case", "separators", "family_prefix", "typo"])),
  result: z.unknown(),
});
export const MissesResponse = z.object({
  misses: z.array(
    z.object({
      canonical: z.string(),
      count: z.number().check(z.int()),
      names: z.array(z.string()),
      last_at: z.string(),
      last_principal: z.string(),
      last_outcome: z.enum(["resolved", "ambiguous", "not_found"]),
      resolved_to: z.optional(z.string()),
    }),
  ),
});

const json = (s: z.ZodMiniType) => z.toJSONSchema(s, { io: "input", unrepresentable: "any" });
const errorRef = { description: "Error", content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } };
const errors = (...statuses: number[]) => Object.fromEntries(statuses.map((s) => [String(s), errorRef]));

export const CALL_PATHS: PathItems = {
  "/v1/call": {
    post: {
      operationId: "call",
      summary: "Call a tool you are granted: arguments are validated, near-miss names resolved, the tool pinned on your session",
      requestBody: { required: true, content: { "application/json": { schema: json(CallBody) } } },
      responses: {
        "200": { description: "The tool's result", content: { "application/json": { schema: json(CallResponseSchema) } } },
        ...errors(400, 401, 403, 404, 410, 413, 415, 422, 501, 502, 503, 504),
      },
    },
  },
  "/v1/admin/misses": {
    get: {
      operationId: "listMisses",
      summary: "The most frequent tool-name misses (admin principals only)",
      parameters: [
        { name: "limit", in: "query", required: false, schema: { type: "integer", minimum: 1, maximum: 1000 } },
        { name: "name", in: "query", required: false, schema: { type: "string" }, description: "List the latest events for this name instead" },
      ],
      responses: {
        "200": { description: "Misses, most frequent first", content: { "application/json": { schema: json(MissesResponse) } } },
        ...errors(400, 401, 403),
      },
    },
  },
};
