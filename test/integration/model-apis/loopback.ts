// Scripted loopback models speaking each API's wire format. Each refuses (400, in the API's error shape) a
// request whose tool, tool_reference or call blocks differ from the shapes docs/model-apis.md quotes, and
// replays one conversation: ask the search tool, get the tools loaded, call the scripted tool, finish.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

const NAME_RE = /^[a-zA-Z0-9_-]{1,64}$/;
export const SEARCH = "toolbelt_search";

export type Script = { query: string; tool: string; input: Record<string, unknown> };
export type Loopback = { url: string; requests: Record<string, unknown>[]; close(): Promise<void> };

type Json = Record<string, unknown>;
type Handler = (body: Json) => Json;

class Refused extends Error {}
const refuse = (message: string): never => {
  throw new Refused(message);
};
const only = (o: Json, keys: string[], what: string) => {
  const extra = Object.keys(o).filter((k) => !keys.includes(k));
  if (extra.length) refuse(`${what}: unknown field(s) ${extra.join(", ")}`);
};
const objectSchema = (s: unknown, what: string) => {
  const schema = s as Json | undefined;
  if (schema?.type !== "object") refuse(`${what}: schema type must be object`);
  for (const k of ["oneOf", "anyOf", "allOf"]) if (k in (schema as Json)) refuse(`${what}: ${k} is not supported at the top level`);
};

async function serveJson(handler: Handler, path: string, errorBody: (m: string) => Json): Promise<Loopback> {
  const requests: Json[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let text = "";
    req.on("data", (d) => (text += d));
    req.on("end", () => {
      const send = (status: number, body: Json) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
      if (req.method !== "POST" || req.url !== path) {
        send(404, errorBody(`no route ${req.method} ${req.url}`));
        return;
      }
      try {
        const body = JSON.parse(text) as Json;
        requests.push(body);
        send(200, handler(body));
      } catch (e) {
        send(e instanceof Refused ? 400 : 500, errorBody((e as Error).message));
      }
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", () => done()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise<void>((done) => (server.closeAllConnections(), server.close(() => done()))),
  };
}

/** POST /v1/messages as the Messages API: tools with defer_loading, a custom search answered with tool_reference blocks. */
export function anthropicLoopback(script: Script): Promise<Loopback> {
  return serveJson(
    (body) => {
      const tools = body.tools as Json[];
      const byName = new Map<string, Json>();
      for (const t of tools) {
        only(t, ["name", "description", "input_schema", "input_examples", "defer_loading"], `tool ${t.name}`);
        if (typeof t.name !== "string" || !NAME_RE.test(t.name)) refuse(`tool name ${t.name} does not match ${NAME_RE}`);
        objectSchema(t.input_schema, `tool ${t.name}`);
        if ("defer_loading" in t && typeof t.defer_loading !== "boolean") refuse(`tool ${t.name}: defer_loading must be boolean`);
        if ("input_examples" in t && !(Array.isArray(t.input_examples) && t.input_examples.every((e) => e && typeof e === "object" && !Array.isArray(e))))
          refuse(`tool ${t.name}: input_examples must be an array of objects`);
        byName.set(t.name as string, t);
      }
      if (![...byName.values()].some((t) => t.defer_loading !== true)) refuse("at least one tool must not be deferred");
      if (byName.get(SEARCH)?.defer_loading) refuse("the search tool must not be deferred");
      // Loaded: the tools not deferred, then each one a tool_reference names; a tool_use may only name a loaded tool.
      const loaded = new Set([...byName.values()].filter((t) => t.defer_loading !== true).map((t) => t.name as string));
      const messages = body.messages as { role: string; content: string | Json[] }[];
      for (const m of messages) {
        if (typeof m.content === "string") continue;
        for (const block of m.content) {
          if (block.type === "tool_use" && !loaded.has(block.name as string)) refuse(`tool_use names ${block.name}, which is not loaded`);
          if (block.type !== "tool_result" || !Array.isArray(block.content)) continue;
          for (const c of block.content as Json[]) {
            if (c.type === "tool_reference") {
              only(c, ["type", "tool_name"], "tool_reference");
              if (!byName.has(c.tool_name as string)) refuse(`Tool reference '${c.tool_name}' not found in available tools`);
              loaded.add(c.tool_name as string);
            } else if (c.type !== "text") refuse(`tool_result content block ${c.type} is not expected here`);
          }
        }
      }
      const last = messages.at(-1)?.content;
      const result = Array.isArray(last) ? last.find((b) => b.type === "tool_result") : undefined;
      const turn = messages.length;
      const reply = (content: Json[], stop: string) => ({
        id: `msg_${turn}`,
        type: "message",
        role: "assistant",
        model: body.model,
        content,
        stop_reason: stop,
        stop_sequence: null,
        usage: { input_tokens: 10, output_tokens: 10 },
      });
      if (!result) return reply([{ type: "tool_use", id: "toolu_search", name: SEARCH, input: { query: script.query } }], "tool_use");
      if (result.tool_use_id === "toolu_search") {
        if (!loaded.has(script.tool)) refuse(`the search did not load ${script.tool}`);
        // The call uses the tool's first input example when it has one: the examples are meant to be callable.
        const input = (byName.get(script.tool)?.input_examples as Json[] | undefined)?.[0] ?? script.input;
        return reply([{ type: "tool_use", id: "toolu_call", name: script.tool, input }], "tool_use");
      }
      const content = typeof result.content === "string" ? result.content : JSON.stringify(result.content);
      return reply([{ type: "text", text: `${result.is_error ? "Failed" : "Done"}: ${content}` }], "end_turn");
    },
    "/v1/messages",
    (message) => ({ type: "error", error: { type: "invalid_request_error", message } }),
  );
}

/** POST /v1/responses as the Responses API: deferred functions and a client-executed tool_search. */
export function openaiLoopback(script: Script): Promise<Loopback> {
  return serveJson(
    (body) => {
      const tools = body.tools as Json[];
      const functions = new Map<string, Json>();
      for (const t of tools) {
        if (t.type === "tool_search") {
          only(t, ["type", "execution", "description", "parameters"], "tool_search");
          if (t.execution !== "client") refuse("tool_search: execution must be client here");
          objectSchema(t.parameters, "tool_search");
          continue;
        }
        if (t.type !== "function") refuse(`tool type ${t.type} is not expected here`);
        only(t, ["type", "name", "description", "parameters", "strict", "defer_loading"], `function ${t.name}`);
        if (typeof t.name !== "string" || !NAME_RE.test(t.name)) refuse(`function name ${t.name} does not match ${NAME_RE}`);
        objectSchema(t.parameters, `function ${t.name}`);
        if (typeof t.strict !== "boolean") refuse(`function ${t.name}: strict must be boolean`);
        functions.set(t.name as string, t);
      }
      const loaded = new Set([...functions.values()].filter((t) => t.defer_loading !== true).map((t) => t.name as string));
      const calls = new Set<string>();
      const input = body.input as Json[];
      for (const item of input) {
        if (item.type === "tool_search_call") calls.add(item.call_id as string);
        if (item.type === "tool_search_output") {
          only(item, ["type", "execution", "call_id", "status", "tools"], "tool_search_output");
          if (item.execution !== "client" || !calls.has(item.call_id as string))
            refuse("tool_search_output must answer a client tool_search_call by its call_id");
          for (const t of item.tools as Json[]) {
            if (t.type !== "function" || !functions.has(t.name as string)) refuse(`tool_search_output loads ${t.name}, which is not in tools`);
            loaded.add(t.name as string);
          }
        }
        if (item.type === "function_call" && !loaded.has(item.name as string)) refuse(`function_call names ${item.name}, which is not loaded`);
      }
      const turn = input.length;
      const reply = (output: Json[]) => ({ id: `resp_${turn}`, object: "response", created_at: 1, model: body.model, status: "completed", output });
      const last = input.at(-1);
      if (last?.type !== "tool_search_output" && last?.type !== "function_call_output") {
        return reply([
          { type: "tool_search_call", id: "ts_1", call_id: "call_search", execution: "client", status: "completed", arguments: { query: script.query } },
        ]);
      }
      if (last.type === "tool_search_output") {
        if (!loaded.has(script.tool)) refuse(`the search did not load ${script.tool}`);
        return reply([
          { type: "function_call", id: "fc_1", call_id: "call_fn", name: script.tool, arguments: JSON.stringify(script.input), status: "completed" },
        ]);
      }
      return reply([
        {
          type: "message",
          id: "msg_1",
          role: "assistant",
          status: "completed",
          content: [{ type: "output_text", text: `Done: ${last.output}`, annotations: [] }],
        },
      ]);
    },
    "/v1/responses",
    (message) => ({ error: { message, type: "invalid_request_error", param: null, code: null } }),
  );
}
