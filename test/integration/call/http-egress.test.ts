// The http backend's egress rules against real loopback servers: one the tools may reach (it records
// every request) and one standing for everything else (it must never see a request).
import fc from "fast-check";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { climbs, createHttpBackend } from "../../../lambdas/backends/http.js";
import { createCallGateway, type CallGateway } from "../../../lambdas/core/call/gateway.js";
import type { Backend } from "../../../registry/contract/artifact.js";
import { callerFor, catalogTool, declaredBy, startLoopback, toolMap, type Loopback } from "./helpers.js";

type Seen = { method: string; url: string; headers: Record<string, unknown> };

const caller = callerFor("agent", "demo.*");
const TOKEN = "tok-EGRESS-5b4a3c2d";
let upstream: Loopback;
let elsewhere: Loopback;
let second: Loopback;
let gateway: CallGateway;
const seen: Seen[] = [];
const seenElsewhere: Seen[] = [];
const seenSecond: Seen[] = [];

const record = (into: Seen[]) => (req: { method?: string; url?: string; headers: Record<string, unknown> }) =>
  into.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers });

const http = (url: string, over: Partial<Extract<Backend, { kind: "http" }>> = {}): Backend => ({ kind: "http", method: "GET", url, output: "json", ...over });
const strings = (...names: string[]) => ({ type: "object", properties: Object.fromEntries(names.map((n) => [n, { type: "string" }])) });

beforeAll(async () => {
  elsewhere = await startLoopback((req, res) => {
    record(seenElsewhere)(req);
    res.end('{"elsewhere":true}');
  });
  second = await startLoopback((req, res) => {
    record(seenSecond)(req);
    res.end('{"second":true}');
  });
  upstream = await startLoopback((req, res) => {
    record(seen)(req);
    const path = new URL(req.url ?? "/", "http://x").pathname;
    const redirect = (status: number, location: string) => {
      res.writeHead(status, { location });
      res.end();
    };
    if (path === "/go/out") return redirect(302, `${elsewhere.url}/stolen`);
    if (path === "/go/in") return redirect(301, "/landed");
    if (path === "/go/see-other") return redirect(303, "/landed");
    if (path === "/go/second") return redirect(307, `${second.url}/landed`);
    if (path === "/go/loop") return redirect(302, "/go/loop");
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ path, method: req.method }));
  });

  const tools = [
    catalogTool("demo.tags", http("${BASE}/notes/{{input.id}}/tags"), { input_schema: strings("id") }),
    catalogTool("demo.search", http("${BASE}/search?q={{input.q}}&limit=5", { query: { tag: "{{input.tag}}" } }), { input_schema: strings("q", "tag") }),
    catalogTool("demo.traced", http("${BASE}/traced", { headers: { "x-trace": "id-{{input.trace}}" } }), { input_schema: strings("trace") }),
    // Built before the build rejected it: the artifact still carries a URL the input chooses.
    catalogTool("demo.fetch", http("{{input.url}}"), { input_schema: strings("url") }),
    catalogTool("demo.host", http("http://{{input.host}}/x"), { input_schema: strings("host") }),
    // The registry allows one origin, the variable behind the URL points at another.
    catalogTool("demo.misconfigured", http("${ELSEWHERE}/x", { egress: ["${BASE}"] })),
    catalogTool("demo.based", http("${BASE_WITH_PATH}/notes", { egress: ["${BASE_WITH_PATH}"] })),
    catalogTool("demo.go", http("${BASE}/go/{{input.where}}", { method: "POST", body: { a: 1 }, headers: { authorization: "Bearer ${TOKEN}" } }), {
      input_schema: strings("where"),
    }),
    catalogTool("demo.go_two", http("${BASE}/go/{{input.where}}", { headers: { authorization: "Bearer ${TOKEN}" }, egress: ["${BASE}", "${SECOND}"] }), {
      input_schema: strings("where"),
    }),
  ];
  const env = { BASE: upstream.url, BASE_WITH_PATH: `${upstream.url}/api/v1`, ELSEWHERE: elsewhere.url, SECOND: second.url, TOKEN };
  gateway = createCallGateway({ tools: toolMap(tools), backends: { http: createHttpBackend({ views: declaredBy("demo", env, ["TOKEN"]) }) } });
});

afterAll(async () => {
  await Promise.all([upstream.close(), elsewhere.close(), second.close()]);
});

beforeEach(() => {
  seen.length = 0;
  seenElsewhere.length = 0;
  seenSecond.length = 0;
});

const call = (tool: string, args: Record<string, unknown>) => gateway.call({ tool, args }, caller);

describe("http egress: path templates", () => {
  it("regression (finding 5): `/notes/{{input.id}}/tags` with id `..` no longer climbs to /tags; 422 names the argument", async () => {
    const err = await call("demo.tags", { id: ".." }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "INVALID_ARGUMENTS", status: 422, details: { tool: "demo.tags", argument: "id" } });
    expect((err as Error).message).toMatchInlineSnapshot(
      `"demo.tags: \`id\` fills a path segment of the URL and may not be \`.\` or \`..\` (nor their percent-encoded, backslash, \`..;\` or Unicode forms): send the name itself, not a relative path"`,
    );
    expect(seen).toEqual([]);
  });

  it.each([
    ".",
    "../..",
    "a/../..",
    "..%2f..",
    "%2e%2e",
    "%2E%2e",
    ".%2e",
    "%2e",
    "%252e%252e",
    "%25252e%25252e",
    "..\\admin",
    "a\\..",
    "%2e%2e%5c",
    "%2e%2e/%",
  ])("refuses the dot segment %j before sending anything", async (id) => {
    await expect(call("demo.tags", { id })).rejects.toMatchObject({ code: "INVALID_ARGUMENTS", details: { argument: "id" } });
    expect(seen).toEqual([]);
  });

  it("keeps names that only contain dots, and every reserved character, inside their own segment", async () => {
    for (const id of ["...", ".hidden", "a..b", "v1.2"]) {
      await expect(call("demo.tags", { id })).resolves.toMatchObject({ result: { path: `/notes/${id}/tags` } });
    }
    // `/`, `?`, `#`, `@`, `:` and `%` are data: encodeURIComponent keeps the request on /notes/<one segment>/tags.
    const { result } = await call("demo.tags", { id: "a/b?admin=1#frag@evil.example:1%2f" });
    expect(result).toEqual({ path: "/notes/a%2Fb%3Fadmin%3D1%23frag%40evil.example%3A1%252f/tags", method: "GET" });
    expect(seen.map((s) => s.url)).toEqual([
      ...["...", ".hidden", "a..b", "v1.2"].map((id) => `/notes/${id}/tags`),
      "/notes/a%2Fb%3Fadmin%3D1%23frag%40evil.example%3A1%252f/tags",
    ]);
  });

  it("property: any string in a path parameter is refused as a climb or arrives as exactly one segment of /notes/<id>/tags", async () => {
    // Biased towards the characters of dot segments and their encodings, plus arbitrary text.
    const tricky = fc.stringMatching(/^[.%25eE2fFcC5\\/a]{0,12}$/);
    await fc.assert(
      fc.asyncProperty(fc.oneof(tricky, fc.string({ unit: "grapheme", maxLength: 12 })), async (id) => {
        seen.length = 0;
        const outcome = await call("demo.tags", { id }).then(
          () => "sent",
          (e: unknown) => e,
        );
        if (outcome !== "sent") {
          expect(outcome).toMatchObject({ code: "INVALID_ARGUMENTS", details: { argument: "id" } });
          expect(climbs(id)).toBe(true);
          expect(seen).toEqual([]);
          return;
        }
        expect(seen.map((r) => r.url)).toEqual([`/notes/${encodeURIComponent(id)}/tags`]);
        expect(decodeURIComponent(seen[0]!.url.split("/")[2]!)).toBe(id);
      }),
      { numRuns: 150 },
    );
  });

  // Issue 24: each of these passed the check before and reached the upstream.
  it.each([
    ["..;", "a `;` parameter (servlet containers drop it, then resolve `..`)"],
    ["..;jsessionid=x", "a `;` parameter with a value"],
    [".;", "`.` with a `;` parameter"],
    ["..%3b", "an encoded `;`"],
    ["\uFF0E\uFF0E", "full-width dots (U+FF0E)"],
    ["\uFF0E.", "a full-width dot beside an ASCII one"],
    ["\u2025", "the two dot leader (NFKC: `..`)"],
    ["\uFE52\uFE52", "small full stops (U+FE52)"],
    ["a\uFF0F..", "a full-width slash before `..`"],
    ["\uFF3C..", "a full-width backslash"],
    ["%EF%BC%8E%EF%BC%8E", "percent-encoded full-width dots"],
    ["%25EF%25BC%258E%25EF%25BC%258E", "double-encoded full-width dots"],
    ["%c0%ae%c0%ae", "overlong UTF-8 dots"],
    ["%e0%80%ae.", "a three-byte overlong dot"],
    ["%2E%2e%5C", "mixed-case escapes with an encoded backslash"],
  ])("refuses %j (%s) with a 422 naming the argument, before sending anything", async (id) => {
    await expect(call("demo.tags", { id })).rejects.toMatchObject({ code: "INVALID_ARGUMENTS", status: 422, details: { argument: "id" } });
    expect(seen).toEqual([]);
  });

  it("property: a dot segment spelled with any mix of ASCII, full-width and encoded dots, `;` parameters and separators is refused", () => {
    const dot = fc.constantFrom(".", "%2e", "%2E", "%252e", "\uFF0E", "\uFE52", "%EF%BC%8E", "%c0%ae");
    const sep = fc.constantFrom("/", "\\", "%2f", "%5C", "\uFF0F", "\uFF3C");
    const segment = fc.tuple(fc.array(dot, { minLength: 1, maxLength: 2 }), fc.constantFrom("", ";", ";x=1", "%3b"));
    const around = fc.stringMatching(/^[a-z0-9]{0,6}$/);
    fc.assert(
      fc.property(around, sep, segment, sep, around, fc.boolean(), fc.boolean(), (a, s1, [dots, param], s2, b, lead, trail) => {
        expect(climbs(`${lead ? a + s1 : ""}${dots.join("")}${param}${trail ? s2 + b : ""}`)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it("climbs() sees through every decoding a server might apply", () => {
    expect(["..", "%2e%2E", "%%32%65%2e"].map(climbs)).toEqual([true, true, true]);
    expect(["..%", "x..", "%2e%2e%2e", ""].map(climbs)).toEqual([false, false, false, false]);
  });
});

describe("http egress: query and header values", () => {
  it("keeps `&`, `=` and `#` from the input inside one query value (URL template and query map alike)", async () => {
    await call("demo.search", { q: "a&admin=1#x", tag: "t&limit=999" });
    const url = new URL(seen[0]!.url, "http://x");
    expect([...url.searchParams]).toEqual([
      ["q", "a&admin=1#x"],
      ["limit", "5"],
      ["tag", "t&limit=999"],
    ]);
  });

  it("refuses CR/LF (header injection), NUL and non-Latin-1 in header values as a 422 naming the argument", async () => {
    for (const trace of ["x\r\nx-injected: 1", "x\nx-injected: 1", "x\u0000y", "日本"]) {
      await expect(call("demo.traced", { trace })).rejects.toMatchObject({
        code: "INVALID_ARGUMENTS",
        status: 422,
        message: expect.stringContaining("`trace` is sent as an HTTP header value and may not contain line breaks"),
      });
    }
    expect(seen).toEqual([]);
    await call("demo.traced", { trace: "ok\ttab" });
    expect(seen[0]!.headers["x-trace"]).toBe("id-ok\ttab");
  });
});

describe("http egress: origins", () => {
  it("regression (finding 5): `url: {{input.url}}` in an old artifact sends nothing, whatever the URL", async () => {
    for (const url of [`${elsewhere.url}/stolen`, `${upstream.url}/notes`]) {
      const err = await call("demo.fetch", { url }).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: "EGRESS_DENIED", status: 502 });
      expect((err as Error).message).toMatchInlineSnapshot(
        `"demo.fetch takes its URL's scheme, host or port from the input, so it may reach any origin, outside its egress allow-list ({{input.url}}); the deployment must fix the tool's \`url\` (the build rejects it) and rebuild the artifact"`,
      );
    }
    await expect(call("demo.host", { host: elsewhere.url.slice("http://".length) })).rejects.toMatchObject({ code: "EGRESS_DENIED" });
    expect([...seen, ...seenElsewhere]).toEqual([]);
  });

  it("refuses an origin the registry does not allow with a 502 that tells the operator what to change", async () => {
    const err = await call("demo.misconfigured", {}).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "EGRESS_DENIED", status: 502, details: { tool: "demo.misconfigured", egress: ["${BASE}"] } });
    // The resolved origin is a variable's value, so it is redacted like every other one.
    expect((err as Error).message).toMatchInlineSnapshot(
      `"demo.misconfigured resolves to [redacted], outside its egress allow-list (\${BASE}); the deployment must add that origin to the family's \`egress\`, or correct the variable the URL is built from"`,
    );
    expect(seenElsewhere).toEqual([]);
  });

  it("reads a `${VAR}` base URL with a path as its origin", async () => {
    await expect(call("demo.based", {})).resolves.toMatchObject({ result: { path: "/api/v1/notes" } });
  });
});

describe("http egress: redirects", () => {
  it("does not follow a redirect out of the allow-list: 502 EGRESS_DENIED, the other origin sees nothing", async () => {
    const err = await call("demo.go", { where: "out" }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "EGRESS_DENIED", status: 502 });
    expect((err as Error).message).toContain("was redirected by its upstream to http://127.0.0.1:");
    expect(seenElsewhere).toEqual([]);
  });

  it("follows redirects inside the allow-list, as fetch would (303 and 301-after-POST become GET)", async () => {
    await expect(call("demo.go", { where: "in" })).resolves.toMatchObject({ result: { path: "/landed", method: "GET" } });
    await expect(call("demo.go", { where: "see-other" })).resolves.toMatchObject({ result: { path: "/landed", method: "GET" } });
    expect(seen.filter((s) => s.url === "/landed").every((s) => s.headers.authorization === `Bearer ${TOKEN}`)).toBe(true);
  });

  it("drops the credentials when a redirect crosses to another allowed origin", async () => {
    await expect(call("demo.go_two", { where: "second" })).resolves.toEqual({ tool: "demo.go_two", result: { second: true } });
    expect(seen[0]!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(seenSecond).toHaveLength(1);
    expect(seenSecond[0]!.headers.authorization).toBeUndefined();
  });

  it("gives up after a bounded number of redirects", async () => {
    await expect(call("demo.go", { where: "loop" })).rejects.toMatchObject({
      code: "UPSTREAM_ERROR",
      message: expect.stringContaining("redirected more than 5 times"),
    });
    expect(seen).toHaveLength(6);
  });
});
