// An agent loop on the OpenAI SDK (Responses API) with Toolbelt behind a client-executed tool search: every
// tool the key may call is sent deferred (defer_loading) beside `tool_search` with execution "client"; for each
// tool_search_call Toolbelt answers the tool_search_output that loads the tools, and each function_call goes
// to POST /v1/call. Run against `npm start`:
//   TOOLBELT_KEY=$(cat .toolbelt/local-key) OPENAI_API_KEY=... npx tsx examples/openai-agent/agent.ts "What time is it in Tokyo?"
import OpenAI from "openai";
import type { ResponseInputItem, Tool } from "openai/resources/responses/responses";
import { openaiFunctionOutput, toolbeltClient } from "../../lambdas/contract/model-apis.js";

export type AgentOptions = {
  prompt: string;
  model: string;
  toolbelt: { url: string; key: string; session?: string };
  brief?: string;
  client?: OpenAI;
  maxTurns?: number;
};

export async function runOpenAIAgent(options: AgentOptions): Promise<{ text: string; input: ResponseInputItem[] }> {
  const client = options.client ?? new OpenAI();
  const toolbelt = toolbeltClient(options.toolbelt);
  // The export is the SDK's own request type: it type-checks as Tool[] with no cast.
  const tools: Tool[] = (await toolbelt.export("openai", options.brief)).tools;
  // The whole conversation is sent each turn (no stored responses), so the loaded tools stay in it.
  const input: ResponseInputItem[] = [{ role: "user", content: options.prompt }];
  for (let turn = 0; turn < (options.maxTurns ?? 8); turn++) {
    const response = await client.responses.create({ model: options.model, tools, input, store: false });
    const answers: ResponseInputItem[] = [];
    for (const item of response.output) {
      if (item.type === "tool_search_call" && item.execution === "client") {
        const { query } = item.arguments as { query: string };
        input.push({ type: "tool_search_call", arguments: item.arguments, call_id: item.call_id, execution: "client", status: "completed" });
        answers.push((await toolbelt.search({ format: "openai", query, call_id: item.call_id ?? "" })).result);
      } else if (item.type === "function_call") {
        input.push({ type: "function_call", call_id: item.call_id, name: item.name, arguments: item.arguments });
        answers.push(openaiFunctionOutput(item.call_id, await toolbelt.call(item.name, JSON.parse(item.arguments || "{}"))));
      }
    }
    if (answers.length === 0) return { text: response.output_text, input };
    input.push(...answers);
  }
  throw new Error(`no final answer within ${options.maxTurns ?? 8} turns`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const key = process.env.TOOLBELT_KEY;
  if (!key) throw new Error("set TOOLBELT_KEY (npm start prints it; it is in .toolbelt/local-key)");
  const { text } = await runOpenAIAgent({
    prompt: process.argv[2] ?? "What time is it in Tokyo?",
    model: process.env.OPENAI_MODEL ?? "gpt-5.4",
    toolbelt: {
      url: process.env.TOOLBELT_URL ?? "http://127.0.0.1:8787",
      key,
      ...(process.env.TOOLBELT_SESSION ? { session: process.env.TOOLBELT_SESSION } : {}),
    },
    ...(process.env.TOOLBELT_BRIEF ? { brief: process.env.TOOLBELT_BRIEF } : {}),
  });
  console.log(text);
}
