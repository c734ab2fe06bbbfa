// The lean payload v2 adapter against hono/aws-lambda's `handle` on the same events (a differential
// test): what the app sees of a request and what API Gateway gets back must not differ.
import type { APIGatewayProxyEventV2, APIGatewayProxyEvent, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import fc from "fast-check";
import { Hono } from "hono";
import { handle } from "hono/aws-lambda";
import { describe, expect, it } from "vitest";
import { DEFAULT_HTTP_LIMITS, DEFAULT_SURFACE_BOUNDS } from "../../../../lambdas/config.js";
import { lambdaHandler } from "../../../../lambdas/handlers/adapter.js";
import { createApp } from "../../../../lambdas/http/app.js";
import { createDeps } from "../../../../lambdas/http/deps.js";
import { memoryLogger } from "../../../../lambdas/http/logger.js";
import { testBriefs, testPolicy, TEST_KEYS } from "../../../helpers/api.js";
import { memoryTestArtifact } from "../../../helpers/artifact.js";
import { httpApiV2Event, lambdaContext, type V2EventInput } from "../../../helpers/lambda-events.js";
import { MemorySessionStore } from "../../../helpers/memory-store.js";

type Env = { Bindings: { event: APIGatewayProxyEventV2; requestContext: unknown; lambdaContext: { awsRequestId: string } } };

/** Routes that show what the app sees of a request, read every way the gateway's routes read one. */
function echoApp(): Hono<Env> {
  const app = new Hono<Env>();
  const seen = (c: { req: { raw: Request; url: string; method: string }; env: Env["Bindings"] }) => ({
    method: c.req.method,
    url: c.req.url,
    headers: Object.fromEntries(c.req.raw.headers),
    env: {
      event: c.env.event.requestContext.requestId,
      requestContext: c.env.requestContext === c.env.event.requestContext,
      lambda: c.env.lambdaContext.awsRequestId,
    },
  });
  app.all("/text", async (c) => c.json({ ...seen(c), text: await c.req.text() }));
  app.post("/json", async (c) => c.json({ json: await c.req.json() }));
  app.post("/bytes", async (c) => c.json({ bytes: Buffer.from(await c.req.arrayBuffer()).toString("hex") }));
  app.post("/raw", async (c) => c.json({ raw: await c.req.raw.text() }));
  // Node 20's and 24's Request.bytes(), and a Request made from the app's with the bytes read off its stream (as Hono's body limit does).
  app.post("/raw-bytes", async (c) => c.json({ bytes: Buffer.from(await (c.req.raw as Request & { bytes(): Promise<Uint8Array> }).bytes()).toString("hex") }));
  app.post("/rewrap", async (c) => {
    const read = await new Response(c.req.raw.body).arrayBuffer();
    return c.json({ used: c.req.raw.bodyUsed, rewrapped: await new Request(c.req.raw, { body: read }).text() });
  });
  app.post("/twice", async (c) => c.json({ text: await c.req.raw.text(), again: await c.req.raw.arrayBuffer() }));
  app.post("/clone", async (c) => c.json({ clone: await c.req.raw.clone().text(), text: await c.req.raw.text() }));
  app.post("/stream", async (c) => c.json({ streamed: await new Response(c.req.raw.body).text() }));
  app.post("/form", async (c) => c.json({ form: await c.req.parseBody() }));
  app.post("/blob", async (c) => {
    const copy = c.req.raw.clone();
    return c.json({ blob: await (await c.req.blob()).text(), type: (await copy.blob()).type });
  });
  app.get("/query", (c) => c.json({ queries: c.req.queries(), url: c.req.url }));
  app.get("/cookies", (c) => {
    c.header("set-cookie", "a=1; Path=/", { append: true });
    c.header("set-cookie", "b=2; HttpOnly", { append: true });
    c.header("x-multi", "one", { append: true });
    c.header("x-multi", "two", { append: true });
    return c.json({ cookie: c.req.header("cookie") ?? null });
  });
  app.get("/binary", (c) => c.body(new Uint8Array(Array.from({ length: 256 }, (_, i) => i)), 200, { "content-type": "image/png" }));
  app.get("/gzip", (c) => c.body("not really gzip", 200, { "content-type": "text/plain", "content-encoding": "gzip" }));
  app.get("/identity", (c) => c.body("plain", 200, { "content-type": "text/plain", "content-encoding": "identity" }));
  app.get("/none", (c) => c.body(null, 204));
  app.get("/bom", (c) => c.body(new Uint8Array([0xef, 0xbb, 0xbf, 0x68, 0xff, 0x69]), 200, { "content-type": "text/plain" }));
  app.get("/chunks", () => {
    // "é" split across two chunks, then more chunks: the body is read whole before it is decoded.
    const parts = [new Uint8Array([0x61, 0xc3]), new Uint8Array([0xa9, 0x62]), new TextEncoder().encode("ç".repeat(5000))];
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = parts.shift();
        if (next) controller.enqueue(next);
        else controller.close();
      },
    });
    return new Response(stream, { headers: { "content-type": "application/json" } });
  });
  app.get(
    "/binary-chunks",
    () => new Response(new Blob([new Uint8Array([1, 2]), new Uint8Array([3, 0xff])]).stream(), { headers: { "content-type": "application/octet-stream" } }),
  );
  app.get("/untyped", () => new Response("no content type"));
  return app;
}

const context = lambdaContext();

// biome-ignore lint/suspicious/noExplicitAny: any app, whatever its bindings.
type AnyApp = Hono<any>;

/** Both adapters' answers to the same event. */
async function both(app: AnyApp, event: unknown): Promise<[APIGatewayProxyStructuredResultV2, APIGatewayProxyStructuredResultV2]> {
  const ours = await lambdaHandler(app, memoryLogger())(event as APIGatewayProxyEventV2, context);
  const hono = (await handle(app)(event as Parameters<ReturnType<typeof handle>>[0], context)) as APIGatewayProxyStructuredResultV2;
  return [ours, hono];
}

async function same(app: AnyApp, event: unknown): Promise<APIGatewayProxyStructuredResultV2> {
  const [ours, hono] = await both(app, event);
  expect(ours).toEqual(hono);
  return ours;
}

const v2 = (input: V2EventInput & { cookies?: string[] }) => {
  const { cookies, ...rest } = input;
  return { ...httpApiV2Event(rest), ...(cookies ? { cookies } : {}) };
};
const bodyOf = (r: APIGatewayProxyStructuredResultV2) => JSON.parse(String(r.body)) as Record<string, unknown>;

describe("the payload v2 adapter, beside hono/aws-lambda's", () => {
  const app = echoApp();

  it("hands the app the same method, URL, headers, text and Lambda bindings", async () => {
    const res = await same(app, v2({ method: "POST", path: "/text", body: "héllo", headers: { "content-type": "text/plain", "x-name": "zoë" } }));
    expect(bodyOf(res)).toMatchObject({ text: "héllo", headers: { "content-length": "6", "x-name": "zo%C3%AB" }, env: { requestContext: true } });
  });

  it("reads base64 bodies as bytes, text and JSON", async () => {
    const bytes = Buffer.from([0, 1, 2, 0xff, 0xfe, 0x80]);
    await same(app, { ...v2({ method: "POST", path: "/bytes", body: "x" }), body: bytes.toString("base64"), isBase64Encoded: true });
    const json = await same(app, v2({ method: "POST", path: "/json", body: { query: "ünïcode" }, base64: true }));
    expect(bodyOf(json)).toEqual({ json: { query: "ünïcode" } });
  });

  it("decodes invalid UTF-8 in a base64 body, and lone surrogates in a text body, as Request.text() does", async () => {
    const invalid = Buffer.from([0x61, 0xc3, 0x28, 0xed, 0xa0, 0x80, 0xf0, 0x9f, 0x98, 0x62]).toString("base64");
    const res = await same(app, { ...v2({ method: "POST", path: "/text", body: "x" }), body: invalid, isBase64Encoded: true });
    expect(bodyOf(res).text).toContain("\ufffd");
    const lone = await same(app, v2({ method: "POST", path: "/text", body: "a\ud800b\udc00c" }));
    expect(bodyOf(lone)).toMatchObject({ text: "a\ufffdb\ufffdc", headers: { "content-length": "9" } });
    await same(app, v2({ method: "POST", path: "/bytes", body: "a\ud800b" }));
  });

  it("drops a leading byte order mark from the text but keeps it in the bytes and the length", async () => {
    const res = await same(app, v2({ method: "POST", path: "/text", body: "\ufeff{}" }));
    expect(bodyOf(res)).toMatchObject({ text: "{}", headers: { "content-length": "5" } });
    await same(app, v2({ method: "POST", path: "/bytes", body: "\ufeff{}" }));
    await same(app, { ...v2({ method: "POST", path: "/text", body: "x" }), body: Buffer.from("\ufeffbom").toString("base64"), isBase64Encoded: true });
  });

  it("answers every way of reading the body: the raw Request, its stream, a form, a blob, a clone", async () => {
    const raw = await same(app, v2({ method: "POST", path: "/raw", body: '{"token":"t"}' }));
    expect(bodyOf(raw)).toEqual({ raw: '{"token":"t"}' });
    expect(bodyOf(await same(app, v2({ method: "POST", path: "/clone", body: "c" })))).toEqual({ clone: "c", text: "c" });
    const streamed = await same(app, v2({ method: "POST", path: "/stream", body: "streamed body" }));
    expect(bodyOf(streamed)).toEqual({ streamed: "streamed body" });
    const form = await same(app, v2({ method: "POST", path: "/form", body: "a=1&b=two", headers: { "content-type": "application/x-www-form-urlencoded" } }));
    expect(bodyOf(form)).toEqual({ form: { a: "1", b: "two" } });
    const blob = await same(app, v2({ method: "POST", path: "/blob", body: "blob", headers: { "content-type": "text/plain" } }));
    expect(bodyOf(blob)).toEqual({ blob: "blob", type: "text/plain" });
  });

  it("answers Request.bytes(), and a Request made from the app's with the bytes its stream gave, as Hono does (regression: 0 bytes, no body)", async () => {
    const bytes = Buffer.from([0, 1, 0xff, 0x80]);
    const raw = await same(app, { ...v2({ method: "POST", path: "/raw-bytes", body: "x" }), body: bytes.toString("base64"), isBase64Encoded: true });
    expect(bodyOf(raw)).toEqual({ bytes: "0001ff80" });
    expect(bodyOf(await same(app, v2({ method: "POST", path: "/raw-bytes", body: "héllo" })))).toEqual({ bytes: Buffer.from("héllo").toString("hex") });
    expect(bodyOf(await same(app, v2({ method: "POST", path: "/rewrap", body: '{"a":1}' })))).toEqual({ used: true, rewrapped: '{"a":1}' });
  });

  it("reads a body once, as a Request does: a second read fails the same way", async () => {
    expect((await same(app, v2({ method: "POST", path: "/twice", body: "once" }))).statusCode).toBe(500);
  });

  it("passes query strings with repeated and encoded keys as they came", async () => {
    const res = await same(app, v2({ method: "GET", path: "/query?a=1&a=2&b=%20x&c" }));
    expect(bodyOf(res)).toEqual({ queries: { a: ["1", "2"], b: [" x"], c: [""] }, url: "https://api.example.test/query?a=1&a=2&b=%20x&c" });
  });

  it("joins request cookies into Cookie and returns set-cookie as v2 cookies, other repeated headers joined", async () => {
    const res = await same(app, v2({ method: "GET", path: "/cookies", cookies: ["x=1", "y=2"] }));
    expect(res.cookies).toEqual(["a=1; Path=/", "b=2; HttpOnly"]);
    expect(res.headers).toMatchObject({ "x-multi": "one, two" });
    expect(res.headers).not.toHaveProperty("set-cookie");
    expect(bodyOf(res)).toEqual({ cookie: "x=1; y=2" });
  });

  it("base64-encodes binary content types and encoded bodies, and not identity or text", async () => {
    const bin = await same(app, v2({ method: "GET", path: "/binary" }));
    expect(bin.isBase64Encoded).toBe(true);
    expect(Buffer.from(String(bin.body), "base64")).toHaveLength(256);
    expect((await same(app, v2({ method: "GET", path: "/gzip" }))).isBase64Encoded).toBe(true);
    expect((await same(app, v2({ method: "GET", path: "/identity" }))).isBase64Encoded).toBe(false);
    expect((await same(app, v2({ method: "GET", path: "/untyped" }))).isBase64Encoded).toBe(false);
  });

  it("reads streamed and oddly encoded answers as Hono does: chunks, a split character, a BOM, invalid UTF-8", async () => {
    expect((await same(app, v2({ method: "GET", path: "/chunks" }))).body).toMatch(/^aéb(ç)+$/);
    expect((await same(app, v2({ method: "GET", path: "/bom" }))).body).toBe("h\ufffdi");
    expect((await same(app, v2({ method: "GET", path: "/binary-chunks" }))).body).toBe(Buffer.from([1, 2, 3, 0xff]).toString("base64"));
  });

  it("builds the same headers from names in any case, the cookie header beside v2 cookies", async () => {
    const event = v2({ method: "POST", path: "/text", body: "h", cookies: ["a=1"] });
    const res = await same(app, { ...event, headers: { ...event.headers, "X-Case": "upper", "x-case": "lower", cookie: "from-header=1", "x-empty": "" } });
    expect(bodyOf(res).headers).toMatchObject({ "x-case": "lower", cookie: "from-header=1" });
  });

  it("answers empty bodies, 204s and HEAD as Hono does", async () => {
    const empty = await same(app, v2({ method: "POST", path: "/text", body: "" }));
    expect(bodyOf(empty)).toMatchObject({ text: "" });
    expect(bodyOf(empty).headers).not.toHaveProperty("content-length");
    expect(await same(app, v2({ method: "GET", path: "/none" }))).toMatchObject({ statusCode: 204, body: "" });
    const head = await same(app, v2({ method: "HEAD", path: "/text" }));
    expect(head).toMatchObject({ statusCode: 200, body: "" });
  });

  it("refuses what cannot be a Request with 400, as Hono does (a GET with a body, a bad header), and bad base64 with 500", async () => {
    const bad = { ...v2({ method: "POST", path: "/text", body: "x" }), body: "not base64!", isBase64Encoded: true };
    expect((await same(app, bad)).statusCode).toBe(500);
    expect((await same(app, v2({ method: "GET", path: "/text", body: "x" }))).statusCode).toBe(400);
    expect((await same(app, v2({ method: "get", path: "/text", body: "x" }))).statusCode).toBe(400);
    expect((await same(app, v2({ method: "POST", path: "/text", body: "x", headers: { "bad header": "v" } }))).statusCode).toBe(400);
  });

  it("logs a refused header by its name, never its value (regression: a key in Authorization reached the log)", async () => {
    const logger = memoryLogger();
    const event = v2({ method: "POST", path: "/text", body: "x", headers: { authorization: "Bearer secret-key-0123\u0000" } });
    expect((await lambdaHandler(app, logger)(event, context)).statusCode).toBe(400);
    expect(logger.entries).toEqual([{ level: "error", message: "the event does not make a request", fields: { error: "TypeError", header: "authorization" } }]);
    expect(JSON.stringify(logger.entries)).not.toContain("secret-key");
  });

  it("answers with multiValueHeaders to an event that carries them, as Hono does", async () => {
    const res = await same(app, { ...v2({ method: "GET", path: "/cookies" }), multiValueHeaders: {} });
    expect(res).toHaveProperty("multiValueHeaders");
  });

  it("hands other event kinds (payload v1) to Hono's adapter", async () => {
    const v1 = {
      httpMethod: "POST",
      path: "/text",
      headers: { host: "api.example.test", "content-type": "text/plain" },
      multiValueHeaders: { "x-many": ["a", "b"] },
      multiValueQueryStringParameters: null,
      queryStringParameters: null,
      body: "v1 body",
      isBase64Encoded: false,
      requestContext: { requestId: "r1", domainName: "api.example.test" },
    } as unknown as APIGatewayProxyEvent;
    const res = await same(app, v1);
    expect(JSON.parse(String((res as { body: string }).body))).toMatchObject({ text: "v1 body", headers: { "x-many": "a, b" } });
  });

  it("holds for any text or bytes, on every body route (property)", async () => {
    const routes = fc.constantFrom("/text", "/bytes", "/raw", "/stream", "/json");
    const text = fc.string({ unit: "binary", maxLength: 200 }).map((body) => ({ body, isBase64Encoded: false }));
    const bytes = fc.uint8Array({ maxLength: 200 }).map((b) => ({ body: Buffer.from(b).toString("base64"), isBase64Encoded: true }));
    await fc.assert(
      fc.asyncProperty(routes, fc.oneof(text, bytes), async (path, b) => {
        await same(app, { ...v2({ method: "POST", path, body: "x", headers: { "content-type": "text/plain" } }), ...b });
      }),
      { numRuns: 300 },
    );
  });
});

describe("settle: work the app leaves running, before Lambda freezes", () => {
  const app = echoApp();
  const event = v2({ method: "POST", path: "/text", body: "x" });

  it("answers only once pending work finished", async () => {
    let finished = false;
    const settle = () =>
      new Promise<void>((resolve) =>
        setImmediate(() => {
          finished = true;
          resolve();
        }),
      );
    expect((await lambdaHandler(app, memoryLogger(), { settle })(event, context)).statusCode).toBe(200);
    expect(finished).toBe(true);
  });

  it("answers without it when the work hangs (bounded, and never into the invocation's last 100 ms), and says so", async () => {
    const logger = memoryLogger();
    const hung = { settle: () => new Promise(() => undefined), settleMaxMs: 10 };
    expect((await lambdaHandler(app, logger, hung)(event, context)).statusCode).toBe(200);
    const closing = { ...context, getRemainingTimeInMillis: () => 50 };
    const failing = lambdaHandler(app, logger, { settle: () => new Promise(() => undefined), settleMaxMs: 60_000 });
    expect((await failing(event, closing)).statusCode).toBe(200);
    expect(logger.entries.map((e) => e.message)).toEqual(["answered before pending work finished", "answered before pending work finished"]);
    expect(logger.entries[1]?.fields).toEqual({ waited_ms: 0 });
  });
});

describe("the gateway's app behind the adapter", () => {
  // A 1 KB body limit, so an oversized body stays small.
  const http = { ...DEFAULT_HTTP_LIMITS, maxBodyBytes: 1024 };
  const gateway = async () =>
    createApp(
      createDeps({
        config: { http, surface: DEFAULT_SURFACE_BOUNDS, sessionTtlSecs: 60 },
        artifact: await memoryTestArtifact(),
        store: new MemorySessionStore(),
        logger: memoryLogger(),
        policy: testPolicy(),
        briefs: testBriefs(),
      }),
    );
  const auth = { authorization: `Bearer ${TEST_KEYS.alice}` };

  it("refuses an oversized body that declares no length, or a false one, with 413", async () => {
    const app = await gateway();
    const big = JSON.stringify({ query: "x".repeat(http.maxBodyBytes) });
    for (const headers of [auth, { ...auth, "content-length": "10" }]) {
      const res = await same(app, v2({ method: "POST", path: "/v1/find", body: big, headers }));
      expect(res.statusCode).toBe(413);
      expect(bodyOf(res)).toMatchObject({ error: { code: "PAYLOAD_TOO_LARGE" } });
    }
    const encoded = await same(app, v2({ method: "POST", path: "/v1/find", body: big, headers: auth, base64: true }));
    expect(encoded.statusCode).toBe(413);
  });

  it("finds with a JSON body, plain or base64, and refuses bad JSON as Hono's adapter does", async () => {
    const app = await gateway();
    // The answer taken as text (JsonAnswer) is the one Hono's adapter reads off c.json's Response: body and headers.
    for (const body of [{ query: "recent commits" }, { query: "recent commits", explain: true, schemas: "all" }]) {
      expect((await same(app, v2({ method: "POST", path: "/v1/find", body, headers: { ...auth, "x-correlation-id": "c-1" } }))).statusCode).toBe(200);
    }
    const handler = lambdaHandler(app, memoryLogger());
    for (const base64 of [false, true]) {
      const res = await handler(v2({ method: "POST", path: "/v1/find", body: { query: "recent commits" }, headers: auth, base64 }), context);
      expect(res.statusCode).toBe(200);
      expect(bodyOf(res)).toHaveProperty("tools");
    }
    const bad = await handler(v2({ method: "POST", path: "/v1/find", body: "{not json", headers: { ...auth, "content-type": "application/json" } }), context);
    expect(bad.statusCode).toBe(400);
    expect(bodyOf(bad)).toMatchObject({ error: { code: "BAD_JSON" } });
  });
});
