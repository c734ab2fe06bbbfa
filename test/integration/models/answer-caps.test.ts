// Issue 24: model answers are read through the same capped reader as http tools, and a prompt tool's
// answer is capped again whatever its adapter read. A loopback endpoint streams an answer far past the
// cap (no Content-Length) and counts what it managed to send before the gateway hung up.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPromptBackend } from "../../../lambdas/backends/prompt.js";
import { createCallGateway } from "../../../lambdas/core/call/gateway.js";
import { createModels } from "../../../lambdas/models/index.js";
import { chatReply, startChatServer, type ChatServer } from "../../helpers/chat-server.js";
import { callerFor, catalogTool, toolMap } from "../call/helpers.js";

const MiB = 1024 * 1024;
const caller = callerFor("agent", "writing.*");
const reword = catalogTool("writing.reword", { kind: "prompt", prompt: "Reword: {{input.text}}", model: "prompt" }, { kind: "prompt", timeout_ms: 20_000 });

let flood: Server;
let floodUrl = "";
/** Bytes the flooding endpoint wrote before its client went away, per request. */
const written: number[] = [];
let chat: ChatServer;

beforeAll(async () => {
  // A chat completion whose content never ends: 64 KiB chunks up to 64 MiB, stopping when the client hangs up.
  flood = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { "content-type": "application/json" });
    let sent = 0;
    const chunk = Buffer.alloc(64 * 1024, "a");
    res.write('{"choices":[{"message":{"content":"');
    const more = () => {
      while (sent < 64 * MiB && !res.destroyed) {
        sent += chunk.length;
        if (!res.write(chunk)) return void res.once("drain", more);
      }
      if (!res.destroyed) res.end('"}}]}');
    };
    res.on("close", () => written.push(sent));
    more();
  });
  await new Promise<void>((r) => flood.listen(0, "127.0.0.1", r));
  floodUrl = `http://127.0.0.1:${(flood.address() as AddressInfo).port}/v1`;
  chat = await startChatServer();
});

afterAll(async () => {
  flood.closeAllConnections();
  await new Promise((r) => flood.close(r));
  await chat.close();
});

const gatewayFor = (url: string, opts: { maxResponseBytes?: number; maxResultBytes?: number } = {}) => {
  const models = createModels(
    { prompt: { provider: "openai", url, model: "m" } },
    {},
    opts.maxResponseBytes ? { maxResponseBytes: opts.maxResponseBytes } : {},
  );
  const prompt = createPromptBackend({ models, ...(opts.maxResultBytes ? { maxResultBytes: opts.maxResultBytes } : {}) });
  return createCallGateway({ tools: toolMap([reword]), backends: { prompt } });
};

describe("model answers are capped", () => {
  it("regression: an endless answer is cut at 4 MiB by default (502 naming the cap), not read whole", async () => {
    written.length = 0;
    const err = await gatewayFor(floodUrl)
      .call({ tool: "writing.reword", args: { text: "hi" } }, caller)
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "UPSTREAM_BAD_OUTPUT", status: 502, details: { role: "prompt", reason: "unparsable", max_bytes: 4 * MiB } });
    expect((err as Error).message).toContain(`more than ${4 * MiB} bytes`);
    await expect.poll(() => written.length).toBe(1);
    // The gateway hung up soon after the cap: socket buffers hold a few MiB at most, far from the 64 MiB on offer.
    expect(written[0]).toBeLessThan(16 * MiB);
  });

  it("refuses a declared Content-Length over the cap before reading the body", async () => {
    chat.script(() => chatReply("b".repeat(300_000)));
    const err = await gatewayFor(chat.url, { maxResponseBytes: 100_000 })
      .call({ tool: "writing.reword", args: { text: "hi" } }, caller)
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "UPSTREAM_BAD_OUTPUT", details: { max_bytes: 100_000 } });
  });

  it("regression: a prompt tool's answer past its cap is refused even when the adapter read it (a 2 MB answer, a 1 MB cap)", async () => {
    chat.script(() => chatReply("c".repeat(2_000_000)));
    const err = await gatewayFor(chat.url, { maxResultBytes: 1_000_000 })
      .call({ tool: "writing.reword", args: { text: "hi" } }, caller)
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "UPSTREAM_BAD_OUTPUT", status: 502, details: { tool: "writing.reword", role: "prompt", max_bytes: 1_000_000 } });
  });

  it("answers within the caps as before", async () => {
    chat.script(() => chatReply("Hello there."));
    await expect(gatewayFor(chat.url).call({ tool: "writing.reword", args: { text: "hi" } }, caller)).resolves.toMatchObject({
      result: { text: "Hello there." },
    });
  });
});
