// The MCP endpoint's test catalog and clients: a real server-everything upstream behind mcp tools, the
// official v2 client (both revisions) and the v1 client (2025-11-25 handshake).
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from "@modelcontextprotocol/client";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as TransportV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { ArtifactInput } from "../../../build/artifact.js";
import type { BriefFile } from "../../../registry/contract/brief.js";
import type { CatalogTool } from "../../../registry/contract/artifact.js";
import { testArtifactInput } from "../../helpers/artifact.js";
import { catalogTool } from "../call/helpers.js";

export const weatherSchema = {
  type: "object",
  properties: { temperature: { type: "number" }, conditions: { type: "string" }, humidity: { type: "number" } },
  required: ["temperature", "conditions", "humidity"],
};

const mcp = (tool: string) => ({ kind: "mcp" as const, url: "${EVERYTHING_URL}", tool });

/** alice may call everything but admin.*; bob only git.* (testPolicy). */
export function mcpTestTools(): CatalogTool[] {
  return [
    catalogTool(
      "toolbelt.reshape",
      { kind: "builtin", handler: "reshape" },
      {
        description: "Reshape JSON data with a mapping.",
        input_schema: { type: "object", required: ["data", "mapping"], properties: { data: {}, mapping: { type: "object" } } },
        governance: { read_only: true },
      },
    ),
    catalogTool("everything.echo", mcp("echo"), {
      description: "Echo a message back unchanged.",
      input_schema: { type: "object", properties: { message: { type: "string" } }, required: ["message"], additionalProperties: false },
      governance: { read_only: true },
    }),
    catalogTool("everything.get-sum", mcp("get-sum"), {
      description: "Add two numbers and return their sum.",
      input_schema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
      governance: { read_only: true, idempotent: true },
    }),
    catalogTool("everything.weather", mcp("get-structured-content"), {
      description: "Get the current weather conditions for a city as structured data.",
      input_schema: { type: "object", properties: { location: { type: "string", enum: ["New York", "Chicago", "Los Angeles"] } }, required: ["location"] },
      output_schema: weatherSchema,
    }),
    catalogTool("admin.reset", mcp("echo"), {
      description: "Reset the whole workspace, wiping every note.",
      input_schema: { type: "object", properties: { message: { type: "string" } } },
      governance: { destructive: true },
    }),
    catalogTool("git.status", mcp("echo"), {
      description: "Show the working tree status of a repository.",
      input_schema: { type: "object", properties: { message: { type: "string" } } },
      governance: { read_only: true },
    }),
  ];
}

const URL_VAR = { EVERYTHING_URL: { secret: false } };

export const mcpTestInput = (): ArtifactInput =>
  testArtifactInput(mcpTestTools(), { always_loaded: ["toolbelt.reshape"], variables: { everything: URL_VAR, admin: URL_VAR, git: URL_VAR } });

export const mcpTestBriefs = (): BriefFile[] => [{ version: 1, name: "math", description: "Do sums", tools: ["everything.get-sum", "admin.reset"] }];

export type Revision = "2026-07-28" | "2025-11-25 (v2 client)" | "2025-11-25 (v1 client)";
export const REVISIONS: Revision[] = ["2026-07-28", "2025-11-25 (v2 client)", "2025-11-25 (v1 client)"];

/** What the tests need of a connected client, whichever SDK it comes from. */
export type AnyClient = {
  listTools(): Promise<{ tools: { name: string; inputSchema: Record<string, unknown>; outputSchema?: unknown; annotations?: Record<string, unknown> }[] }>;
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<Record<string, unknown>>;
  close(): Promise<void>;
  revision(): string | undefined;
  instructions(): string | undefined;
};

export async function connect(url: string, key: string, revision: Revision, fetchImpl?: typeof fetch): Promise<AnyClient> {
  const requestInit = { headers: { authorization: `Bearer ${key}` } };
  if (revision === "2025-11-25 (v1 client)") {
    const client = new ClientV1({ name: "toolbelt-test-v1", version: "1" });
    const transport = new TransportV1(new URL(url), { requestInit, ...(fetchImpl ? { fetch: fetchImpl } : {}) });
    await client.connect(transport);
    return {
      listTools: () => client.listTools() as never,
      callTool: (p) => client.callTool(p) as never,
      close: () => client.close(),
      revision: () => transport.protocolVersion,
      instructions: () => client.getInstructions(),
    };
  }
  const client = new ClientV2(
    { name: "toolbelt-test-v2", version: "1" },
    revision === "2026-07-28" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {},
  );
  await client.connect(new TransportV2(new URL(url), { requestInit, ...(fetchImpl ? { fetch: fetchImpl } : {}) }));
  return {
    listTools: () => client.listTools() as never,
    callTool: (p) => client.callTool(p) as never,
    close: () => client.close(),
    revision: () => client.getNegotiatedProtocolVersion(),
    instructions: () => client.getInstructions(),
  };
}
