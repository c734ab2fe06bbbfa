// A find leaves one record with who asked, what, the verdict, the top tool and the time; under
// `npm start` it reads as one line, the caller's query quoted and escaped.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readableLine } from "../../../lambdas/http/logger.js";
import { LOGGED_QUERY_CHARS } from "../../../lambdas/http/telemetry.js";
import { startTestApi, type TestApi } from "../../helpers/api.js";

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(async () => {
  await api?.close();
});

const lastFind = () => api.logger.entries.filter((e) => e.message === "find").at(-1)!.fields;

describe("a find's log record", () => {
  it("readable logs printed no line for a find: the record names the principal, query, top tool and time, and reads as one line", async () => {
    const res = await api.request("/v1/find", { json: { query: "list recent commits" }, headers: { "x-correlation-id": "trace-9" } });
    const body = (await res.json()) as { verdict: string; tools: { name: string }[] };
    const record = lastFind();
    expect(record).toMatchObject({ principal: "alice", query: "list recent commits", verdict: body.verdict, top_tool: body.tools[0]!.name, via: "rest" });
    expect(record.latency_ms).toBeGreaterThan(0);
    const line = readableLine("info", "find", record, new Date("2026-12-01T12:00:00.000Z"));
    expect(line).toBe(
      `12:00:00.000 find ${body.verdict} "list recent commits" top=${body.tools[0]!.name} ${record.latency_ms}ms principal=alice via=rest correlation_id=trace-9 mode=keyword`,
    );
  });

  it("a query with a newline and terminal escapes stays on its one line, escaped; the record keeps at most LOGGED_QUERY_CHARS", async () => {
    const query = `weather\n12:00:00.001 find match "x" top=admin.drop 1ms principal=root\x1b[2J\u202e ${"z".repeat(900)}`;
    expect((await api.request("/v1/find", { as: "bob", json: { query } })).status).toBe(200);
    const record = lastFind();
    expect(record.principal).toBe("bob");
    expect(query.startsWith(String(record.query))).toBe(true);
    expect(String(record.query).length).toBe(LOGGED_QUERY_CHARS);
    const line = readableLine("info", "find", record);
    expect(line.split("\n")).toHaveLength(1);
    expect(line).not.toMatch(/\p{Cc}|\u202e/u);
    expect(line).toContain(String.raw`find none "weather\n12:00:00.001 find match \"x\" top=admin.drop 1ms principal=root\u001b[2J\u202e zzz`);
  });
});
