// The http backend against a real loopback HTTP server.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHttpBackend } from "../../../lambdas/backends/http.js";
import { createCallGateway, type CallGateway } from "../../../lambdas/core/call/gateway.js";
import type { ToolbeltError } from "../../../lambdas/core/errors.js";
import { callerFor, catalogTool, declaredBy, latch, startLoopback, toolMap, type Loopback } from "./helpers.js";

const TOKEN = "tok-SECRET-9f8e7d6c";
const caller = callerFor("agent", "demo.*");

let upstream: Loopback;
let gateway: CallGateway;
const slow = latch();
let slowArrived: () => void;
const slowSeen = new Promise<void>((r) => (slowArrived = r));

beforeAll(async () => {
  upstream = await startLoopback((req, res, body) => {
    const url = new URL(req.url ?? "/", "http://x");
    const send = (status: number, type: string, text: string) => {
      res.writeHead(status, { "content-type": type });
      res.end(text);
    };
    if (url.pathname.startsWith("/echo")) {
      return send(
        200,
        "application/json",
        JSON.stringify({ method: req.method, path: url.pathname, query: [...url.searchParams], headers: req.headers, body: body ? JSON.parse(body) : null }),
      );
    }
    // An upstream that echoes the caller's credentials in its error page.
    if (url.pathname === "/fail") return send(503, "text/plain", `overloaded; you sent ${req.headers.authorization}`);
    if (url.pathname === "/text") return send(200, "text/html", "<html>not json</html>");
    if (url.pathname === "/big") return send(200, "application/json", JSON.stringify({ pad: "x".repeat(5000) }));
    if (url.pathname === "/slow") {
      slowArrived();
      void slow.promise.then(() => send(200, "application/json", '{"slow":true}'));
      return;
    }
    if (url.pathname === "/never") return; // holds the request until the client gives up
    if (url.pathname.startsWith("/status/")) return send(Number(url.pathname.slice(8)), "application/json", '{"error":"as asked"}');
    if (url.pathname === "/limited") {
      const after = url.searchParams.get("after");
      res.writeHead(429, { "content-type": "application/json", ...(after !== null ? { "retry-after": after } : {}) });
      return res.end('{"error":"slow down"}');
    }
    send(404, "text/plain", "no such path");
  });

  const base = upstream.url;
  const auth = { authorization: "Bearer ${API_TOKEN}" };
  const tools = [
    catalogTool(
      "demo.echo",
      {
        kind: "http",
        method: "POST",
        url: "${DEMO_BASE}/echo/{{input.id}}",
        headers: { ...auth, "x-trace": "{{input.trace}}" },
        query: { q: "{{input.q}}", tag: "{{input.tags}}", absent: "{{input.nothing}}" },
        body: { id: "{{input.id}}", count: "{{input.count}}", note: "n={{input.count}}" },
        output: "json",
      },
      { input_schema: { type: "object", properties: { id: { type: "string" }, count: { type: "integer" } }, required: ["id"] } },
    ),
    catalogTool("demo.fail", { kind: "http", method: "GET", url: "${DEMO_BASE}/fail", headers: auth, output: "json" }),
    catalogTool("demo.html", { kind: "http", method: "GET", url: `${base}/text`, output: "json" }),
    catalogTool("demo.html_text", { kind: "http", method: "GET", url: `${base}/text`, output: "text" }),
    catalogTool("demo.big", { kind: "http", method: "GET", url: `${base}/big`, output: "json" }),
    catalogTool("demo.slow", { kind: "http", method: "GET", url: `${base}/slow`, output: "json" }),
    catalogTool("demo.never", { kind: "http", method: "GET", url: `${base}/never`, output: "json" }, { timeout_ms: 200 }),
    catalogTool("demo.unconfigured", { kind: "http", method: "GET", url: `${base}/echo`, headers: { "x-key": "${NOT_SET}" }, output: "json" }),
    catalogTool("demo.status", { kind: "http", method: "GET", url: `${base}/status/{{input.code}}`, output: "json" }),
    catalogTool("demo.limited", { kind: "http", method: "GET", url: `${base}/limited`, query: { after: "{{input.after}}" }, output: "json" }),
    catalogTool("demo.closed", { kind: "http", method: "GET", url: "http://127.0.0.1:1/", output: "json" }),
    catalogTool(
      "demo.checked",
      { kind: "http", method: "GET", url: `${base}/echo`, output: "json" },
      { output_schema: { type: "object", properties: { method: { const: "PUT" } }, required: ["method"] } },
    ),
  ];
  gateway = createCallGateway({
    tools: toolMap(tools),
    backends: {
      http: createHttpBackend({ views: declaredBy("demo", { DEMO_BASE: base, API_TOKEN: TOKEN, NOT_SET: undefined }, ["API_TOKEN"]), maxResponseBytes: 4096 }),
    },
  });
});

afterAll(async () => {
  slow.release();
  await upstream.close();
});

describe("http backend", () => {
  it("renders URL, query, headers and a typed JSON body from the input, secrets from the env", async () => {
    const res = await gateway.call({ tool: "demo.echo", args: { id: "a/b c", count: 3, q: "x&y", tags: ["t1", "t2"], trace: "tr-1" } }, caller);
    const echo = res.result as { method: string; path: string; query: string[][]; headers: Record<string, string>; body: unknown };
    expect(echo.method).toBe("POST");
    expect(echo.path).toBe("/echo/a%2Fb%20c");
    expect(echo.query).toEqual([
      ["q", "x&y"],
      ["tag", "t1"],
      ["tag", "t2"],
    ]);
    expect(echo.headers["x-trace"]).toBe("tr-1");
    expect(echo.body).toEqual({ id: "a/b c", count: 3, note: "n=3" });
    // The upstream received the real token; the result the agent sees never carries it.
    expect(echo.headers.authorization).toBe("Bearer [redacted]");
    expect(JSON.stringify(res)).not.toContain(TOKEN);
  });

  it("answers an upstream's not-found as 404, its refusal of the input as 422, its rate limit as 429; credentials and 5xx stay 502", async () => {
    const expected: Record<number, [string, number]> = {
      400: ["UPSTREAM_REJECTED_INPUT", 422],
      409: ["UPSTREAM_REJECTED_INPUT", 422],
      413: ["UPSTREAM_REJECTED_INPUT", 422],
      422: ["UPSTREAM_REJECTED_INPUT", 422],
      404: ["UPSTREAM_NOT_FOUND", 404],
      410: ["UPSTREAM_NOT_FOUND", 404],
      401: ["UPSTREAM_ERROR", 502],
      403: ["UPSTREAM_ERROR", 502],
      429: ["UPSTREAM_RATE_LIMITED", 429],
      500: ["UPSTREAM_ERROR", 502],
    };
    for (const [status, [code, answered]] of Object.entries(expected)) {
      const err = (await gateway.call({ tool: "demo.status", args: { code: status } }, caller).catch((e: unknown) => e)) as ToolbeltError;
      expect([status, err.code, err.status, err.details.status]).toEqual([status, code, answered, Number(status)]);
    }
  });

  // An upstream's 429 used to become 502 UPSTREAM_ERROR: a caller could not tell "retry later" from a broken tool.
  it("an upstream 429 became 502: it is 429 UPSTREAM_RATE_LIMITED with the upstream's Retry-After in seconds, when it sent a valid one", async () => {
    const limited = async (retryAfter?: string) =>
      (await gateway
        .call({ tool: "demo.limited", args: retryAfter === undefined ? {} : { after: retryAfter } }, caller)
        .catch((e: unknown) => e)) as ToolbeltError;
    const err = await limited("120");
    expect([err.code, err.status, err.details.retry_after_secs]).toEqual(["UPSTREAM_RATE_LIMITED", 429, 120]);
    expect(err.message).toContain("retry after 120 s");
    // An HTTP date becomes seconds from now; one in the past is 0.
    const inAMinute = new Date(Date.now() + 60_000).toUTCString();
    expect((await limited(inAMinute)).details.retry_after_secs).toBeGreaterThanOrEqual(58);
    expect((await limited("Wed, 21 Oct 2015 07:28:00 GMT")).details.retry_after_secs).toBe(0);
    // Absent, or not a Retry-After value: not passed on.
    for (const odd of [undefined, "soon", "-5", "1e3", "12 Oct 2026"]) {
      const e = await limited(odd);
      expect([odd, e.code, "retry_after_secs" in e.details]).toEqual([odd, "UPSTREAM_RATE_LIMITED", false]);
      expect(e.message).toContain("retry later");
    }
  });

  it("turns an upstream 5xx into 502 UPSTREAM_ERROR with the status, never echoing the secret", async () => {
    const err = await gateway.call({ tool: "demo.fail", args: {} }, caller).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "UPSTREAM_ERROR", status: 502, details: { tool: "demo.fail", status: 503 } });
    expect((err as Error).message).toContain("HTTP 503");
    expect(JSON.stringify({ m: (err as Error).message, d: (err as { details: unknown }).details })).not.toContain(TOKEN);
  });

  it("turns non-JSON where JSON was promised into 502 UPSTREAM_BAD_OUTPUT", async () => {
    await expect(gateway.call({ tool: "demo.html", args: {} }, caller)).rejects.toMatchObject({
      code: "UPSTREAM_BAD_OUTPUT",
      status: 502,
      details: { content_type: "text/html" },
    });
  });

  it("wraps text output as {text}", async () => {
    await expect(gateway.call({ tool: "demo.html_text", args: {} }, caller)).resolves.toMatchObject({ result: { text: "<html>not json</html>" } });
  });

  it("refuses a response larger than the cap", async () => {
    await expect(gateway.call({ tool: "demo.big", args: {} }, caller)).rejects.toMatchObject({ code: "UPSTREAM_BAD_OUTPUT", details: { max_bytes: 4096 } });
  });

  it("answers 504 UPSTREAM_TIMEOUT when the upstream holds the request past the tool's timeout", async () => {
    await expect(gateway.call({ tool: "demo.never", args: {} }, caller)).rejects.toMatchObject({
      code: "UPSTREAM_TIMEOUT",
      status: 504,
      details: { timeout_ms: 200 },
    });
  });

  it("says which variable is missing (503) without any value", async () => {
    await expect(gateway.call({ tool: "demo.unconfigured", args: {} }, caller)).rejects.toMatchObject({
      code: "UNAVAILABLE",
      details: { variable: "NOT_SET" },
    });
  });

  it("reports an unreachable upstream as 502", async () => {
    await expect(gateway.call({ tool: "demo.closed", args: {} }, caller)).rejects.toMatchObject({ code: "UPSTREAM_ERROR", status: 502 });
  });

  it("checks output_schema and names the failing path", async () => {
    const err = await gateway.call({ tool: "demo.checked", args: {} }, caller).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "OUTPUT_SCHEMA_MISMATCH", status: 502, details: { problems: [{ path: "$.method", keyword: "const" }] } });
  });

  it("keeps answering other calls while a slow upstream holds one", async () => {
    const order: string[] = [];
    const slowCall = gateway.call({ tool: "demo.slow", args: {} }, caller).then((r) => {
      order.push("slow");
      return r;
    });
    await slowSeen; // the slow request is in flight at the upstream
    const fast = await gateway.call({ tool: "demo.echo", args: { id: "1" } }, caller);
    order.push("fast");
    expect(fast.tool).toBe("demo.echo");
    slow.release();
    await expect(slowCall).resolves.toMatchObject({ result: { slow: true } });
    expect(order).toEqual(["fast", "slow"]);
  });
});
