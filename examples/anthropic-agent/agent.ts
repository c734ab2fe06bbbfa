// An agent loop on the Anthropic SDK with Toolbelt as its custom tool search: every tool the key may call is
// sent deferred (defer_loading) beside the search tool; the model searches, Toolbelt answers with tool_reference
// blocks that load the tools it names, and each tool_use goes to POST /v1/call. Run against `npm start`:
//   TOOLBELT_KEY=$(cat .toolbelt/local-key) ANTHROPIC_API_KEY=... npx tsx examples/anthropic-agent/agent.ts "What time is it in Tokyo?"
import Anthropic from "@anthropic-ai/sdk";
import type { MessageParam, Tool, ToolResultBlockParam } from "@anthropic-ai/sdk/resources/messages";
import { anthropicToolResult, SEARCH_TOOL_NAME, toolbeltClient } from "../../lambdas/contract/model-apis.js";

export type AgentOptions = {
  prompt: string;
  model: string;
  toolbelt: { url: string; key: string; session?: string };
  /** A brief whose declared tools are loaded up front (the rest stay deferred). */
  brief?: string;
  client?: Anthropic;
  maxTurns?: number;
};

export async function runAnthropicAgent(options: AgentOptions): Promise<{ text: string; messages: MessageParam[] }> {
  const client = options.client ?? new Anthropic();
  const toolbelt = toolbeltClient(options.toolbelt);
  // The export is the SDK's own request type: it type-checks as Tool[] with no cast.
  const tools: Tool[] = (await toolbelt.export("anthropic", options.brief)).tools;
  const messages: MessageParam[] = [{ role: "user", content: options.prompt }];
  for (let turn = 0; turn < (options.maxTurns ?? 8); turn++) {
    const message = await client.messages.create({ model: options.model, max_tokens: 1024, tools, messages });
    messages.push({ role: "assistant", content: message.content });
    if (message.stop_reason !== "tool_use") {
      const text = message.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("");
      return { text, messages };
    }
    const results: ToolResultBlockParam[] = [];
    for (const block of message.content) {
      if (block.type !== "tool_use") continue;
      if (block.name === SEARCH_TOOL_NAME) {
        const { query } = block.input as { query: string };
        results.push((await toolbelt.search({ format: "anthropic", query, tool_use_id: block.id })).result);
      } else {
        results.push(anthropicToolResult(block.id, await toolbelt.call(block.name, block.input)));
      }
    }
    messages.push({ role: "user", content: results });
  }
  throw new Error(`no final answer within ${options.maxTurns ?? 8} turns`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const key = process.env.TOOLBELT_KEY;
  if (!key) throw new Error("set TOOLBELT_KEY (npm start prints it; it is in .toolbelt/local-key)");
  const { text } = await runAnthropicAgent({
    prompt: process.argv[2] ?? "What time is it in Tokyo?",
    model: process.env.ANTHROPIC_MODEL ?? "claude-sonnet-4-5",
    toolbelt: {
      url: process.env.TOOLBELT_URL ?? "http://127.0.0.1:8787",
      key,
      ...(process.env.TOOLBELT_SESSION ? { session: process.env.TOOLBELT_SESSION } : {}),
    },
    ...(process.env.TOOLBELT_BRIEF ? { brief: process.env.TOOLBELT_BRIEF } : {}),
  });
  console.log(text);
}
