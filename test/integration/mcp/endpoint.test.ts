// The MCP endpoint through a real listening server: the official v2 client under both revisions and
// the v1 client, against a real server-everything upstream, sessions in dynalite.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_SESSION_TTL_SECS } from "../../../lambdas/config.js";
import { createCallModule, type CallModule } from "../../../lambdas/http/routes/call.js";
import { createMcpModule, type McpModule } from "../../../lambdas/http/routes/mcp.js";
import { startTestApi, TEST_KEYS, type TestApi } from "../../helpers/api.js";
import { startEverything, type Everything } from "../call/helpers.js";
import { connect, mcpTestBriefs, mcpTestInput, REVISIONS, type AnyClient } from "./fixture.js";

let upstream: Everything;
let api: TestApi;
let mcp: McpModule;
let rest: CallModule;
let now = Date.now();
const INSPECTOR = "http://localhost:6274";
const open: AnyClient[] = [];

beforeAll(async () => {
  upstream = await startEverything();
  mcp = createMcpModule({ env: { EVERYTHING_URL: upstream.url }, exec: false });
  rest = createCallModule({ env: { EVERYTHING_URL: upstream.url }, exec: false });
  // The Inspector's page is listed; any other origin is refused (origin.test.ts).
  const origins = { own: [], allowed: [INSPECTOR] };
  api = await startTestApi({ input: mcpTestInput(), briefs: mcpTestBriefs(), extraRoutes: [mcp, rest], clock: () => now, config: { origins } });
});

afterAll(async () => {
  await Promise.all(open.map((c) => c.close().catch(() => undefined)));
  await api.close();
  await mcp.close();
  await rest.close();
  await upstream.stop();
});

const client = async (revision: (typeof REVISIONS)[number], as: keyof typeof TEST_KEYS = "alice", path = "/mcp") => {
  const c = await connect(api.url + path, TEST_KEYS[as], revision);
  open.push(c);
  return c;
};

type ToolResult = { content: { type: string; text?: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean };
const call = async (c: AnyClient, name: string, args: Record<string, unknown>) => (await c.callTool({ name, arguments: args })) as ToolResult;
const errorOf = (r: ToolResult) => {
  expect(r.isError, JSON.stringify(r)).toBe(true);
  return (JSON.parse(r.content[0]!.text!) as { error: { code: string; message: string; details: Record<string, unknown> } }).error;
};

describe.each(REVISIONS)("the MCP endpoint under %s", (revision) => {
  it("negotiates the revision and lists find_tool, call_tool and the always-loaded tools under model-safe names", async () => {
    const c = await client(revision);
    expect(c.revision()).toBe(revision.slice(0, 10));
    const { tools } = await c.listTools();
    expect(tools.map((t) => t.name)).toEqual(["find_tool", "call_tool", "toolbelt_reshape"]);
    for (const t of tools) expect(t.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(tools[2]!.annotations).toEqual({ readOnlyHint: true, openWorldHint: false });
    // call_tool's `tool` is a plain string (no enum of names), and nothing ungranted (admin.reset) is named anywhere.
    const tool = (tools[1]!.inputSchema.properties as Record<string, { enum?: string[] }>).tool;
    expect(tool?.enum).toBeUndefined();
    expect(JSON.stringify(tools)).not.toContain("admin");
    // Fixed per principal: a second client gets the same list, in the same order.
    expect((await (await client(revision)).listTools()).tools).toEqual(tools);
  });

  it("gives the REST surface's capability manifest as instructions: granted families only, and the closing line", async () => {
    const c = await client(revision);
    const text = c.instructions() ?? "";
    const surface = (await (await api.request("/v1/sessions", { json: {} })).json()) as {
      surface: { manifest: { families: { name: string }[]; note: string } };
    };
    for (const f of surface.surface.manifest.families) expect(text).toContain(`- ${f.name} (`);
    expect(text).not.toContain("admin");
    expect(text).toContain(surface.surface.manifest.note.replace("toolbelt.find", "find_tool"));
  });

  it("finds a tool, calls it on server-everything, and a fresh client sees the pin through the belt", async () => {
    const first = await client(revision);
    const found = await call(first, "find_tool", { query: "add two numbers" });
    expect(found.isError).toBeFalsy();
    const { belt, tools } = found.structuredContent as { belt: string; tools: { name: string; input_schema: unknown }[] };
    expect(belt).toMatch(/^[A-Za-z0-9_-]{16,64}$/);
    expect(tools[0]).toMatchObject({ name: "everything_get-sum", input_schema: { required: ["a", "b"] } });
    const explained = await call(first, "find_tool", { query: "add two numbers", belt, explain: true, limit: 1 });
    expect((explained.structuredContent as { tools: { explain: { word: string }[] }[] }).tools[0]!.explain.map((m) => m.word)).toContain("numbers");
    // The verdict's reasons too, as REST's /v1/find gives them (regression: find_tool dropped them).
    const restFind = (await (await api.request("/v1/find", { json: { query: "add two numbers", explain: true, limit: 1 } })).json()) as {
      verdict_reasons: unknown[];
    };
    expect(restFind.verdict_reasons.length).toBeGreaterThan(0);
    expect((explained.structuredContent as { verdict_reasons: unknown[] }).verdict_reasons).toEqual(restFind.verdict_reasons);

    const sum = await call(first, "call_tool", { tool: "everything_get-sum", args: { a: 2, b: 3 }, belt });
    expect(sum.isError).toBeFalsy();
    expect(sum.content[0]!.text).toContain("5");
    expect(sum.content.at(-1)!.text).toContain(`pinned on belt ${belt}`);
    await first.close();

    // A later request, a new client (on Lambda: any instance): the pin is on the belt.
    const later = await client(revision);
    const again = await call(later, "find_tool", { query: "echo a message", belt });
    const structured = again.structuredContent as { belt: string; pinned: { name: string; description: string }[] };
    expect(structured.belt).toBe(belt);
    // Pins are named with one line each, not repeated in full in every answer.
    expect(structured.pinned).toEqual([{ name: "everything_get-sum", description: expect.any(String) }]);
    // The REST surface of the same session shows it too: one concept, two names.
    const surface = await api.request(`/v1/sessions/${belt}/surface`);
    const pinned = ((await surface.json()) as { surface: { pins: { tools: { name: string }[] } } }).surface.pins.tools.map((p) => p.name);
    expect(pinned).toEqual(["everything.get-sum"]);
  });

  it("passes an upstream's structuredContent and content through", async () => {
    const c = await client(revision);
    const weather = await call(c, "call_tool", { tool: "everything.weather", args: { location: "Chicago" } });
    expect(weather.isError, JSON.stringify(weather)).toBeFalsy();
    expect(weather.structuredContent).toMatchObject({ conditions: expect.any(String), temperature: expect.any(Number) });
    const echo = await call(c, "call_tool", { tool: "everything_echo", args: { message: "hi" } });
    expect(echo.content[0]).toEqual({ type: "text", text: "Echo: hi" });
  });

  it("answers a bad argument with an isError result carrying REST's 422 code, message and problems", async () => {
    const c = await client(revision);
    const r = await call(c, "call_tool", { tool: "everything_get-sum", args: { a: "two" } });
    const error = errorOf(r);
    expect(error.code).toBe("INVALID_ARGUMENTS");
    expect(error.message).toMatch(/^the arguments for everything\.get-sum do not match its input schema/);
    expect(error.details.problems).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: "$.a", keyword: "type" }), expect.objectContaining({ path: "$.b", keyword: "required" })]),
    );
    const rest = await api.request("/v1/call", { json: { tool: "everything_get-sum", args: { a: "two" } } });
    expect(rest.status).toBe(422);
    expect(((await rest.json()) as { error: unknown }).error).toEqual(error);
    // The meta-tools' own arguments too.
    expect(errorOf(await call(c, "call_tool", { args: {} })).code).toBe("INVALID_ARGUMENTS");
  });

  it("refuses an ungranted tool by every spelling, directly and through call_tool, and never reaches the upstream", async () => {
    const c = await client(revision);
    for (const name of ["admin.reset", "admin_reset", "Admin.Reset", "admin-reset", "ADMIN_RESET", "reset", "admin.rest"]) {
      for (const [tool, args] of [
        ["call_tool", { tool: name, args: { message: "wipe" } }],
        [name, { message: "wipe" }],
      ] as const) {
        // A direct call of a name no granted tool has is a protocol error (-32602), as the MCP spec says of unknown tools.
        const r = await call(c, tool, args).catch((e: { code?: number }) => e);
        if (tool === name && !("content" in r)) {
          expect(r.code, `${tool} ${name}`).toBe(-32602);
          continue;
        }
        const error = errorOf(r as ToolResult);
        expect(["TOOL_NOT_GRANTED", "TOOL_NOT_FOUND"], `${tool} ${name}`).toContain(error.code);
        if (tool === name) expect(error.code, `${name}: only an exact ungranted name is a tool error`).toBe("TOOL_NOT_GRANTED");
        expect(JSON.stringify(r)).not.toContain("Echo: wipe");
      }
    }
  });

  it("answers an unknown or another principal's belt with REST's 404 code, and an expired one with 410", async () => {
    const c = await client(revision);
    expect(errorOf(await call(c, "find_tool", { query: "echo", belt: "no-such-belt-0123456789" })).code).toBe("SESSION_NOT_FOUND");
    const bobs = await call(await client(revision, "bob"), "find_tool", { query: "status" });
    const bobBelt = (bobs.structuredContent as { belt: string }).belt;
    expect(errorOf(await call(c, "call_tool", { tool: "everything_echo", args: { message: "x" }, belt: bobBelt })).code).toBe("SESSION_NOT_FOUND");

    const mine = (await call(c, "find_tool", { query: "echo" })).structuredContent as { belt: string };
    now += (DEFAULT_SESSION_TTL_SECS + 1) * 1000;
    try {
      const expired = errorOf(await call(c, "call_tool", { tool: "everything_echo", args: { message: "x" }, belt: mine.belt }));
      expect(expired.code).toBe("SESSION_EXPIRED");
      expect(expired.message).toBe(`belt "${mine.belt}" expired: call find_tool without \`belt\` to open a new one`);
    } finally {
      now = Date.now();
    }
  });

  it("says what to do in MCP's words (regression: errors told an MCP client to use toolbelt.find and POST /v1/sessions)", async () => {
    const c = await client(revision);
    const unknown = errorOf(await call(c, "find_tool", { query: "echo", belt: "no-such-belt-0123456789" }));
    expect(unknown.message).toBe('no belt "no-such-belt-0123456789" for this API key: call find_tool without `belt` to open a new one');
    expect(errorOf(await call(c, "find_tool", { query: "echo", belt: "nope" })).message).toContain("belt: a belt id as find_tool returns it");
    const missing = errorOf(await call(c, "call_tool", { tool: "no.such_tool_at_all" }));
    expect(missing.message).toContain("use find_tool to search the tools you may call");
    for (const e of [unknown, missing]) expect(e.message).not.toMatch(/toolbelt\.find|POST \/v1/);
    // find_tool's MCP name through call_tool is find_tool (it answered "no tool named find_tool; did you mean find_tool?").
    const viaCall = await call(c, "call_tool", { tool: "find_tool", args: { query: "echo a message", limit: 1 } });
    expect(viaCall.isError, JSON.stringify(viaCall)).toBeFalsy();
    expect(JSON.stringify(viaCall.structuredContent)).toContain("everything.echo");
  });

  it("lists a brief's declared tools, as far as they are granted, under /mcp/briefs/{brief}", async () => {
    const c = await client(revision, "alice", "/mcp/briefs/math");
    const names = (await c.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(["find_tool", "call_tool", "everything_get-sum", "toolbelt_reshape"]);
    const sum = await call(c, "everything_get-sum", { a: 20, b: 22 });
    expect(sum.content[0]!.text).toContain("42");
  });
});

describe("the MCP endpoint over plain HTTP", () => {
  const post = (body: unknown, headers: Record<string, string> = {}, path = "/mcp") =>
    fetch(api.url + path, {
      method: "POST",
      headers: { authorization: `Bearer ${TEST_KEYS.alice}`, "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
      body: JSON.stringify(body),
    });

  it("answers GET and DELETE with 405 and Allow: POST", async () => {
    for (const method of ["GET", "DELETE"]) {
      const res = await fetch(`${api.url}/mcp`, { method, headers: { authorization: `Bearer ${TEST_KEYS.alice}` } });
      expect(res.status, method).toBe(405);
      expect(res.headers.get("allow")).toBe("POST");
    }
  });

  it("asks for a bearer key with 401 and WWW-Authenticate, readable by a browser", async () => {
    const res = await fetch(`${api.url}/mcp`, { method: "POST", headers: { "content-type": "application/json", origin: INSPECTOR }, body: "{}" });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe('Bearer realm="toolbelt"');
    expect(res.headers.get("access-control-allow-origin")).toBe(INSPECTOR);
  });

  it("answers a browser preflight with the MCP headers allowed and Mcp-Session-Id exposed", async () => {
    const res = await fetch(`${api.url}/mcp`, {
      method: "OPTIONS",
      headers: {
        origin: INSPECTOR,
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization,content-type,mcp-protocol-version,mcp-method,mcp-name",
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe(INSPECTOR);
    const allowed = (res.headers.get("access-control-allow-headers") ?? "").toLowerCase();
    for (const h of ["authorization", "mcp-protocol-version", "mcp-session-id", "mcp-method", "mcp-name", "content-type"]) expect(allowed).toContain(h);
    const post = await fetch(`${api.url}/mcp`, { method: "GET", headers: { origin: INSPECTOR } });
    expect((post.headers.get("access-control-expose-headers") ?? "").toLowerCase()).toContain("mcp-session-id");
  });

  it("answers a 2025 notification with 202", async () => {
    const res = await post({ jsonrpc: "2.0", method: "notifications/initialized" });
    expect(res.status).toBe(202);
  });

  it("answers an unknown brief with 404", async () => {
    const res = await post({ jsonrpc: "2.0", id: 1, method: "tools/list" }, {}, "/mcp/briefs/nope");
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("NOT_FOUND");
  });

  it("refuses 2026-07-28 requests whose Mcp-Method or Mcp-Name header is missing or does not match the body (400, -32020)", async () => {
    const envelope = {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
      "io.modelcontextprotocol/clientCapabilities": {},
    };
    const body = { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "find_tool", arguments: { query: "echo" }, _meta: envelope } };
    const good = { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "find_tool" };
    const ok = await post(body, good);
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { result: { isError?: boolean } }).result.isError).toBeFalsy();
    const refused: Record<string, string>[] = [
      { "mcp-protocol-version": "2026-07-28", "mcp-name": "find_tool" },
      { ...good, "mcp-method": "tools/list" },
      { ...good, "mcp-name": "call_tool" },
      { "mcp-method": "tools/call", "mcp-name": "find_tool" },
    ];
    for (const headers of refused) {
      const res = await post(body, headers);
      expect(res.status, JSON.stringify(headers)).toBe(400);
      expect(((await res.json()) as { error: { code: number } }).error.code, JSON.stringify(headers)).toBe(-32020);
    }
  });
});
