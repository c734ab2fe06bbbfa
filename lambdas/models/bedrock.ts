// Amazon Bedrock Converse through the official client. Structured output forces a tool whose input
// schema is the tool's output_schema (Converse has no JSON response format). Converse returns no
// log-probabilities, so a choice forces a tool `choose` in which the model states the probability of
// each plausible option; find reports those as `probabilities: "stated"`.
// Loaded only by the call and MCP functions and `npm start` (the client is about 88 KB of bundle).
import { BedrockRuntimeClient, ConverseCommand, type ContentBlock, type Message, type SystemContentBlock } from "@aws-sdk/client-bedrock-runtime";
import type { ChatMessage, Choice, ChoiceRequest, Completion, CompletionRequest, ModelPort, ModelUsage } from "../core/ports.js";
import { callSignal, modelError, modelTimeout, normalized } from "./failures.js";
import type { ModelRole } from "./roles.js";

type BedrockRole = Extract<ModelRole, { provider: "bedrock" }>;

/** Options the model may give probabilities for in one choice; the rest count as 0. */
export const STATED_OPTIONS = 10;
const CHOOSE_TOOL = "choose";
const CHOOSE_INSTRUCTION = `Instead of answering with a number, call the tool ${CHOOSE_TOOL} with the probability that each plausible option is the best answer (at most ${STATED_OPTIONS} options, probabilities summing to at most 1).`;

function converseMessages(messages: ChatMessage[]): { system: SystemContentBlock[]; messages: Message[] } {
  return {
    system: messages.filter((m) => m.role === "system").map((m) => ({ text: m.content })),
    messages: messages.filter((m) => m.role !== "system").map((m) => ({ role: m.role as "user" | "assistant", content: [{ text: m.content }] })),
  };
}

export function bedrockModel(role: string, spec: BedrockRole, timeoutMs: number): ModelPort {
  const client = new BedrockRuntimeClient({
    ...(spec.region ? { region: spec.region } : {}),
    ...(spec.endpoint ? { endpoint: spec.endpoint } : {}),
    // One attempt: the role's timeout is the budget, and find falls back rather than waits.
    maxAttempts: 1,
  });
  const port: ModelPort = { role, provider: "bedrock", model: spec.model, timeoutMs, complete, choose };

  async function converse(
    messages: ChatMessage[],
    tool: { name: string; description: string; schema: Record<string, unknown> } | undefined,
    maxTokens: number | undefined,
    outer: AbortSignal,
  ): Promise<{ content: ContentBlock[]; usage: ModelUsage }> {
    const { signal, timedOut } = callSignal(outer, timeoutMs);
    try {
      const out = await client.send(
        new ConverseCommand({
          modelId: spec.model,
          ...converseMessages(messages),
          inferenceConfig: { temperature: 0, ...((maxTokens ?? spec.max_tokens) ? { maxTokens: maxTokens ?? spec.max_tokens } : {}) },
          ...(tool
            ? {
                toolConfig: {
                  tools: [{ toolSpec: { name: tool.name, description: tool.description, inputSchema: { json: tool.schema as never } } }],
                  toolChoice: { tool: { name: tool.name } },
                },
              }
            : {}),
        }),
        { abortSignal: signal },
      );
      return { content: out.output?.message?.content ?? [], usage: { input_tokens: out.usage?.inputTokens ?? 0, output_tokens: out.usage?.outputTokens ?? 0 } };
    } catch (e) {
      if (timedOut()) throw modelTimeout(port, timeoutMs);
      const err = e as { name?: string; message?: string; $metadata?: { httpStatusCode?: number } };
      const status = err.$metadata?.httpStatusCode;
      throw modelError(
        port,
        "http_error",
        `Bedrock answered ${err.name ?? "an error"}${status ? ` (HTTP ${status})` : ""}: ${String(err.message ?? "").slice(0, 300)}`,
        {
          ...(status ? { status } : {}),
        },
      );
    }
  }

  const toolInput = (content: ContentBlock[], name: string): unknown => content.find((c) => c.toolUse?.name === name)?.toolUse?.input;

  async function complete(req: CompletionRequest): Promise<Completion> {
    const tool = req.schema ? { name: req.schema.name, description: "Give the answer as this tool's input.", schema: req.schema.schema } : undefined;
    const { content, usage } = await converse(req.messages, tool, req.maxTokens, req.signal);
    if (tool) {
      const input = toolInput(content, tool.name);
      if (input === undefined) throw modelError(port, "unparsable", `the answer does not use the tool ${tool.name} it was told to use`);
      return { text: JSON.stringify(input), model: spec.model, usage };
    }
    const text = content.flatMap((c) => (c.text !== undefined ? [c.text] : [])).join("");
    if (!text) throw modelError(port, "unparsable", "the answer has no text");
    return { text, model: spec.model, usage };
  }

  async function choose(req: ChoiceRequest): Promise<Choice> {
    const max = req.labels.length - 1;
    const schema = {
      type: "object",
      required: ["choices"],
      properties: {
        choices: {
          type: "array",
          maxItems: STATED_OPTIONS,
          items: {
            type: "object",
            required: ["option", "probability"],
            properties: { option: { type: "integer", minimum: 0, maximum: max }, probability: { type: "number", minimum: 0, maximum: 1 } },
          },
        },
      },
    };
    const messages: ChatMessage[] = [...req.messages];
    const last = messages.pop()!;
    messages.push({ ...last, content: `${last.content}\n\n${CHOOSE_INSTRUCTION}` });
    const tool = { name: CHOOSE_TOOL, description: "State how likely each option is to be the best answer.", schema };
    const { content, usage } = await converse(messages, tool, 512, req.signal);
    const input = toolInput(content, CHOOSE_TOOL) as { choices?: { option?: unknown; probability?: unknown }[] } | undefined;
    if (!Array.isArray(input?.choices)) throw modelError(port, "unparsable", `the answer does not state probabilities through the tool ${CHOOSE_TOOL}`);
    const index = new Map(req.labels.map((l, i) => [l, i]));
    const stated = req.labels.map(() => 0);
    for (const c of input.choices) {
      const i = index.get(String(c.option));
      if (i !== undefined && typeof c.probability === "number") stated[i] = Math.max(stated[i]!, c.probability);
    }
    if (stated.every((p) => p === 0)) throw modelError(port, "unparsable", "the stated probabilities name none of the options");
    return { probabilities: normalized(stated), source: "stated", model: spec.model, usage };
  }

  return port;
}
