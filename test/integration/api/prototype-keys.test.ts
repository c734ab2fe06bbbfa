// Bug: POST /v1/find {query: "constructor"} answered 500 ("function is not iterable": the find
// index's lookup tables are plain objects read with query words). Object.prototype names are words.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApi, type TestApi } from "../../helpers/api.js";

let api: TestApi;

beforeAll(async () => {
  api = await startTestApi();
});
afterAll(async () => {
  await api?.close();
});

describe("POST /v1/find with Object.prototype words", () => {
  it.each(["constructor", "__proto__ toString", "hasOwnProperty valueOf", "constructor: recent commits"])("answers %j with 200", async (query) => {
    const res = await api.request("/v1/find", { json: { query, schemas: false } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { tools: { name: string }[] };
    expect(Array.isArray(body.tools)).toBe(true);
  });

  it("still ranks by the query's other words", async () => {
    const res = await api.request("/v1/find", { json: { query: "constructor: recent commits of a repository", schemas: false } });
    expect(((await res.json()) as { tools: { name: string }[] }).tools[0]?.name).toBe("git.log");
  });
});

describe("sessions and bodies with Object.prototype names", () => {
  it.each(["constructor", "__proto__", "toString"])("answers a brief named %j as unknown (4xx), not 500", async (brief) => {
    const res = await api.request("/v1/sessions", { json: { brief } });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
  });

  it.each(["constructor", "__proto__", "toString"])("answers the surface of a session %j as not found", async (id) => {
    const res = await api.request(`/v1/sessions/${id}/surface`);
    expect(res.status).toBe(404);
  });

  it("treats a `__proto__` member of a find body as an unknown field, not a prototype", async () => {
    const res = await api.request("/v1/find", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"query":"recent commits","__proto__":{"limit":1,"schemas":false}}',
    });
    expect(res.status).toBe(400);
    expect(({} as Record<string, unknown>).limit).toBeUndefined();
  });
});
