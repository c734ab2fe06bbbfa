// The http backend encodes a body as the tool's Content-Type says (issue 28: form and multipart
// operations were refused on import): url-encoded fields with arrays repeated, multipart parts with
// files from their base64 object, and a file part that is not base64 refused as the caller's mistake.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHttpBackend } from "../../../../lambdas/backends/http.js";
import { familyViews } from "../../../../lambdas/backends/variables.js";
import { createCallGateway, type CallGateway } from "../../../../lambdas/core/call/gateway.js";
import { callerFor, catalogTool, startLoopback, toolMap, type Loopback } from "../../call/helpers.js";

const caller = callerFor("agent", "*");
const seen: { type: string; body: string }[] = [];
let upstream: Loopback;
let gateway: CallGateway;

beforeAll(async () => {
  upstream = await startLoopback((req, res, body) => {
    seen.push({ type: String(req.headers["content-type"]), body });
    res.setHeader("content-type", "application/json");
    res.end("{}");
  });
  const form = (type: string) => ({
    kind: "http" as const,
    method: "POST",
    url: "${BASE}/submit",
    headers: { "Content-Type": type },
    body: "{{input.body}}",
    output: "json" as const,
  });
  const tools = [catalogTool("f.urlencoded", form("application/x-www-form-urlencoded")), catalogTool("f.multipart", form("multipart/form-data"))];
  const views = familyViews([{ name: "f", variables: { BASE: { secret: false } } }], { BASE: upstream.url });
  gateway = createCallGateway({ tools: toolMap(tools), backends: { http: createHttpBackend({ views }) } });
});

afterAll(() => upstream.close());

describe("form bodies", () => {
  it("url-encodes fields: strings as they are, numbers and booleans as JSON writes them, an array as repeated fields", async () => {
    seen.length = 0;
    await gateway.call({ tool: "f.urlencoded", args: { body: { q: "a b&c", n: 2, ok: false, tag: ["x", "y"] } } }, caller);
    expect(seen[0]).toEqual({ type: "application/x-www-form-urlencoded", body: "q=a+b%26c&n=2&ok=false&tag=x&tag=y" });
  });

  it("sends multipart parts, a file from its base64 object with its name and media type", async () => {
    seen.length = 0;
    const file = { content_base64: Buffer.from("hello").toString("base64"), filename: "h.txt", content_type: "text/plain" };
    await gateway.call({ tool: "f.multipart", args: { body: { note: "hi", doc: file } } }, caller);
    const form = await new Request("http://x", { method: "POST", headers: { "content-type": seen[0]!.type }, body: seen[0]!.body }).formData();
    expect(form.get("note")).toBe("hi");
    const doc = form.get("doc") as File;
    expect([doc.name, doc.type, await doc.text()]).toEqual(["h.txt", "text/plain", "hello"]);
  });

  it("refuses a file part whose content is not base64, naming the argument", async () => {
    const r = await gateway.call({ tool: "f.multipart", args: { body: { doc: { content_base64: "not base64!" } } } }, caller).catch((e: unknown) => e);
    expect(r).toMatchObject({ code: "INVALID_ARGUMENTS" });
  });
});
