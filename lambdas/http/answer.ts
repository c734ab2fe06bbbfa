// A JSON answer a server may take as text. `c.json` builds a Response whose body is a stream, which
// the Lambda adapter then reads back (together about a fifth of a find's CPU); a JsonAnswer keeps its
// text and builds that Response only for a reader that asks for the body (Hono's other adapters, tests).
// The Node server has its own lightweight Response for `c.json` and is not handed one.
import type { Context } from "hono";
import type { AppEnv } from "./env.js";

export class JsonAnswer extends Response {
  readonly #text: string;
  #real: Response | undefined;
  #taken = false;
  constructor(value: unknown, status = 200) {
    super(null, { status, headers: { "content-type": "application/json" } });
    this.#text = JSON.stringify(value);
  }
  /**
   * The text, once, for the server that answers with it; undefined once the body was read another way.
   * It is the text a Response of it reads back: JSON.stringify escapes lone surrogates and never starts with a BOM.
   */
  takeText(): string | undefined {
    if (this.#taken || this.#real) return undefined;
    this.#taken = true;
    return this.#text;
  }
  /** The same answer as a Response with a body (its headers as they are now), made once. */
  real(): Response {
    this.#real ??= new Response(this.#taken ? null : this.#text, { status: this.status, statusText: this.statusText, headers: this.headers });
    return this.#real;
  }
  /** Taken as text, or read as a Response. */
  isUsed(): boolean {
    return this.#taken || (this.#real?.bodyUsed ?? false);
  }
  override text(): Promise<string> {
    return this.#read((r) => r.text());
  }
  override json(): Promise<unknown> {
    return this.#read((r) => r.json());
  }
  override arrayBuffer(): Promise<ArrayBuffer> {
    return this.#read((r) => r.arrayBuffer());
  }
  override bytes(): Promise<Uint8Array<ArrayBuffer>> {
    return this.#read((r) => r.bytes());
  }
  override blob(): Promise<Blob> {
    return this.#read((r) => r.blob());
  }
  override formData(): Promise<FormData> {
    return this.#read((r) => r.formData());
  }
  override clone(): Response {
    if (this.#taken) throw new TypeError("Response.clone: Body has already been consumed.");
    return this.real().clone();
  }
  /** A read of the body as a Response's; refused, as a Response refuses a second read, once the text was taken. */
  #read<T>(read: (r: Response) => Promise<T>): Promise<T> {
    return this.#taken ? Promise.reject(new TypeError("Body is unusable: Body has already been read")) : read(this.real());
  }
}
// Accessors on Response.prototype, so redefined on the subclass's (TypeScript types them as fields).
Object.defineProperties(JsonAnswer.prototype, {
  body: {
    get(this: JsonAnswer) {
      return this.real().body;
    },
  },
  bodyUsed: {
    get(this: JsonAnswer) {
      return this.isUsed();
    },
  },
});

/** Marks an answer that already carries the request's id headers (app.ts sets them on every other answer). A property, not a WeakSet: adding to one cost about 2 µs. */
const WITH_IDS = Symbol("withIds");

/** Whether `res` was made by answerJson with the request's id headers in place. */
export const carriesIds = (res: Response): boolean => (res as Response & { [WITH_IDS]?: true })[WITH_IDS] === true;

/**
 * `c.json(value)` with status 200, as a JsonAnswer where the server takes one (the Lambda adapter says so
 * in its bindings). For routes that set no status or header on `c` before answering (`c.json` merges those).
 * Under the Node server the answer is made with its `x-request-id` and `x-correlation-id` headers, as plain
 * headers the server writes as they are: app.ts setting them afterwards made it build a Headers object per
 * request and copy it back.
 */
export function answerJson<T>(c: Context<AppEnv>, value: T): Response {
  if (c.env?.textAnswers) return new JsonAnswer(value);
  const requestId = c.get("requestId");
  // A browser's request (Origin) gets CORS headers set on the answer's Headers afterwards (origin.ts), among
  // which a Content-Length of ours would be listed in another place than the server's own: made as before.
  if (c.env?.outgoing === undefined || requestId === undefined || c.req.header("origin") !== undefined) {
    return c.json(value);
  }
  const body = JSON.stringify(value);
  // The headers as the Node server writes them from a Headers object: sorted names, then its Content-Length.
  const headers: Record<string, string | number> = { "content-type": "application/json" };
  const correlationId = c.get("correlationId");
  if (correlationId !== undefined) headers["x-correlation-id"] = correlationId;
  headers["x-request-id"] = requestId;
  headers["Content-Length"] = Buffer.byteLength(body);
  // Not c.body: with more than one header it builds a Headers object, the cost this saves.
  const res = new Response(body, { status: 200, headers: headers as Record<string, string> }) as Response & { [WITH_IDS]?: true };
  res[WITH_IDS] = true;
  return res;
}
