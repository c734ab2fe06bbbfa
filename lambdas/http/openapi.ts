// The OpenAPI document, generated from the contract's zod schemas (lambdas/contract/): the ones the
// routes parse requests with and the ones their answers are held to (test/integration/api/contract.test.ts
// checks every real answer against this document), so it cannot drift from the handlers.
import { ErrorBody } from "../contract/errors.js";
import { FindBody, FindResponse } from "../contract/find.js";
import { CorrelationId } from "../contract/headers.js";
import { HealthResponse } from "../contract/health.js";
import { ExportQuery, ExportResponse, SearchBody, SearchResponse } from "../contract/model-apis.js";
import { ProtectedResourceMetadata } from "../contract/oauth-metadata.js";
import { jsonSchema } from "../contract/schema.js";
import { OpenSessionBody, SessionId, SessionResponse } from "../contract/sessions.js";
import type { JsonSchema } from "../../registry/contract/schema-types.js";
import * as z from "../core/zod-mini.js";

type Operation = Record<string, unknown>;
export type PathItems = Record<string, Record<string, Operation>>;

/**
 * `{schema}` whose JSON Schema is generated when the document is first serialized, not when a
 * Lambda starts: zod's generator costs about as much as loading zod, and the document is rarely read.
 */
function lazySchema(schema: z.ZodMiniType, io: "input" | "output", omit?: string): { schema: JsonSchema } {
  let cached: JsonSchema | undefined;
  return {
    get schema() {
      if (!cached) {
        const { [omit ?? ""]: _omitted, ...rest } = jsonSchema(schema, io);
        cached = rest;
      }
      return cached;
    },
  };
}

const ERROR_REF = { description: "Error", content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } };

/** One error status with its own description and response headers (the body is still the one error body). */
export const errorWith = (description: string, headers: Record<string, unknown>) => ({ ...ERROR_REF, description, headers });

/** The error statuses an operation answers with, each with the one error body. */
export const errors = (...statuses: number[]) => Object.fromEntries(statuses.map((s) => [String(s), ERROR_REF]));

/** A success answer and its schema (`io: "output"`: fields the schema does not list are not sent). */
export const ok = (description: string, schema: z.ZodMiniType, status = 200) => ({
  [String(status)]: { description, content: { "application/json": lazySchema(schema, "output") } },
});

/** A JSON request body (`io: "input"`: what a client may send). */
export const body = (schema: z.ZodMiniType, required = true) => ({ required, content: { "application/json": lazySchema(schema, "input") } });

/** Query parameters from an object schema: each field one optional parameter, its description beside its schema. */
export function queryParameters(schema: { shape: Record<string, z.ZodMiniType> }): Operation[] {
  return Object.entries(schema.shape).map(([name, field]) => {
    const { description } = z.globalRegistry.get(field) ?? {};
    return Object.assign(lazySchema(field, "input", "description"), { name, in: "query", required: false, ...(description ? { description } : {}) });
  });
}

/** One optional request header, its description beside its schema. */
export function headerParameter(name: string, schema: z.ZodMiniType): Operation {
  const { description } = z.globalRegistry.get(schema) ?? {};
  return Object.assign(lazySchema(schema, "input", "description"), { name, in: "header", required: false, ...(description ? { description } : {}) });
}

/** One required path parameter, a string. */
export const pathParameter = (name: string, description: string, schema: z.ZodMiniType = z.string()): Operation =>
  Object.assign(lazySchema(schema, "input"), { name, in: "path", required: true, description });

/** The protected resource metadata: public (RFC 9728), 404 while the policy names no identity. */
const resourceMetadata = (operationId: string, summary: string, parameters: Operation[] = []) => ({
  get: {
    operationId,
    summary,
    security: [],
    ...(parameters.length ? { parameters } : {}),
    responses: {
      ...ok("OAuth 2.0 Protected Resource Metadata (RFC 9728)", ProtectedResourceMetadata),
      ...errors(404, 414, 500),
    },
  },
});

export const CORE_PATHS: PathItems = {
  "/v1/find": {
    post: {
      operationId: "find",
      summary: "Find the tools you may call for one capability",
      requestBody: body(FindBody),
      responses: { ...ok("Ranked tools (verdict none when nothing fits)", FindResponse), ...errors(400, 401, 404, 410, 413, 414, 415, 500, 503) },
    },
  },
  "/v1/sessions": {
    post: {
      operationId: "openSession",
      summary: "Open a session, optionally pre-loading a brief's declared tools",
      requestBody: body(OpenSessionBody, false),
      responses: { ...ok("The new session and its surface", SessionResponse, 201), ...errors(400, 401, 404, 409, 413, 414, 415, 500, 503) },
    },
  },
  "/v1/sessions/{id}/surface": {
    get: {
      operationId: "getSurface",
      summary: "The session's surface: meta-tools, always-loaded, declared and pinned tools, and the capability manifest",
      parameters: [pathParameter("id", "The session's id, as POST /v1/sessions answered it", SessionId)],
      responses: { ...ok("The session and its surface", SessionResponse), ...errors(401, 404, 410, 414, 500, 503) },
    },
  },
  "/v1/tools/export": {
    get: {
      operationId: "exportTools",
      summary: "The tools you may call as Anthropic or OpenAI tool definitions, deferred but for your belt, with the search tool",
      parameters: queryParameters(ExportQuery),
      responses: { ...ok("Tool definitions to send as the request's tools", ExportResponse), ...errors(400, 401, 404, 410, 414, 500, 503) },
    },
  },
  "/v1/tools/search": {
    post: {
      operationId: "searchTools",
      summary: "Answer the model's tool search: tool_reference blocks (Anthropic) or a client tool_search_output (OpenAI)",
      requestBody: body(SearchBody),
      responses: {
        ...ok("The result to hand back to the model, and how many more tools matched", SearchResponse),
        ...errors(400, 401, 404, 410, 413, 414, 415, 500, 503),
      },
    },
  },
  "/v1/health": {
    get: {
      operationId: "health",
      summary: "Checks the table, upstreams and model roles (kept 30 s); degraded names what is down to an admin key",
      security: [],
      responses: { ...ok("ok or degraded", HealthResponse), ...errors(414, 500, 503) },
    },
  },
  "/v1/openapi.json": {
    get: {
      operationId: "openapi",
      summary: "This document",
      security: [],
      responses: { "200": { description: "OpenAPI 3.1 document" }, ...errors(414, 500) },
    },
  },
  "/.well-known/oauth-protected-resource": resourceMetadata(
    "protectedResource",
    "Where to get an access token for the REST API: the issuer the policy's identity names (404 when the gateway takes API keys only)",
  ),
  // API Gateway's greedy path (the route as deployed, infra/endpoint-groups.ts): the app serves `mcp` only.
  "/.well-known/oauth-protected-resource/{proxy+}": resourceMetadata(
    "protectedResourceMcp",
    "The same for a resource below the origin: `/.well-known/oauth-protected-resource/mcp` for the MCP endpoint (any other path is 404)",
    [pathParameter("proxy+", "The resource's path below the origin: `mcp`")],
  ),
};

/** Every route takes `X-Correlation-Id` (the app's first middleware checks it) and echoes it: on every operation and answer. */
function withCorrelationId(paths: PathItems): PathItems {
  const parameter = headerParameter("X-Correlation-Id", CorrelationId);
  const echoed = { description: "The request's X-Correlation-Id, when it sent one", schema: { type: "string" } };
  const operation = (op: Operation): Operation => ({
    ...op,
    parameters: [...((op.parameters as Operation[] | undefined) ?? []), parameter],
    responses: Object.fromEntries(
      Object.entries(op.responses as Record<string, Operation>).map(([status, r]) => [
        status,
        { ...r, headers: { ...(r.headers as object), "X-Correlation-Id": echoed } },
      ]),
    ),
  });
  return Object.fromEntries(Object.entries(paths).map(([path, ops]) => [path, Object.fromEntries(Object.entries(ops).map(([m, op]) => [m, operation(op)]))]));
}

export function openApiDocument(version: string, extraPaths: PathItems = {}): Record<string, unknown> {
  return {
    openapi: "3.1.0",
    info: { title: "Toolbelt", version, description: "Find, call and keep tools on a session's belt." },
    security: [{ bearer: [] }],
    paths: withCorrelationId({ ...CORE_PATHS, ...extraPaths }),
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer", description: "API key; its SHA-256 digest is in the policy" } },
      schemas: { Error: jsonSchema(ErrorBody, "output") },
    },
  };
}
