// The OpenAPI document, generated from the zod schemas the routes parse with (requests) and
// describe their answers with (responses), so the document cannot drift from the handlers.
import * as z from "../core/zod-mini.js";
import { described, FindBody, OpenSessionBody } from "../core/requests.js";
import { ErrorBody } from "./errors.js";
import { HealthResponse } from "./routes/health.js";

const json = (s: z.ZodMiniType) => z.toJSONSchema(s, { io: "input", unrepresentable: "any" });

const int = () => z.number().check(z.int());
const anyObject = z.record(z.string(), z.unknown());
const SurfaceTool = z.object({
  name: z.string(),
  model_name: described(z.string(), "The same tool's model-safe name (`^[a-zA-Z0-9_-]{1,64}$`, for function-calling APIs); call accepts it as the name"),
  description: z.string(),
  input_schema: anyObject,
  output_schema: z.optional(anyObject),
  on_belt: z.enum(["meta", "always", "declared", "pinned", "granted"]),
});
const Size = z.object({ tools: int(), bytes: int(), approx_tokens: int() });
export const SurfaceSchema = z.object({
  narrowed: z.boolean(),
  reason: z.string(),
  bounds: z.object({ max_tools: int(), max_schema_bytes: int(), pin_budget_bytes: int() }),
  tools: z.array(SurfaceTool),
  manifest: z.object({
    families: z.array(z.object({ name: z.string(), description: z.string(), tool_count: int(), examples: z.array(z.string()) })),
  }),
  pins: z.object({
    used_bytes: int(),
    budget_bytes: int(),
    tools: z.array(z.object({ name: z.string(), bytes: int(), last_used: z.number() })),
  }),
  size: z.object({ surface: Size, catalog: Size }),
});
const SessionView = z.object({
  id: z.string(),
  brief: z.nullable(z.string()),
  declared: z.array(z.string()),
  created_at: z.string(),
  expires_at: z.string(),
});
export const SessionResponse = z.object({ session: SessionView, surface: SurfaceSchema });
const FoundTool = z.object({
  name: z.string(),
  model_name: described(z.string(), "The same tool's model-safe name (`^[a-zA-Z0-9_-]{1,64}$`, for function-calling APIs); call accepts it as the name"),
  family: z.string(),
  description: z.string(),
  score: z.number(),
  input_schema: z.optional(anyObject),
  output_schema: z.optional(anyObject),
  on_belt: described(z.optional(z.boolean()), "With a session: the tool is already on its surface"),
});
export const FindResponse = z.object({
  mode: z.enum(["keyword", "decision"]),
  verdict: z.enum(["match", "none"]),
  tools: z.array(FoundTool),
  always: z.array(z.omit(FoundTool, { score: true, on_belt: true })),
  fallback_reason: z.optional(z.string()),
  session: z.optional(z.string()),
});

type Operation = Record<string, unknown>;
export type PathItems = Record<string, Record<string, Operation>>;

const errors = (...statuses: number[]) =>
  Object.fromEntries(
    statuses.map((s) => [String(s), { description: "Error", content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } }]),
  );
const ok = (description: string, schema: z.ZodMiniType, status = 200) => ({
  [String(status)]: { description, content: { "application/json": { schema: json(schema) } } },
});
const body = (schema: z.ZodMiniType, required = true) => ({ required, content: { "application/json": { schema: json(schema) } } });

export const CORE_PATHS: PathItems = {
  "/v1/find": {
    post: {
      operationId: "find",
      summary: "Find the tools you may call for one capability",
      requestBody: body(FindBody),
      responses: { ...ok("Ranked tools (verdict none when nothing fits)", FindResponse), ...errors(400, 401, 404, 410, 413, 414, 415) },
    },
  },
  "/v1/sessions": {
    post: {
      operationId: "openSession",
      summary: "Open a session, optionally pre-loading a brief's declared tools",
      requestBody: body(OpenSessionBody, false),
      responses: { ...ok("The new session and its surface", SessionResponse, 201), ...errors(400, 401, 404, 413, 414, 415) },
    },
  },
  "/v1/sessions/{id}/surface": {
    get: {
      operationId: "getSurface",
      summary: "The session's surface: meta-tools, always-loaded, declared and pinned tools, and the capability manifest",
      parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
      responses: { ...ok("The session and its surface", SessionResponse), ...errors(401, 404, 410, 414) },
    },
  },
  "/v1/health": {
    get: { operationId: "health", summary: "Artifact manifest", security: [], responses: ok("Manifest", HealthResponse) },
  },
  "/v1/openapi.json": {
    get: { operationId: "openapi", summary: "This document", security: [], responses: { "200": { description: "OpenAPI 3.1 document" } } },
  },
};

export function openApiDocument(version: string, extraPaths: PathItems = {}): Record<string, unknown> {
  return {
    openapi: "3.1.0",
    info: { title: "Toolbelt", version, description: "Find, call and keep tools on a session's belt." },
    security: [{ bearer: [] }],
    paths: { ...CORE_PATHS, ...extraPaths },
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer", description: "API key; its SHA-256 digest is in the policy" } },
      schemas: { Error: json(ErrorBody) },
    },
  };
}
