// The prompt backend: a `kind: prompt` tool renders its template from `{{input.*}}` only, asks its
// role's model, and with an `output_schema` asks for structured output, checks the answer with the
// same ajv path as every tool's output, retries once with the problems, and otherwise refuses (502).
import type { CatalogTool } from "../../registry/contract/artifact.js";
import { modelNameOf } from "../../registry/contract/names.js";
import type { BackendContext, BackendOutput, ToolBackend } from "../core/call/types.js";
import { createSchemaValidator, summarize, type SchemaProblem, type SchemaValidator } from "../core/call/validate.js";
import { ToolbeltError } from "../core/errors.js";
import type { CallMetadata } from "../contract/call.js";
import type { ChatMessage, ModelUsage, Models } from "../core/ports.js";
import { renderInputOnly } from "./templates.js";
import { DEFAULT_MAX_RESPONSE_BYTES } from "../capped-body.js";

export type PromptBackendOptions = {
  models: Models;
  validator?: SchemaValidator;
  /** Longest answer (UTF-8 bytes) a prompt tool returns; a longer one is refused, whatever the adapter read (4 MiB). */
  maxResultBytes?: number;
};

/** One answer, then at most one retry that shows the model what was wrong. */
export const MAX_ATTEMPTS = 2;

export function systemPrompt(tool: CatalogTool, schema: Record<string, unknown> | undefined): string {
  const lines = [`You are the tool ${tool.name}: ${tool.description}`, "Follow the instructions in the user message."];
  // The schema is in the text too: endpoints that ignore response_format still see what to answer.
  if (schema) lines.push(`Answer with one JSON value that matches this JSON Schema, and nothing else:\n${JSON.stringify(schema)}`);
  else lines.push("Answer with the result only.");
  return lines.join("\n");
}

/** The answer as JSON: a bare value, or one wrapped in a ```json fence (some models add one whatever they are told). */
function parseAnswer(text: string): { ok: true; value: unknown } | { ok: false; problems: SchemaProblem[] } {
  const fenced = /^\s*```(?:json)?\s*\n([\s\S]*?)\n?```\s*$/i.exec(text);
  try {
    return { ok: true, value: JSON.parse(fenced ? fenced[1]! : text) };
  } catch (e) {
    return { ok: false, problems: [{ path: "$", message: `is not JSON (${(e as Error).message})`, keyword: "json" }] };
  }
}

export function createPromptBackend(options: PromptBackendOptions): ToolBackend {
  const validator = options.validator ?? createSchemaValidator();
  const maxBytes = options.maxResultBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  return {
    async invoke(tool: CatalogTool, args: Record<string, unknown>, ctx: BackendContext): Promise<BackendOutput> {
      const b = tool.backend;
      if (b.kind !== "prompt") throw new ToolbeltError("INTERNAL", `${tool.name} is not a prompt tool`);
      const port = options.models.get(b.model);
      if (!port) {
        throw new ToolbeltError(
          "MODEL_NOT_CONFIGURED",
          `${tool.name} asks the model role "${b.model}", which this gateway has no model for; tell the operator to add "${b.model}" to TOOLBELT_MODELS (provider, model, url)`,
          { tool: tool.name, role: b.model, setting: "TOOLBELT_MODELS", configured_roles: options.models.roles() },
        );
      }
      const schema = tool.output_schema;
      const messages: ChatMessage[] = [
        { role: "system", content: systemPrompt(tool, schema) },
        { role: "user", content: renderInputOnly(b.prompt, args) },
      ];
      const usage: ModelUsage = { input_tokens: 0, output_tokens: 0 };
      let model = port.model;
      let problems: SchemaProblem[] = [];
      for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
        const reply = await port.complete({
          messages,
          ...(schema ? { schema: { name: modelNameOf(tool), schema } } : {}),
          signal: ctx.signal,
        });
        // Checked before anything keeps it: the caller's answer, the retry's messages, the idempotency record.
        if (Buffer.byteLength(reply.text) > maxBytes) {
          throw new ToolbeltError(
            "UPSTREAM_BAD_OUTPUT",
            `${tool.name}: the model answered with more than ${maxBytes} bytes, which this gateway does not accept`,
            {
              tool: tool.name,
              role: b.model,
              model: reply.model,
              max_bytes: maxBytes,
            },
          );
        }
        usage.input_tokens += reply.usage.input_tokens;
        usage.output_tokens += reply.usage.output_tokens;
        model = reply.model;
        const metadata: CallMetadata = { model, role: b.model, usage: { ...usage }, attempts: attempt };
        if (!schema) return { result: { text: reply.text }, metadata };
        const parsed = parseAnswer(reply.text);
        if (parsed.ok) {
          const checked = validator.check(schema, parsed.value, "output");
          if (checked.valid) return { result: parsed.value, metadata };
          problems = checked.problems;
        } else problems = parsed.problems;
        messages.push(
          { role: "assistant", content: reply.text },
          {
            role: "user",
            content: `That answer does not match the JSON Schema: ${summarize(problems)}. Answer again with only a JSON value that matches the schema.`,
          },
        );
      }
      throw new ToolbeltError(
        "OUTPUT_SCHEMA_MISMATCH",
        `${tool.name}: the model's answer did not match the output schema after ${MAX_ATTEMPTS} attempts: ${summarize(problems)}. The model is at fault, not your arguments`,
        { tool: tool.name, problems, model, role: b.model, usage, attempts: MAX_ATTEMPTS },
      );
    },
  };
}
