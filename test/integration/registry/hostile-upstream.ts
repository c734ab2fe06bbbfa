// A hostile MCP server for registry:pull tests: raw JSON-RPC over Streamable HTTP (JSON responses), so it
// can send what an SDK server would refuse or fail to serialize (control characters, 3,000-level schemas).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export type HostileUpstream = { url: string; close: () => Promise<void> };

/**
 * Serves `initialize` with `serverInfo` and `tools/list` with `toolsJson`, the raw JSON text of the
 * tools array (spliced into the response as is: a deep schema need never pass through JSON.stringify).
 */
export async function startHostileUpstream(serverInfo: { name: string; version: string }, toolsJson: string): Promise<HostileUpstream> {
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString("utf8")));
    req.on("end", () => {
      if (req.method !== "POST") {
        res.writeHead(405).end();
        return;
      }
      const msg = JSON.parse(body) as { id?: number | string; method: string; params?: { protocolVersion?: string } };
      if (msg.id === undefined) {
        res.writeHead(202).end();
        return;
      }
      const result =
        msg.method === "initialize"
          ? JSON.stringify({ protocolVersion: msg.params?.protocolVersion ?? "2025-06-18", capabilities: { tools: {} }, serverInfo })
          : msg.method === "tools/list"
            ? `{"tools":${toolsJson}}`
            : "{}";
      res.writeHead(200, { "content-type": "application/json" }).end(`{"jsonrpc":"2.0","id":${JSON.stringify(msg.id)},"result":${result}}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
