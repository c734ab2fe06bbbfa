// JsonAnswer: a JSON answer the Lambda adapter takes as text, and any other reader as a Response.
import { Hono } from "hono";
import { request } from "node:http";
import { describe, expect, it } from "vitest";
import { answerJson, JsonAnswer } from "../../../../lambdas/http/answer.js";
import type { AppEnv } from "../../../../lambdas/http/env.js";
import { carriesIds } from "../../../../lambdas/http/answer.js";
import { serveApp } from "../../../helpers/server.js";

const value = { name: "convert.temperature", note: "a\ud800b é ✓", score: 0.5, tools: [1, 2] };
const text = JSON.stringify(value);

describe("JsonAnswer", () => {
  it("reads back as the Response c.json builds: status, headers, text, JSON, bytes, stream", async () => {
    const expected = new Response(text, { status: 200, headers: { "content-type": "application/json" } });
    const answer = new JsonAnswer(value);
    expect([answer.status, answer.headers.get("content-type"), answer.bodyUsed]).toEqual([expected.status, expected.headers.get("content-type"), false]);
    expect(await answer.text()).toBe(await expected.text());
    expect(answer.bodyUsed).toBe(true);
    expect(await new JsonAnswer(value).json()).toEqual(value);
    expect(Buffer.from(await new JsonAnswer(value).arrayBuffer()).toString("utf8")).toBe(text);
    expect(await new Response(new JsonAnswer(value).body).text()).toBe(text);
  });

  it("hands its text to one taker; after that every read is refused as a consumed Response's", async () => {
    const answer = new JsonAnswer(value);
    expect(answer.takeText()).toBe(text);
    expect(answer.takeText()).toBeUndefined();
    expect(answer.bodyUsed).toBe(true);
    await expect(answer.text()).rejects.toThrow(TypeError);
    expect(() => answer.clone()).toThrow(TypeError);
  });

  it("gives no text once its body was read as a Response, and clones with headers set after it was made", async () => {
    const answer = new JsonAnswer(value);
    answer.headers.set("x-request-id", "r1");
    const copy = answer.clone();
    expect(copy.headers.get("x-request-id")).toBe("r1");
    expect(await copy.text()).toBe(await answer.text());
    expect(answer.takeText()).toBeUndefined();
    await expect(answer.json()).rejects.toThrow(TypeError);
  });
});

describe("answerJson", () => {
  const app = new Hono<AppEnv>().get("/x", (c) => answerJson(c, value));

  it("answers c.json's Response where the server takes no text, and a JsonAnswer with the same bytes where it does", async () => {
    const plain = await app.request("/x");
    expect(plain).not.toBeInstanceOf(JsonAnswer);
    const lean = await app.request("/x", {}, { textAnswers: true });
    expect(lean).toBeInstanceOf(JsonAnswer);
    expect([...lean.headers]).toEqual([...plain.headers]);
    expect(await lean.text()).toBe(await plain.text());
  });
});

describe("answerJson under the Node server", () => {
  /** The header lines of an answer as sent, in order, without Date. */
  const headerLines = (url: string, headers: Record<string, string>) =>
    new Promise<string[]>((done, fail) => {
      const req = request(url, { headers }, (res) => {
        res.resume();
        const lines: string[] = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2) if (res.rawHeaders[i] !== "Date") lines.push(`${res.rawHeaders[i]}: ${res.rawHeaders[i + 1]}`);
        res.on("end", () => done(lines));
      });
      req.on("error", fail);
      req.end();
    });

  it("sends the header lines app.ts's c.json and headers.set sent, in the same order, with or without a correlation id or an Origin", async () => {
    const app = new Hono<AppEnv>();
    app.use("*", async (c, next) => {
      c.set("requestId", "req-1");
      const correlationId = c.req.header("x-correlation-id");
      if (correlationId) c.set("correlationId", correlationId);
      await next();
      if (carriesIds(c.res)) return;
      c.res.headers.set("x-request-id", "req-1");
      if (correlationId) c.res.headers.set("x-correlation-id", correlationId);
    });
    app.use("*", async (c, next) => {
      await next();
      const origin = c.req.header("origin");
      if (origin) c.res.headers.set("access-control-allow-origin", origin);
    });
    app.get("/before", (c) => c.json(value));
    app.get("/now", (c) => answerJson(c, value));
    const server = await serveApp(app);
    try {
      for (const headers of [{}, { "x-correlation-id": "c-1" }, { origin: "http://127.0.0.1" }] as Record<string, string>[]) {
        const before = await headerLines(`${server.url}/before`, headers);
        expect(await headerLines(`${server.url}/now`, headers)).toEqual(before);
        expect(before).toContain("x-request-id: req-1");
      }
    } finally {
      await server.close();
    }
  });
});
