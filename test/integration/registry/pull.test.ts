// registry:pull against real MCP servers on loopback: server-everything, and an SDK server that paginates.
import { createServer, type Server as HttpServer } from "node:http";
import { cp, mkdtemp, readFile, rm } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadRegistry } from "../../../build/load.js";
import { pullSnapshot } from "../../../build/pull.js";
import { startEverything, type Everything } from "../../../lambdas/local/everything.js";
import { freePort } from "../../../lambdas/local/ports.js";
import { cli, ROOT } from "./cli-helpers.js";

let everything: Everything | undefined;
let everythingUrl = "";
let paged: HttpServer | undefined;
let pagedUrl = "";
const temps: string[] = [];

async function startUpstream(): Promise<void> {
  everything = await startEverything();
  everythingUrl = everything.url;
}

/** Five tools served two per page, in an order that is not sorted, to test pagination and sorting. */
async function startPaged(): Promise<void> {
  ({ server: paged, url: pagedUrl } = await pagedServer());
}

async function pagedServer(): Promise<{ server: HttpServer; url: string }> {
  const names = ["zeta", "alpha", "mu", "beta", "omega"];
  const paged = createServer((req, res) => {
    const server = new Server({ name: "paged", version: "0.1.0" }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async (request) => {
      const start = Number(request.params?.cursor ?? 0);
      const page = names
        .slice(start, start + 2)
        .map((name) => ({ name, description: `The ${name} tool.`, inputSchema: { type: "object" as const, properties: {} } }));
      return { tools: page, ...(start + 2 < names.length ? { nextCursor: String(start + 2) } : {}) };
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on("close", () => void transport.close().then(() => server.close()));
    void server.connect(transport).then(() => transport.handleRequest(req, res));
  });
  await new Promise<void>((resolve) => paged.listen(0, "127.0.0.1", resolve));
  return { server: paged, url: `http://127.0.0.1:${(paged.address() as AddressInfo).port}/mcp` };
}

beforeAll(async () => {
  await Promise.all([startUpstream(), startPaged()]);
});

afterAll(async () => {
  await everything?.close();
  await new Promise<void>((resolve) => (paged ? paged.close(() => resolve()) : resolve()));
  await Promise.all(temps.map((d) => rm(d, { recursive: true, force: true })));
});

async function registryCopy(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "toolbelt-pull-"));
  temps.push(dir);
  await cp(join(ROOT, "test/fixtures/registries/valid"), dir, { recursive: true });
  return dir;
}

describe("registry:pull", () => {
  it("snapshots server-everything's tools/list, adds the family, and the registry checks clean", async () => {
    const dir = await registryCopy();
    const r = await cli(["pull", "--url", "${MCP_UPSTREAM}", "--family", "ref", "--registry", dir], { MCP_UPSTREAM: everythingUrl });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^\d+ tools from .+ written to .*snapshots\/ref\.json; family `ref` added to families\.yaml\n$/);
    const snapshot = JSON.parse(await readFile(join(dir, "snapshots/ref.json"), "utf8")) as { version: number; tools: { name: string }[] };
    const names = snapshot.tools.map((t) => t.name);
    expect(snapshot.version).toBe(1);
    expect(names).toContain("echo");
    expect(names).toContain("get-sum");
    expect([...names].sort()).toEqual(names);
    // The endpoint is stored as the `${ENV}` reference, never expanded.
    expect(await readFile(join(dir, "families.yaml"), "utf8")).toContain("url: ${MCP_UPSTREAM}");
    const reg = await loadRegistry(dir);
    expect(reg.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    const echo = reg.catalog.tools.find((t) => t.name === "ref.echo");
    expect(echo).toMatchObject({ kind: "mcp", backend: { kind: "mcp", url: "${MCP_UPSTREAM}", tool: "echo" }, governance: { read_only: true } });
  });

  it("writes byte-identical snapshots on repeated pulls", async () => {
    const dir = await registryCopy();
    const a = await pullSnapshot({ url: everythingUrl, family: "ref", registry: dir });
    const first = await readFile(join(dir, "snapshots/ref.json"), "utf8");
    const b = await pullSnapshot({ url: everythingUrl, family: "ref", registry: dir });
    expect(a.tools).toBeGreaterThan(5);
    expect([a.familyAdded, b.familyAdded]).toEqual([true, false]);
    expect(await readFile(join(dir, "snapshots/ref.json"), "utf8")).toBe(first);
  });

  it("follows pagination cursors and sorts tools by name", async () => {
    const dir = await registryCopy();
    const r = await pullSnapshot({ url: pagedUrl, family: "paged", registry: dir });
    expect(r).toMatchObject({ tools: 5, server: "paged 0.1.0", familyAdded: true });
    const snapshot = JSON.parse(await readFile(join(dir, "snapshots/paged.json"), "utf8")) as { tools: { name: string }[] };
    expect(snapshot.tools.map((t) => t.name)).toEqual(["alpha", "beta", "mu", "omega", "zeta"]);
    expect((await loadRegistry(dir)).diagnostics).toEqual([]);
  });

  it("reports an unreachable server as a one-line error with exit 1", async () => {
    const port = await freePort();
    const dir = await registryCopy();
    const r = await cli(["pull", "--url", `http://127.0.0.1:${port}/mcp`, "--family", "gone", "--registry", dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    // It said only `fetch failed`: now the URL and the cause.
    expect(r.stderr).toBe(
      `pull: cannot pull tools/list from http://127.0.0.1:${port}/mcp: ECONNREFUSED (connection refused: is the server running, and on that port?)\n`,
    );
    const viaVariable = await cli(["pull", "--url", "${GONE_URL}", "--family", "gone", "--registry", dir], { GONE_URL: `http://127.0.0.1:${port}/mcp?key=k` });
    expect(viaVariable.stderr).toMatch(
      new RegExp(`^pull: cannot pull tools/list from \\$\\{GONE_URL\\} \\(http://127\\.0\\.0\\.1:${port}/mcp\\): ECONNREFUSED`),
    );
  });

  it("regression (issue #10): re-pulls a family from a server on a new port (the stored port made a re-pull fail), changing only the url in families.yaml", async () => {
    const dir = await registryCopy();
    const first = await cli(["pull", "--url", pagedUrl, "--family", "paged", "--registry", dir]);
    expect(first.code).toBe(0);
    const before = await readFile(join(dir, "families.yaml"), "utf8");
    const moved = await pagedServer();
    try {
      const again = await cli(["pull", "--url", moved.url, "--family", "paged", "--registry", dir]);
      expect(again.stderr).toBe("");
      expect(again.stdout).toMatch(/; family `paged` updated in families\.yaml\n$/);
      expect(await readFile(join(dir, "families.yaml"), "utf8")).toBe(before.replace(pagedUrl, moved.url));
      expect((await loadRegistry(dir)).diagnostics).toEqual([]);
    } finally {
      await new Promise<void>((resolve) => moved.server.close(() => resolve()));
    }
  });

  it("refuses to turn another family into a pulled one unless --replace, which rewrites that entry only", async () => {
    const dir = await registryCopy();
    const before = await readFile(join(dir, "families.yaml"), "utf8");
    const refused = await cli(["pull", "--url", pagedUrl, "--family", "imported", "--registry", dir]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/family `imported` already exists in .* with source \{"jsonl":"catalogs\/imported\.jsonl"\}: pass --replace to replace it/);
    const replaced = await cli(["pull", "--url", pagedUrl, "--family", "imported", "--registry", dir, "--replace"]);
    expect(replaced.stdout).toMatch(/; family `imported` replaced in families\.yaml\n$/);
    const after = await readFile(join(dir, "families.yaml"), "utf8");
    const start = before.indexOf("  - name: imported");
    expect(after.slice(0, start)).toBe(before.slice(0, start));
    expect(after.slice(start)).toContain(`url: ${pagedUrl}`);
  });
});
