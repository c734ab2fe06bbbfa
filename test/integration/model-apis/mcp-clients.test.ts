// The MCP client configs in examples/mcp-clients (Claude Code's .mcp.json, VS Code's .vscode/mcp.json): their URL
// and headers, with the key put where each client substitutes it, drive the official SDK client's initialize and tools/list.
import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Gateway, KEYS, startGateway } from "./fixture.js";

type ServerEntry = { type: string; url: string; headers: Record<string, string> };
const read = (file: string) => JSON.parse(readFileSync(new URL(`../../../examples/mcp-clients/${file}`, import.meta.url), "utf8")) as Record<string, unknown>;
const CONFIGS: [string, ServerEntry, string][] = [
  ["Claude Code", (read("claude-code.mcp.json").mcpServers as Record<string, ServerEntry>).toolbelt!, "${TOOLBELT_KEY}"],
  ["VS Code", (read("vscode.mcp.json").servers as Record<string, ServerEntry>).toolbelt!, "${input:toolbelt-key}"],
];

let gateway: Gateway;
beforeAll(async () => {
  gateway = await startGateway();
}, 60_000);
afterAll(() => gateway?.close());

describe("examples/mcp-clients", () => {
  it.each(CONFIGS)("%s: initialize and tools/list through the official SDK client", async (_client, entry, placeholder) => {
    expect(entry.type).toBe("http");
    // npm start's address in the file; this test's gateway listens on a free port instead.
    const url = new URL(entry.url);
    expect(url.origin).toBe("http://127.0.0.1:8787");
    const headers = Object.fromEntries(Object.entries(entry.headers).map(([k, v]) => [k, v.replace(placeholder, KEYS.all)]));
    const client = new Client({ name: "config-check", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(url.pathname, gateway.url), { requestInit: { headers } }));
    try {
      expect(client.getServerVersion()?.name).toBeTruthy();
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain("find_tool");
    } finally {
      await client.close();
    }
  });
});
