// The examples run end to end: each agent script, as a user runs it, against `npm start`'s app and a scripted
// loopback model that speaks its API's wire format through the official SDK (no real model anywhere).
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { anthropicLoopback, openaiLoopback, type Loopback, type Script } from "./loopback.js";
import { type Gateway, KEYS, startGateway } from "./fixture.js";

const root = fileURLToPath(new URL("../../..", import.meta.url));
const SCRIPT: Script = { query: "what time is it now in a time zone", tool: "time_now", input: { zone: "Asia/Tokyo" } };

function runExample(file: string, env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      ["--import", "tsx", file, "What time is it in Tokyo?"],
      { cwd: root, env: { PATH: process.env.PATH ?? "", ...env }, timeout: 60_000 },
      (error, stdout, stderr) => done({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

let gateway: Gateway;
beforeAll(async () => {
  gateway = await startGateway();
}, 60_000);
afterAll(() => gateway?.close());

describe("examples/anthropic-agent", () => {
  let model: Loopback;
  beforeAll(async () => {
    model = await anthropicLoopback(SCRIPT);
  });
  afterAll(() => model?.close());

  it("searches, loads time_now by tool_reference, calls it through /v1/call and finishes", async () => {
    const run = await runExample("examples/anthropic-agent/agent.ts", {
      TOOLBELT_URL: gateway.url,
      TOOLBELT_KEY: KEYS.all,
      ANTHROPIC_BASE_URL: model.url,
      ANTHROPIC_API_KEY: "loopback",
    });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    // The tool ran with its first input example (from the schema's property examples): the time in Tokyo.
    expect(run.stdout).toMatch(/^Done: .*Asia\/Tokyo/);
    expect(model.requests).toHaveLength(3);
    const results = (model.requests[1]!.messages as { content: unknown }[]).at(-1)?.content as { content: { type: string; tool_name: string }[] }[];
    expect(results[0]?.content.map((c) => c.type)).toContain("tool_reference");
    expect(results[0]?.content.map((c) => c.tool_name)).toContain("time_now");
  }, 60_000);
});

describe("examples/openai-agent", () => {
  let model: Loopback;
  beforeAll(async () => {
    model = await openaiLoopback(SCRIPT);
  });
  afterAll(() => model?.close());

  it("answers the client tool_search_call with tool_search_output, calls time_now and finishes", async () => {
    const run = await runExample("examples/openai-agent/agent.ts", {
      TOOLBELT_URL: gateway.url,
      TOOLBELT_KEY: KEYS.all,
      OPENAI_BASE_URL: `${model.url}/v1`,
      OPENAI_API_KEY: "loopback",
    });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Done: .*Asia\/Tokyo/);
    expect(model.requests).toHaveLength(3);
    const output = (model.requests[1]!.input as { type: string; tools?: { name: string }[] }[]).find((i) => i.type === "tool_search_output");
    expect(output?.tools?.map((t) => t.name)).toContain("time_now");
  }, 60_000);
});
