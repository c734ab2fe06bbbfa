// GET /v1/tools/export and POST /v1/tools/search: the caller's tools as the model APIs' own tool definitions,
// and the answer an application hands back to the model as its custom tool search result (docs/model-apis.md
// quotes the shapes, read 2026-12-02). The wire types below are the subset of the official SDKs' types
// (@anthropic-ai/sdk Tool, ToolResultBlockParam; openai FunctionTool, ToolSearchTool,
// ResponseToolSearchOutputItemParam) Toolbelt writes; test/integration/model-apis type-checks them against the SDKs.
import * as z from "../core/zod-mini.js";
import { anyObject, described, int } from "./schema.js";
import { SessionId } from "./sessions.js";

export const MODEL_API_FORMATS = ["anthropic", "openai"] as const;
export type ModelApiFormat = (typeof MODEL_API_FORMATS)[number];

/** The custom search tool's name in both formats (the belt's toolbelt.find answers in Toolbelt's own shape, not this one). */
export const SEARCH_TOOL_NAME = "toolbelt_search";
/** Search answers at most this many tools; `more` counts the matches beyond them, up to find's own maximum. */
export const SEARCH_LIMITS = { defaultResults: 5, maxResults: 20 } as const;

const Format = described(z.enum(MODEL_API_FORMATS), "Which API's tool definitions: anthropic (Messages) or openai (Responses)");
const BriefName = described(z.optional(z.string().check(z.minLength(1), z.maxLength(64))), "A brief: its declared tools are loaded up front, not deferred");
const Session = described(z.optional(SessionId), "Your session: the tools on its belt are loaded up front, not deferred");

export const ExportQuery = z.strictObject({ format: Format, session: Session, brief: BriefName });
export type ExportQuery = z.infer<typeof ExportQuery>;

export const SearchBody = z.strictObject({
  format: Format,
  query: described(z.string().check(z.trim(), z.minLength(1), z.maxLength(1000)), "What the model asked the search tool for (its `query` argument)", [
    "current time in Tokyo",
  ]),
  tool_use_id: described(
    z.optional(z.string().check(z.minLength(1), z.maxLength(256))),
    "anthropic: the search tool_use block's id, copied into the tool_result",
  ),
  call_id: described(
    z.optional(z.string().check(z.minLength(1), z.maxLength(256))),
    "openai: the tool_search_call's call_id, copied into the tool_search_output",
  ),
  limit: described(
    z._default(z.number().check(z.int(), z.minimum(1), z.maximum(SEARCH_LIMITS.maxResults)), SEARCH_LIMITS.defaultResults),
    "Most tools to load",
  ),
  session: Session,
  brief: BriefName,
});
export type SearchBody = z.input<typeof SearchBody>;

/** A JSON Schema object as the APIs take it: `type: "object"` at the top. */
export type ObjectSchema = { type: "object"; properties?: Record<string, unknown>; required?: string[]; [k: string]: unknown };

export type AnthropicToolDefinition = {
  name: string;
  description: string;
  input_schema: ObjectSchema;
  input_examples?: Record<string, unknown>[];
  defer_loading?: boolean;
};
export type OpenAIFunctionDefinition = {
  type: "function";
  name: string;
  description: string;
  parameters: ObjectSchema;
  /** Not strict: strict mode needs every property required and closed objects, which would change what a tool takes. */
  strict: false;
  defer_loading?: boolean;
};
export type OpenAIToolSearchDefinition = { type: "tool_search"; execution: "client"; description: string; parameters: ObjectSchema };

export type AnthropicToolReference = { type: "tool_reference"; tool_name: string };
export type AnthropicText = { type: "text"; text: string };
/** What the application sends back for the model's search tool_use: the references load the named deferred tools. */
export type AnthropicSearchResult = { type: "tool_result"; tool_use_id: string; content: AnthropicToolReference[] | [AnthropicText] };
/** What the application sends back for a client-executed tool_search_call: the definitions it loads. */
export type OpenAISearchResult = {
  type: "tool_search_output";
  execution: "client";
  call_id: string;
  status: "completed";
  tools: OpenAIFunctionDefinition[];
};

export type ExportAnswer<F extends ModelApiFormat = ModelApiFormat> = {
  format: F;
  /** The search tool first (never deferred), then every tool the caller may call. Send as the request's `tools`. */
  tools: F extends "anthropic" ? AnthropicToolDefinition[] : (OpenAIToolSearchDefinition | OpenAIFunctionDefinition)[];
  /** Model-safe name → Toolbelt's full name (POST /v1/call takes either). */
  names: Record<string, string>;
  counts: { tools: number; deferred: number; loaded: number; input_examples: number };
  /** What was changed to make a tool's schema acceptable to the API, by model-safe name. */
  adjusted: Record<string, string[]>;
};

export type SearchAnswer<F extends ModelApiFormat = ModelApiFormat> = {
  format: F;
  verdict: "match" | "none";
  /** Hand this back to the model as it is. */
  result: F extends "anthropic" ? AnthropicSearchResult : OpenAISearchResult;
  /** Tool names the result loads (model-safe), all of them in the export. */
  names: string[];
  /** Tools that matched (up to find's maximum, 50) and how many of them the result leaves out. */
  matched: number;
  more: number;
  note?: string;
};

const ToolDefinitions = z.array(anyObject());
export const ExportResponse = z.object({
  format: z.enum(MODEL_API_FORMATS),
  tools: described(ToolDefinitions, "The API's tool definitions: the search tool first, then every tool you may call"),
  names: described(z.record(z.string(), z.string()), "Model-safe name to Toolbelt's full name"),
  counts: z.object({ tools: int(), deferred: int(), loaded: int(), input_examples: int() }),
  adjusted: described(z.record(z.string(), z.array(z.string())), "What was changed in a tool's schema for the API, by model-safe name"),
});
export const SearchResponse = z.object({
  format: z.enum(MODEL_API_FORMATS),
  verdict: z.enum(["match", "none"]),
  result: described(anyObject(), "anthropic: a tool_result of tool_reference blocks; openai: a tool_search_output (client execution)"),
  names: z.array(z.string()),
  matched: described(int(), "Tools that matched (up to 50)"),
  more: described(int(), "Matches the result leaves out: search again in narrower words, or raise limit"),
  note: z.optional(z.string()),
});

/** What POST /v1/call answered for one model tool call: its result, or Toolbelt's error (code, message). */
export type CallOutcome = { ok: true; result: unknown } | { ok: false; error: { code: string; message: string } };

const asText = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value));

/** Anthropic: the tool_result for a tool_use block; an error is `is_error: true` with Toolbelt's message. */
export function anthropicToolResult(tool_use_id: string, outcome: CallOutcome) {
  return outcome.ok
    ? { type: "tool_result" as const, tool_use_id, content: asText(outcome.result) }
    : { type: "tool_result" as const, tool_use_id, content: `${outcome.error.code}: ${outcome.error.message}`, is_error: true };
}

/** OpenAI Responses: the function_call_output for a function_call; the API has no error flag, so an error is `{"error": …}` text. */
export function openaiFunctionOutput(call_id: string, outcome: CallOutcome) {
  return { type: "function_call_output" as const, call_id, output: asText(outcome.ok ? outcome.result : { error: outcome.error }) };
}

/**
 * The calls back to Toolbelt an agent loop needs, over plain fetch: the export, the search behind the API's tool
 * search, and POST /v1/call with the model-safe name and arguments the model produced (the gateway resolves it).
 */
export function toolbeltClient(options: { url: string; key: string; session?: string }) {
  const headers = { authorization: `Bearer ${options.key}`, "content-type": "application/json" };
  const session = options.session ? { session: options.session } : {};
  const send = async (path: string, init: RequestInit = {}) => {
    const res = await fetch(new URL(path, options.url), { ...init, headers });
    const body = (await res.json()) as Record<string, unknown>;
    return { status: res.status, body };
  };
  const must = async <T>(path: string, init?: RequestInit): Promise<T> => {
    const { status, body } = await send(path, init);
    if (status !== 200) throw new Error(`Toolbelt ${path} answered ${status}: ${JSON.stringify(body.error ?? body)}`);
    return body as T;
  };
  return {
    export<F extends ModelApiFormat>(format: F, brief?: string): Promise<ExportAnswer<F>> {
      const query = new URLSearchParams({ format });
      if (options.session) query.set("session", options.session);
      if (brief) query.set("brief", brief);
      return must(`/v1/tools/export?${query}`);
    },
    search<F extends ModelApiFormat>(body: Omit<SearchBody, "format" | "session"> & { format: F }): Promise<SearchAnswer<F>> {
      return must("/v1/tools/search", { method: "POST", body: JSON.stringify({ ...body, ...session }) });
    },
    async call(name: string, args: unknown): Promise<CallOutcome> {
      const { status, body } = await send("/v1/call", { method: "POST", body: JSON.stringify({ tool: name, args: args ?? {}, ...session }) });
      if (status === 200) return { ok: true, result: body.result };
      const error = (body.error ?? {}) as { code?: string; message?: string };
      return { ok: false, error: { code: error.code ?? `HTTP_${status}`, message: error.message ?? "no error body" } };
    },
  };
}
