import type { ArtifactInput } from "../../../build/artifact.js";
import type { CatalogTool } from "../../../registry/contract/artifact.js";
import type { Identity } from "../../../registry/contract/policy.js";
import type { BriefFile } from "../../../registry/contract/brief.js";
import type { PolicyFile } from "../../../registry/contract/policy.js";
import { sha256Hex } from "../../../lambdas/core/auth.js";
import { testArtifactInput } from "../../helpers/artifact.js";
import { catalogTool, startLoopback, type Loopback } from "../call/helpers.js";
import { connect, type AnyClient, type Revision } from "../mcp/fixture.js";

export const KEY = "parity-agent-key-2c9d71e0";
/** Declared secrets (secret: true in their family); no response of any door may carry either value. */
export const SECRETS = { NOTES_TOKEN: "parity-notes-token-5e1f0a9c3b", VAULT_KEY: "parity-vault-key-8d2b64f1a7" } as const;
export const BRIEF = "parity";

const strings = (...names: string[]) => ({
  type: "object",
  properties: Object.fromEntries(names.map((n) => [n, { type: "string" }])),
  required: names,
  additionalProperties: false,
});
/** notes.<verb>: POST ${NOTES_URL}/<path> with the family's secret, the arguments as the JSON body. */
const notes = (path: string, over: Partial<CatalogTool> = {}) =>
  catalogTool(
    `notes.${path.replace("-", "_")}`,
    { kind: "http", method: "POST", url: `\${NOTES_URL}/${path}`, headers: { authorization: "Bearer ${NOTES_TOKEN}" }, body: "{{input}}", output: "json" },
    { input_schema: strings("text"), ...over },
  );

/**
 * notes.* calls the upstream with its secret (notes.limited once a day); vault.peek's upstream echoes notes' secret;
 * leaky.egress resolves outside its egress; mine.read calls with the caller's own token (`credentials: per_principal`).
 */
export function parityTools(): CatalogTool[] {
  return [
    notes("add"),
    notes("charge", { governance: { consequential: true, affects: "account" }, input_schema: strings("account") }),
    notes("fail"),
    notes("busy"),
    notes("echo-auth"),
    notes("limited"),
    notes("erase", { governance: { destructive: true } }),
    catalogTool("mine.read", { kind: "http", method: "POST", url: "${NOTES_URL}/mine", body: "{{input}}", output: "json" }, { input_schema: strings("text") }),
    catalogTool("vault.peek", { kind: "http", method: "GET", url: "${VAULT_URL}/cross", headers: { "x-key": "${VAULT_KEY}" }, output: "json" }),
    catalogTool("leaky.egress", { kind: "http", method: "GET", url: "${LEAKY_TARGET}/x", egress: ["${LEAKY_ALLOWED}"], output: "json" }),
    catalogTool(
      "files.head",
      { kind: "exec", command: "head", args: ["-c", "200", "--", "{{input.path}}"], paths: ["path"], output: "text" },
      {
        input_schema: strings("path"),
      },
    ),
    catalogTool("writing.summarize", { kind: "prompt", prompt: "Summarize: {{input.text}}", model: "prompt" }, { input_schema: strings("text") }),
    catalogTool("admin.reset", { kind: "http", method: "POST", url: "${NOTES_URL}/add", output: "json" }, { input_schema: strings("text") }),
  ];
}

export function parityInput(): ArtifactInput {
  const input = testArtifactInput(parityTools(), {
    always_loaded: ["notes.add"],
    variables: {
      notes: { NOTES_URL: { secret: false }, NOTES_TOKEN: { secret: true } },
      vault: { VAULT_URL: { secret: false }, VAULT_KEY: { secret: true } },
      leaky: { LEAKY_TARGET: { secret: false }, LEAKY_ALLOWED: { secret: false } },
      admin: { NOTES_URL: { secret: false } },
      mine: { NOTES_URL: { secret: false } },
    },
  });
  for (const f of input.families) if (f.name === "mine") f.credentials = { per_principal: { header: "Authorization", scheme: "Bearer" } };
  return input;
}

/** One principal: everything but admin.*, notes.limited once a day; access tokens from `identity` when given. */
export const parityPolicy = (identity?: Identity): PolicyFile => ({
  version: 1,
  ...(identity ? { identity } : {}),
  principals: [{ id: "agent", keys: [sha256Hex(KEY)], allow: ["*"], deny: ["admin.*"], admin: false, tool_limits: { "notes.limited": { daily_quota: 1 } } }],
  // Destructive tools (notes.erase) are held until an approver approves them.
  approvals: [{ where: { destructive: true } }],
});

export const parityBriefs = (): BriefFile[] => [{ version: 1, name: BRIEF, description: "Take notes and read files", tools: ["notes.*", "files.head"] }];

export type Upstreams = {
  /** What the tools may reach. */
  notes: Loopback;
  /** What leaky.egress resolves to: it must never see a request. */
  elsewhere: Loopback;
  /** Requests to notes.charge by account (one account per door). */
  charges: Map<string, number>;
  /** Requests that reached a path of the notes upstream. */
  hits(path: string): number;
  elsewhereHits(): number;
  close(): Promise<void>;
};

export async function startUpstreams(): Promise<Upstreams> {
  const charges = new Map<string, number>();
  const hits = new Map<string, number>();
  let elsewhereHits = 0;
  const json = (res: import("node:http").ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end(JSON.stringify(value));
  };
  const notesServer = await startLoopback((req, res, body) => {
    const sent = (body ? JSON.parse(body) : {}) as Record<string, string>;
    const path = new URL(req.url ?? "/", "http://x").pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    switch (path) {
      case "/add":
      case "/limited":
      case "/mine":
        return json(res, 200, { added: sent.text });
      case "/charge": {
        const n = (charges.get(sent.account ?? "") ?? 0) + 1;
        charges.set(sent.account ?? "", n);
        return json(res, 200, { account: sent.account, charge: n });
      }
      // A fault whose body quotes the credential it was sent.
      case "/fail":
        return json(res, 500, { error: `backend exploded while using ${req.headers.authorization}` });
      case "/busy":
        return json(res, 429, { error: "slow down" }, { "retry-after": "7" });
      case "/echo-auth":
        return json(res, 200, { you_sent: req.headers.authorization });
      // Another family's declared secret, which this upstream happens to know.
      case "/cross":
        return json(res, 200, { found: SECRETS.NOTES_TOKEN, key: req.headers["x-key"] });
      default:
        return json(res, 404, { error: "no such path" });
    }
  });
  const elsewhere = await startLoopback((_req, res) => {
    elsewhereHits += 1;
    json(res, 200, { reached: "elsewhere" });
  });
  return {
    notes: notesServer,
    elsewhere,
    charges,
    hits: (path) => hits.get(path) ?? 0,
    elsewhereHits: () => elsewhereHits,
    close: async () => {
      await Promise.all([notesServer.close(), elsewhere.close()]);
    },
  };
}

/**
 * What a caller got: a success with its result, or an error code (a REST/tool-result code, or a JSON-RPC error's number)
 * with its details and, on REST, the HTTP status and Retry-After.
 */
export type Outcome =
  | { ok: true; result: unknown }
  | { ok: false; code: string | number; status?: number; details?: Record<string, unknown>; retryAfter?: string | null };

/** An answer refused before any call ran (the credential): its status, error code and WWW-Authenticate. */
export type Refusal = { status: number; code: unknown; challenge: string | null };

export type CallInput = { tool: string; args: unknown; idempotencyKey?: string };

/** `undefined`: this door has no way to say what the input asks (e.g. an idempotency key on a direct MCP call). */
export type DoorCall = (input: CallInput) => Promise<Outcome | undefined>;

export type Door = {
  name: string;
  /** What serves it: `local` (npm start's app) or a handler file under lambdas/handlers/. */
  entry: string;
  /** The Hono route the call lands on. */
  route: "/v1/call" | "/mcp" | "/mcp/briefs/:brief";
  /** A direct MCP tools/call (the tool's own name as the MCP tool), whose unknown names are JSON-RPC errors. */
  mcpDirect: boolean;
  call: DoorCall;
  /** The same call sent raw with another bearer credential (an access token) instead of the agent's key. */
  callAs: (bearer: string, input: CallInput) => Promise<Refusal>;
  close?: () => Promise<void>;
};

/** Status, error code (REST body, or a JSON-RPC error's) and challenge of a raw answer. */
async function refusalOf(res: Response): Promise<Refusal> {
  const text = await res.text();
  let code: unknown;
  try {
    const json = JSON.parse(text) as { error?: { code?: unknown } };
    code = json.error?.code;
  } catch {
    code = `not JSON: ${text.slice(0, 100)}`;
  }
  return { status: res.status, code, challenge: res.headers.get("www-authenticate") };
}

export { lambdaFetch, type LambdaHandler } from "../../helpers/lambda-events.js";

/** A fetch that keeps every response body it saw in `seen` (the redaction check reads them all). */
export function recording(fetchImpl: typeof fetch, seen: string[]): typeof fetch {
  return async (input, init) => {
    const res = await fetchImpl(input, init);
    seen.push(await res.clone().text());
    return res;
  };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** REST: POST /v1/call with the tool named directly, or wrapped in toolbelt.call. */
export function restDoor(name: string, entry: string, base: string, fetchImpl: typeof fetch, wrap: boolean): Door {
  const send = (authorization: string, { tool, args, idempotencyKey }: CallInput) =>
    fetchImpl(`${base}/v1/call`, {
      method: "POST",
      headers: { authorization, "content-type": "application/json", ...(idempotencyKey ? { "idempotency-key": idempotencyKey } : {}) },
      body: JSON.stringify(wrap ? { tool: "toolbelt.call", args: { tool, args } } : { tool, args }),
    });
  return {
    name,
    entry,
    route: "/v1/call",
    mcpDirect: false,
    call: async (input) => {
      const res = await send(`Bearer ${KEY}`, input);
      const json = (await res.json()) as { result?: unknown; error?: { code: string; details?: Record<string, unknown> } };
      if (res.status !== 200) {
        return {
          ok: false,
          code: json.error?.code ?? `HTTP ${res.status}`,
          status: res.status,
          details: json.error?.details,
          retryAfter: res.headers.get("retry-after"),
        };
      }
      // toolbelt.call answers the inner call's response as its result.
      return { ok: true, result: wrap ? (json.result as { result: unknown }).result : json.result };
    },
    callAs: async (bearer, input) => refusalOf(await send(`Bearer ${bearer}`, input)),
  };
}

type ToolResult = { content?: { type: string; text?: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean };

/** MCP: one official client per door; `call_tool` wraps the tool, `direct` calls it by name (tools/call). */
export function mcpDoor(
  name: string,
  entry: string,
  opts: { url: string; route: Door["route"]; fetch: typeof fetch; revision: Revision; shape: "call_tool" | "direct" },
): Door {
  let client: AnyClient | undefined;
  const clientOf = async () => (client ??= await connect(opts.url, KEY, opts.revision, opts.fetch));
  const paramsOf = ({ tool, args, idempotencyKey }: CallInput) =>
    opts.shape === "call_tool"
      ? { name: "call_tool", arguments: { tool, args, ...(idempotencyKey ? { idempotency_key: idempotencyKey } : {}) } }
      : { name: tool, arguments: args as Record<string, unknown> };
  return {
    name,
    entry,
    route: opts.route,
    mcpDirect: opts.shape === "direct",
    call: async ({ tool, args, idempotencyKey }) => {
      // A direct tools/call has no field for an idempotency key (call_tool has `idempotency_key`).
      if (opts.shape === "direct" && idempotencyKey !== undefined) return undefined;
      const c = await clientOf();
      let r: ToolResult;
      try {
        r = (await c.callTool(paramsOf({ tool, args, ...(idempotencyKey ? { idempotencyKey } : {}) }))) as ToolResult;
      } catch (e) {
        const code = (e as { code?: unknown }).code;
        if (typeof code === "number") return { ok: false, code };
        throw e;
      }
      if (r.isError) {
        const error = r.structuredContent?.error;
        if (!isRecord(error) || typeof error.code !== "string") return { ok: false, code: `no structuredContent.error.code in ${JSON.stringify(r)}` };
        return { ok: false, code: error.code, ...(isRecord(error.details) ? { details: error.details } : {}) };
      }
      return { ok: true, result: r.structuredContent ?? r.content?.[0]?.text };
    },
    // A tools/call as the client would send it after initialize: a refused credential is HTTP 401 before any JSON-RPC.
    callAs: async (bearer, input) =>
      refusalOf(
        await opts.fetch(opts.url, {
          method: "POST",
          headers: {
            authorization: `Bearer ${bearer}`,
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            "mcp-protocol-version": opts.revision.slice(0, 10),
          },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: paramsOf(input) }),
        }),
      ),
    close: async () => {
      await client?.close();
    },
  };
}
