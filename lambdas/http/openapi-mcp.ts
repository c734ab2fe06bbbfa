// The OpenAPI paths of the MCP endpoint (its own Lambda behind the same HTTP API). The bodies are
// JSON-RPC messages defined by the MCP specification, not by this document: described, not modelled.
// No SDK import, so the api Lambda documents them without bundling the MCP server.
import { errors, type PathItems } from "./openapi.js";

const JSON_RPC = {
  type: "object",
  required: ["jsonrpc", "method"],
  properties: { jsonrpc: { const: "2.0" }, id: { type: ["string", "integer"] }, method: { type: "string" }, params: { type: "object" } },
};
const rpcAnswer = {
  description: "A JSON-RPC response (tool errors are results with isError)",
  content: { "application/json": { schema: { type: "object" } } },
};
const post = (operationId: string, summary: string, extra: Record<string, unknown> = {}) => ({
  post: {
    operationId,
    summary,
    ...extra,
    requestBody: { required: true, content: { "application/json": { schema: JSON_RPC } } },
    responses: { "200": rpcAnswer, "202": { description: "A notification, accepted" }, ...errors(400, 401, 404, 413, 415) },
  },
});
const notAllowed = (summary: string) => ({ summary, responses: { "405": { description: "Not allowed: the endpoint is stateless (`Allow: POST`)" } } });
const briefParameter = { parameters: [{ name: "brief", in: "path", required: true, schema: { type: "string" } }] };

export const MCP_PATHS: PathItems = {
  "/mcp": {
    ...post("mcp", "The MCP endpoint (Streamable HTTP, protocol revisions 2026-07-28 and 2025-11-25): find_tool, call_tool and the always-loaded tools"),
    get: { operationId: "mcpStream", ...notAllowed("No server-to-client stream: answers 405") },
    delete: { operationId: "mcpEndSession", ...notAllowed("No session to end: answers 405") },
  },
  "/mcp/briefs/{brief}": {
    ...post("mcpBrief", "The MCP endpoint with a brief's declared tools on the list", briefParameter),
    get: { operationId: "mcpBriefStream", ...briefParameter, ...notAllowed("No server-to-client stream: answers 405") },
    delete: { operationId: "mcpBriefEndSession", ...briefParameter, ...notAllowed("No session to end: answers 405") },
  },
};
