// Upstreams that misbehave, with real parts: server-everything behind a loopback proxy that hangs,
// resets the connection or answers garbage on tools/call (the official SDK client on our side), an
// exec tool that floods stdout without end, and an http upstream answering 10 MB. Each ends as a
// structured error that says what happened, and the next call works again.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createExecBackend, DEFAULT_MAX_OUTPUT_BYTES } from "../../../lambdas/backends/exec.js";
import { createHttpBackend, DEFAULT_MAX_RESPONSE_BYTES } from "../../../lambdas/backends/http.js";
import { createMcpBackend, type McpBackend } from "../../../lambdas/backends/mcp.js";
import { createCallGateway, type CallGateway } from "../../../lambdas/core/call/gateway.js";
import type { ToolbeltError } from "../../../lambdas/core/errors.js";
import { startEverything, type Everything } from "../../../lambdas/local/everything.js";
import { callerFor, catalogTool, declaredBy, type Loopback, startLoopback, toolMap } from "../call/helpers.js";
import { startFaultProxy } from "./proxy.js";

type Mode = "pass" | "hang" | "reset" | "garbage" | "not-jsonrpc";

let everything: Everything;
let proxy: Loopback;
let mode: Mode = "pass";
let big: Loopback;
let mcp: McpBackend;
let gateway: CallGateway;
const caller = callerFor("alice", "*");
const TEN_MB = 10 * 1024 * 1024;

/** Passes MCP traffic to server-everything, except tools/call, which it handles as `mode` says. */
const misbehavingProxy = (target: string) =>
  startFaultProxy(target, (req, res, body) => {
    const toolCall = body.length > 0 && (JSON.parse(body) as { method?: string }).method === "tools/call";
    if (!toolCall || mode === "pass") return false;
    if (mode === "reset") req.socket.destroy();
    else if (mode !== "hang") {
      // "hang" holds the request until the client gives up; the others answer 200 with what is not JSON-RPC.
      res.writeHead(200, { "content-type": "application/json" });
      res.end(mode === "garbage" ? "}{ this is not JSON-RPC" : '{"hello":"world"}');
    }
    return true;
  });

beforeAll(async () => {
  everything = await startEverything();
  proxy = await misbehavingProxy(everything.url);
  const mcpUrl = `${proxy.url}/mcp`;
  const payload = Buffer.alloc(TEN_MB, "x");
  big = await startLoopback((req, res) => {
    // With a length the gateway can refuse before reading; chunked, it must stop reading at the cap.
    const sized = req.url === "/sized";
    res.writeHead(200, { "content-type": "application/json", ...(sized ? { "content-length": String(payload.length + 2) } : {}) });
    res.write('"');
    res.write(payload);
    res.end('"');
  });
  mcp = createMcpBackend({ views: declaredBy("everything", {}) });
  gateway = createCallGateway({
    tools: toolMap([
      // One upstream connection (same URL), two budgets: the hang test waits out the short one.
      catalogTool("everything.echo", { kind: "mcp", url: mcpUrl, tool: "echo" }, { timeout_ms: 30_000 }),
      catalogTool("everything.echo_briefly", { kind: "mcp", url: mcpUrl, tool: "echo" }, { timeout_ms: 1000 }),
      // coreutils' yes writes without end (and without buffering in memory as a Node loop would).
      catalogTool("sh.flood", { kind: "exec", command: "yes", args: ["flood"], output: "text" }, { timeout_ms: 30_000 }),
      catalogTool("web.big", { kind: "http", method: "GET", url: `${big.url}/chunked`, output: "json" }),
      catalogTool("web.big_sized", { kind: "http", method: "GET", url: `${big.url}/sized`, output: "json" }),
    ]),
    backends: {
      mcp,
      exec: createExecBackend({ env: process.env, views: declaredBy("sh", {}) }),
      http: createHttpBackend({ views: declaredBy("web", {}) }),
    },
  });
});

afterAll(async () => {
  mode = "pass";
  await mcp?.close();
  await proxy?.close();
  await big?.close();
  await everything?.close();
});

const failure = (tool: string, args: Record<string, unknown> = {}) =>
  gateway.call({ tool, args }, caller).then(
    () => {
      throw new Error(`${tool} was expected to fail`);
    },
    (e: unknown) => e as ToolbeltError,
  );
const echo = async () => JSON.stringify((await gateway.call({ tool: "everything.echo", args: { message: "still here" } }, caller)).result);

describe("an MCP upstream that misbehaves on tools/call", () => {
  it("hangs: 504 UPSTREAM_TIMEOUT at the tool's timeout, then serves again", async () => {
    expect(await echo()).toContain("still here");
    mode = "hang";
    const e = await failure("everything.echo_briefly", { message: "hello" });
    expect([e.code, e.status, e.details.timeout_ms]).toEqual(["UPSTREAM_TIMEOUT", 504, 1000]);
    mode = "pass";
    expect(await echo()).toContain("still here");
  });

  it("resets the connection: 502 UPSTREAM_ERROR, then serves again", async () => {
    mode = "reset";
    const e = await failure("everything.echo", { message: "hello" });
    expect([e.code, e.status]).toEqual(["UPSTREAM_ERROR", 502]);
    expect(e.message).toMatch(/^everything\.echo: the MCP upstream failed/);
    mode = "pass";
    expect(await echo()).toContain("still here");
  });

  it("answers garbage: 502 UPSTREAM_BAD_OUTPUT saying it was not JSON-RPC, then serves again", async () => {
    for (const garbage of ["garbage", "not-jsonrpc"] as const) {
      mode = garbage;
      const e = await failure("everything.echo", { message: "hello" });
      expect([garbage, e.code, e.status]).toEqual([garbage, "UPSTREAM_BAD_OUTPUT", 502]);
      expect(e.message).toMatch(/^everything\.echo: the MCP upstream answered something that is not JSON-RPC/);
      mode = "pass";
      expect(await echo()).toContain("still here");
    }
  });
});

describe("an exec tool that floods stdout without end", () => {
  it("is killed at the output cap with 502 UPSTREAM_BAD_OUTPUT naming the cap", async () => {
    const e = await failure("sh.flood");
    expect([e.code, e.status, e.details.max_bytes]).toEqual(["UPSTREAM_BAD_OUTPUT", 502, DEFAULT_MAX_OUTPUT_BYTES]);
    expect(e.message).toContain(`more than ${DEFAULT_MAX_OUTPUT_BYTES} bytes to stdout`);
  });
});

describe("an http upstream answering 10 MB", () => {
  it("is capped, with or without a content length, and the error says so", async () => {
    for (const tool of ["web.big", "web.big_sized"]) {
      const e = await failure(tool);
      expect([tool, e.code, e.status, e.details.max_bytes]).toEqual([tool, "UPSTREAM_BAD_OUTPUT", 502, DEFAULT_MAX_RESPONSE_BYTES]);
      expect(e.message).toContain(`more than ${DEFAULT_MAX_RESPONSE_BYTES} bytes`);
    }
  });
});
