// The Lambda adapter for API Gateway HTTP API (payload v2) events: hono/aws-lambda's `handle` with the
// same results, minus the request body's round trip through a stream. Hono's adapter encodes the event
// body into a Request and the route reads it back through a ReadableStream; here the Request carries no
// stream and answers text()/json()/arrayBuffer() from the event's body directly, and the answer's body
// is read off its stream once. Other event kinds (v1, ALB, Lattice) go to Hono's adapter unchanged.
// Lambda freezes the process once the handler returns, so work the app leaves running (audit writes)
// is awaited, bounded, before the answer goes back: the `settle` option.
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context as LambdaContext } from "aws-lambda";
import type { Hono } from "hono";
import { defaultIsContentTypeBinary, handle, type LambdaEvent } from "hono/aws-lambda";
import { decodeBase64 } from "hono/utils/encode";
import { JsonAnswer } from "../http/answer.js";
import { jsonLogger, type Logger } from "../http/logger.js";

// biome-ignore lint/suspicious/noExplicitAny: any Hono app, whatever its bindings.
type App = Hono<any>;
export type LambdaHandler = (event: LambdaEvent | APIGatewayProxyEventV2, lambdaContext: LambdaContext) => Promise<APIGatewayProxyStructuredResultV2>;

/** How long the answer may wait for `settle` at most (ms), unless told otherwise. */
export const SETTLE_MAX_MS = 200;
/** Time left to the invocation that `settle` never eats into (ms): the answer still goes back before the deadline. */
export const SETTLE_MARGIN_MS = 100;

export type AdapterOptions = {
  /** Work to finish before the answer goes back (pending audit writes), waited at most `settleMaxMs` and never into the invocation's last SETTLE_MARGIN_MS. */
  settle?: () => Promise<unknown>;
  settleMaxMs?: number;
};

const utf8 = new TextDecoder();
const encoder = new TextEncoder();
const NON_ASCII = /[\u0080-\uffff]/;
const IDENTITY = /^identity$/i;

/** The event's body as a Request would hold it: its bytes (base64 decoded, or the text's UTF-8) and its text, each made once when first asked for. */
class EventBody {
  #bytes: Uint8Array | undefined;
  /** The event's text with lone surrogates as U+FFFD, as TextEncoder encodes it (base64 bodies have none). */
  readonly #source: string | undefined;
  #text: string | undefined;
  readonly length: number;
  constructor(body: string, base64: boolean) {
    if (base64) {
      this.#bytes = decodeBase64(body);
      this.length = this.#bytes.length;
    } else {
      // ES2024, in Node since 20; the project's lib is ES2023.
      this.#source = (body as string & { toWellFormed(): string }).toWellFormed();
      this.length = Buffer.byteLength(this.#source, "utf8");
    }
  }
  text(): string {
    if (this.#text === undefined) {
      // As Request.text() decodes: invalid bytes become U+FFFD and a leading BOM is dropped.
      const source = this.#source;
      this.#text = source === undefined ? utf8.decode(this.#bytes) : source.charCodeAt(0) === 0xfeff ? source.slice(1) : source;
    }
    return this.#text;
  }
  bytes(): Uint8Array {
    this.#bytes ??= encoder.encode(this.#source ?? "");
    return this.#bytes;
  }
}

/**
 * A Request whose body is read from the event, not through a stream. As a Request's, the body is read
 * once: a second read, or a read after the stream was taken, is refused with the same TypeError. The
 * Request underneath holds no body: a body stream costs a ReadableStream per request (about a tenth of
 * a find's CPU), so `body` makes one only when asked for. The one thing that cannot see the body is
 * `new Request(req)` without a body of its own; no route does that (Hono's body limit passes one).
 */
class EventRequest extends Request {
  readonly #body: EventBody;
  #used = false;
  #stream: ReadableStream<Uint8Array> | undefined;
  constructor(url: string, init: RequestInit, body: EventBody) {
    super(url, init);
    this.#body = body;
  }
  /** The body as a stream, made on first use; pulling it reads the body. */
  bodyStream(): ReadableStream<Uint8Array> {
    if (this.#stream) return this.#stream;
    const take = () => this.#take();
    this.#stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(take().bytes().slice());
        controller.close();
      },
    });
    return this.#stream;
  }
  /** The body, marked read; refused if it was read before. */
  #take(): EventBody {
    if (this.#used) throw new TypeError("Body is unusable: Body has already been read");
    this.#used = true;
    return this.#body;
  }
  /** The body for a read through this class, which the stream must not have been taken for. */
  #read(): EventBody {
    if (this.#stream?.locked) throw new TypeError("Body is unusable: Body has already been read");
    return this.#take();
  }
  /** A Response holding the same bytes and content type, for the reads this class does not answer itself. */
  #asResponse(body: EventBody): Response {
    const type = this.headers.get("content-type");
    return new Response(body.bytes() as Uint8Array<ArrayBuffer>, type ? { headers: { "content-type": type } } : {});
  }
  override text(): Promise<string> {
    try {
      return Promise.resolve(this.#read().text());
    } catch (error) {
      return Promise.reject(error);
    }
  }
  override json(): Promise<unknown> {
    return this.text().then((t) => JSON.parse(t));
  }
  // Node 20's and 24's Request has bytes(): without this override it would read the (empty) inner body.
  override bytes(): Promise<Uint8Array<ArrayBuffer>> {
    try {
      return Promise.resolve(this.#read().bytes().slice() as Uint8Array<ArrayBuffer>);
    } catch (error) {
      return Promise.reject(error);
    }
  }
  override arrayBuffer(): Promise<ArrayBuffer> {
    try {
      const b = this.#read().bytes();
      return Promise.resolve(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer);
    } catch (error) {
      return Promise.reject(error);
    }
  }
  override blob(): Promise<Blob> {
    return this.#readAs((r) => r.blob());
  }
  override formData(): Promise<FormData> {
    return this.#readAs((r) => r.formData());
  }
  #readAs<T>(read: (r: Response) => Promise<T>): Promise<T> {
    try {
      return read(this.#asResponse(this.#read()));
    } catch (error) {
      return Promise.reject(error);
    }
  }
  override clone(): Request {
    if (this.isUsed()) throw new TypeError("Request.clone: Body has already been consumed.");
    const { method, headers, signal, redirect, referrer, referrerPolicy, mode, credentials, cache, integrity, keepalive } = this;
    const init = { method, headers, signal, redirect, referrer, referrerPolicy, mode, credentials, cache, integrity, keepalive };
    return new EventRequest(this.url, init, this.#body);
  }
  /** Read through this class or its stream, or the stream taken by a reader. */
  isUsed(): boolean {
    return this.#used || (this.#stream?.locked ?? false);
  }
}
// Accessors on Request.prototype, so redefined on the subclass's (TypeScript types them as fields).
Object.defineProperties(EventRequest.prototype, {
  body: {
    get(this: EventRequest) {
      return this.bodyStream();
    },
  },
  bodyUsed: {
    get(this: EventRequest) {
      return this.isUsed();
    },
  },
});

function sanitizeHeaderValue(value: string): string {
  return NON_ASCII.test(value) ? encodeURIComponent(value) : value;
}

/** The Request Hono's v2 processor would build, with the body kept out of the stream. */
function createRequest(event: APIGatewayProxyEventV2): Request {
  const query = event.rawQueryString;
  const host = event.requestContext.domainName ?? event.headers?.host;
  const url = `https://${host}${event.rawPath}${query ? `?${query}` : ""}`;
  // A record, not a Headers object the Request would copy again; later names win, as Headers.set has it.
  const headers: Record<string, string> = {};
  if (Array.isArray(event.cookies)) headers.cookie = event.cookies.join("; ");
  if (event.headers) {
    for (const k in event.headers) {
      const v = event.headers[k];
      if (v) headers[k.toLowerCase()] = sanitizeHeaderValue(v);
    }
  }
  const method = event.requestContext.http.method;
  if (!event.body) return new Request(url, { method, headers });
  const body = new EventBody(event.body, event.isBase64Encoded);
  headers["content-length"] = String(body.length);
  // A GET or HEAD Request may not carry a body: Hono's adapter then fails with a TypeError (a 400).
  const upper = method.toUpperCase();
  if (upper === "GET" || upper === "HEAD") throw new TypeError(`Request with ${upper} method cannot have body.`);
  return new EventRequest(url, { method, headers }, body);
}

/** A Response's body bytes, read off its stream directly (Response.text() costs twice as much on Node 20). */
async function bodyBytes(res: Response): Promise<Uint8Array> {
  if (!res.body) return new Uint8Array(0);
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}

/** The answer's body as API Gateway takes it: text, or base64 of its bytes. */
async function resultBody(res: Response, isBase64Encoded: boolean): Promise<string> {
  const text = !isBase64Encoded && res instanceof JsonAnswer ? res.takeText() : undefined;
  if (text !== undefined) return text;
  const bytes = await bodyBytes(res);
  // `utf8` decodes as Response.text() does (U+FFFD for invalid bytes, a leading BOM dropped).
  return isBase64Encoded ? Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64") : utf8.decode(bytes);
}

/** Hono's createResult for a v2 event: the body as text, or base64 for binary types and encoded bodies. */
async function createResult(event: APIGatewayProxyEventV2, res: Response): Promise<APIGatewayProxyStructuredResultV2> {
  const contentType = res.headers.get("content-type");
  const encoding = res.headers.get("content-encoding");
  const isBase64Encoded = (contentType ? defaultIsContentTypeBinary(contentType) : false) || (!!encoding && !IDENTITY.test(encoding));
  const body = await resultBody(res, isBase64Encoded);
  const headers: Record<string, string> = {};
  const result: APIGatewayProxyStructuredResultV2 = { body, statusCode: res.status, isBase64Encoded };
  // A v2 event has no multiValueHeaders; Hono answers in that shape for one that does, and so does this.
  const multi = "multiValueHeaders" in event && event.multiValueHeaders ? ({} as Record<string, string[]>) : undefined;
  if (res.headers.has("set-cookie")) result.cookies = res.headers.getSetCookie();
  res.headers.forEach((value, key) => {
    if (key === "set-cookie") return;
    if (multi) multi[key] = [value];
    else headers[key] = value;
  });
  if (multi) Object.assign(result, { multiValueHeaders: multi });
  else result.headers = headers;
  return result;
}

function isV2(event: LambdaEvent | APIGatewayProxyEventV2): event is APIGatewayProxyEventV2 {
  return Object.hasOwn(event, "rawPath") && Object.hasOwn((event as { requestContext?: object }).requestContext ?? {}, "http");
}

/** The name of the first header a Request refuses, if any: logged instead of the error's message, which holds the value. */
function refusedHeader(event: APIGatewayProxyEventV2): string | undefined {
  for (const k in event.headers ?? {}) {
    const v = event.headers[k];
    if (!v) continue;
    try {
      new Headers([[k, sanitizeHeaderValue(v)]]);
    } catch {
      return k.toLowerCase();
    }
  }
  return undefined;
}

/** Waits for `settle`, at most `maxMs` and never into the invocation's last SETTLE_MARGIN_MS; a failure or a late end is logged, never thrown. */
async function settled(settle: () => Promise<unknown>, lambdaContext: LambdaContext, maxMs: number, logger: Logger): Promise<void> {
  const remaining = typeof lambdaContext?.getRemainingTimeInMillis === "function" ? lambdaContext.getRemainingTimeInMillis() : Number.POSITIVE_INFINITY;
  const bound = Math.max(0, Math.min(maxMs, remaining - SETTLE_MARGIN_MS));
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), bound);
  });
  const done = settle().then(
    () => true,
    () => true,
  );
  const finished = await Promise.race([done, late]);
  clearTimeout(timer);
  if (!finished) logger.warn("answered before pending work finished", { waited_ms: bound });
}

/** `handle(app)` from hono/aws-lambda, with payload v2 events served without body streams. */
export function lambdaHandler(app: App, logger: Logger = jsonLogger(), options: AdapterOptions = {}): LambdaHandler {
  const other = handle(app) as LambdaHandler;
  const { settle, settleMaxMs = SETTLE_MAX_MS } = options;
  const serve: LambdaHandler = async (event, lambdaContext) => {
    if (!isV2(event)) return other(event, lambdaContext);
    let req: Request;
    try {
      req = createRequest(event);
    } catch (error) {
      // The name only: a header's TypeError quotes its value (an Authorization key with a NUL in it).
      const header = error instanceof TypeError ? refusedHeader(event) : undefined;
      logger.error("the event does not make a request", { error: error instanceof Error ? error.name : typeof error, ...(header ? { header } : {}) });
      return createResult(
        event,
        error instanceof TypeError ? new Response("Invalid request", { status: 400 }) : new Response("Internal Server Error", { status: 500 }),
      );
    }
    const res = await app.fetch(req, { event, requestContext: event.requestContext, lambdaContext, textAnswers: true });
    return createResult(event, res);
  };
  if (!settle) return serve;
  return async (event, lambdaContext) => {
    try {
      return await serve(event, lambdaContext);
    } finally {
      await settled(settle, lambdaContext, settleMaxMs, logger);
    }
  };
}
