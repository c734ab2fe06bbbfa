// The demo service with Object.prototype names as user input: the calculator's function and constant
// tables answered "__proto__(1)" with a 500 (Object.prototype is not callable) and "constructor + 1"
// with a 422; they are unknown names (400). The kv and notes stores must keep such keys as keys.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDemoService, type DemoService } from "../../dev/demo-service/index.js";

const TOKEN = "test-token-0123456789";
let svc: DemoService;

async function req(method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(svc.url + path, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, json: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
}

beforeAll(async () => {
  svc = await startDemoService({ port: 0, token: TOKEN });
});
afterAll(async () => {
  await svc?.close();
});

describe("/math/evaluate with Object.prototype names", () => {
  it.each(["__proto__(1)", "constructor(2)", "constructor + 1", "__proto__", "__proto__ * 2", "hasownproperty(1)", "tostring"])(
    "answers %j as an unknown name (400)",
    async (expression) => {
      const res = await req("POST", "/math/evaluate", { expression });
      expect(res.status).toBe(400);
      expect((res.json.error as { message: string }).message).toMatch(/unknown (function|name)/);
    },
  );

  it("still evaluates the known names", async () => {
    expect((await req("POST", "/math/evaluate", { expression: "sqrt(16) + pi - pi" })).json).toEqual({ expression: "sqrt(16) + pi - pi", result: 4 });
  });
});

describe("kv store with Object.prototype names as keys", () => {
  it.each(["constructor", "__proto__", "toString", "hasOwnProperty"])("stores, reads, lists and deletes %j like any key", async (key) => {
    expect((await req("GET", `/kv/${key}`)).status).toBe(404);
    expect((await req("PUT", `/kv/${key}`, { value: `val-${key}` })).status).toBeLessThan(300);
    const got = await req("GET", `/kv/${key}`);
    expect(got.status).toBe(200);
    expect(got.json).toMatchObject({ key, value: `val-${key}` });
    expect(JSON.stringify((await req("GET", "/kv")).json)).toContain(`"${key}"`);
    expect((await req("DELETE", `/kv/${key}`)).status).toBeLessThan(300);
    expect((await req("GET", `/kv/${key}`)).status).toBe(404);
    expect(({} as Record<string, unknown>).v).toBeUndefined();
  });
});
