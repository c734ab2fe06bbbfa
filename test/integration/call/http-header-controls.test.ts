// POST /v1/call with control characters in arguments, through the whole REST app and a real loopback
// upstream. Before the fix: an argument that fills a header value with a control character other than
// CR, LF and NUL (BEL, ESC, DEL, ...) passed the backend's check, then made fetch throw, and the call
// answered 502 UPSTREAM_ERROR for the caller's own mistake. Now every control character but tab is a
// 422 INVALID_ARGUMENTS naming the argument, checked before anything is sent; the same characters in a
// query or path value are percent-encoded and reach the upstream intact.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { CatalogTool } from "../../../registry/contract/artifact.js";
import { createCallModule, type CallModule } from "../../../lambdas/http/routes/call.js";
import { DynamoMissStore } from "../../../lambdas/stores/misses.js";
import { startTestApi, type TestApi } from "../../helpers/api.js";
import { testArtifactInput } from "../../helpers/artifact.js";
import { startDynalite, type TestDynamo } from "../../helpers/dynalite.js";
import { catalogTool, startLoopback, type Loopback } from "./helpers.js";

type Seen = { path: string; query: [string, string][]; headers: Record<string, string | string[] | undefined> };
const seen: Seen[] = [];
let upstream: Loopback;
let dynamo: TestDynamo;
let api: TestApi;
let calls: CallModule;

const strings = (...names: string[]) => ({ type: "object", properties: Object.fromEntries(names.map((n) => [n, { type: "string" }])) });

function tools(base: string): CatalogTool[] {
  return [
    catalogTool(
      "widgets.traced",
      {
        kind: "http",
        method: "GET",
        url: `${base}/widgets/{{input.id}}`,
        query: { q: "{{input.q}}" },
        headers: { "x-trace": "{{input.trace}}", "x-label": "label-{{input.label}}" },
        output: "json",
      },
      { description: "Read a widget, traced.", input_schema: strings("id", "q", "trace", "label") },
    ),
  ];
}

beforeAll(async () => {
  upstream = await startLoopback((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    const entry = { path: decodeURIComponent(url.pathname), query: [...url.searchParams] as [string, string][], headers: req.headers };
    seen.push(entry);
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(entry));
  });
  dynamo = await startDynalite();
  calls = createCallModule({ env: {}, misses: new DynamoMissStore(dynamo.client, dynamo.table) });
  api = await startTestApi({ input: testArtifactInput(tools(upstream.url)), briefs: [], dynamo, extraRoutes: [calls] });
});

afterAll(async () => {
  await api?.close();
  await calls?.close();
  await dynamo?.close();
  await upstream?.close();
});

beforeEach(() => {
  seen.length = 0;
});

const call = (args: Record<string, string>) => api.request("/v1/call", { as: "alice", json: { tool: "widgets.traced", args: { id: "w1", ...args } } });

type Refusal = { error: { code: string; message: string; details: { tool: string; argument: string; problems: { path: string }[] } } };

/** Control characters fetch refuses in a header value (RFC 9110 field-value: no CTL but HTAB). */
const CONTROLS = { NUL: "\0", BEL: "\x07", BS: "\b", LF: "\n", VT: "\v", FF: "\f", CR: "\r", ESC: "\x1b", US: "\x1f", DEL: "\x7f" };

describe("POST /v1/call with a control character in an argument", () => {
  for (const [name, c] of Object.entries(CONTROLS)) {
    it(`regression: ${name} in a header value is a 422 INVALID_ARGUMENTS naming the argument, not a 502, and nothing is sent`, async () => {
      for (const argument of ["trace", "label"]) {
        const res = await call({ [argument]: `a${c}b` });
        const body = (await res.json()) as Refusal;
        expect(res.status, `${argument}: ${JSON.stringify(body)}`).toBe(422);
        expect(body.error.code).toBe("INVALID_ARGUMENTS");
        expect(body.error.details.argument).toBe(argument);
        expect(body.error.details.problems.map((p) => p.path)).toEqual([`$.${argument}`]);
        expect(body.error.message).toContain(`\`${argument}\``);
      }
      expect(seen).toEqual([]);
    });
  }

  it("sends a tab inside a header value (HTTP allows it)", async () => {
    const res = await call({ trace: "a\tb" });
    expect(res.status).toBe(200);
    expect(seen[0]?.headers["x-trace"]).toBe("a\tb");
  });

  it("percent-encodes the same characters in a query or path value, and the upstream gets them intact", async () => {
    for (const c of Object.values(CONTROLS)) {
      seen.length = 0;
      const res = await call({ id: `w${c}1`, q: `find${c}me` });
      expect(res.status, JSON.stringify(c)).toBe(200);
      expect(seen).toEqual([expect.objectContaining({ path: `/widgets/w${c}1`, query: [["q", `find${c}me`]] })]);
    }
  });
});
