// CORS for browser MCP clients (the MCP Inspector): one list for the Hono route (local server) and the
// HTTP API's preflight configuration (infra), which answers OPTIONS itself on AWS.
export const MCP_CORS = {
  allowOrigins: ["*"],
  allowMethods: ["POST", "GET", "DELETE", "OPTIONS"],
  allowHeaders: ["Authorization", "Content-Type", "Accept", "Mcp-Protocol-Version", "Mcp-Session-Id", "Mcp-Method", "Mcp-Name", "Last-Event-ID"],
  exposeHeaders: ["Mcp-Session-Id", "WWW-Authenticate"],
  maxAgeSecs: 600,
} as const;
