import type { ArtifactInput } from "../../../build/artifact.js";
import type { CatalogTool } from "../../../registry/contract/artifact.js";
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

/** notes.* calls the upstream with its secret; vault.peek's upstream echoes notes' secret; leaky.egress resolves outside its egress. */
export function parityTools(): CatalogTool[] {
  return [
    notes("add"),
    notes("charge", { governance: { consequential: true, affects: "account" }, input_schema: strings("account") }),
    notes("fail"),
    notes("busy"),
    notes("echo-auth"),
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

export const parityInput = (): ArtifactInput =>
  testArtifactInput(parityTools(), {
    always_loaded: ["notes.add"],
    variables: {
      notes: { NOTES_URL: { secret: false }, NOTES_TOKEN: { secret: true } },
      vault: { VAULT_URL: { secret: false }, VAULT_KEY: { secret: true } },
      leaky: { LEAKY_TARGET: { secret: false }, LEAKY_ALLOWED: { secret: false } },
      admin: { NOTES_URL: { secret: false } },
    },
  });

/** One principal: everything but admin.*. */
export const parityPolicy = (): PolicyFile => ({
  version: 1,
  principals: [{ id: "agent", keys: [sha256Hex(KEY)], allow: ["*"], deny: ["admin.*"], admin: false }],
});

export const parityBriefs = (): BriefFile[] => [{ version: 1, name: BRIEF, description: "Take notes and read files", tools: ["notes.*", "files.head"] }];

export type Upstreams = {
  /** What the tools may reach. */
  notes: Loopback;
  /** What leaky.egress resolves to: it must never see a request. */
  elsewhere: Loopback;
  /** Requests to notes.charge by account (one account per door). */
  charges: Map<string, number>;
  elsewhereHits(): number;
  close(): Promise<void>;
};

export async function startUpstreams(): Promise<Upstreams> {
  const charges = new Map<string, number>();
  let elsewhereHits = 0;
  const json = (res: import("node:http").ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end(JSON.stringify(value));
  };
  const notesServer = await startLoopback((req, res, body) => {
    const sent = (body ? JSON.parse(body) : {}) as Record<string, string>;
    switch (new URL(req.url ?? "/", "http://x").pathname) {
      case "/add":
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
    elsewhereHits: () => elsewhereHits,
    close: async () => {
      await Promise.all([notesServer.close(), elsewhere.close()]);
    },
  };
}

/** What a caller got: a success with its result, or an error code (a REST/tool-result code, or a JSON-RPC error's number). */
export type Outcome = { ok: true; result: unknown } | { ok: false; code: string | number; status?: number };

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
  close?: () => Promise<void>;
};

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
  return {
    name,
    entry,
    route: "/v1/call",
    mcpDirect: false,
    call: async ({ tool, args, idempotencyKey }) => {
      const body = wrap ? { tool: "toolbelt.call", args: { tool, args } } : { tool, args };
      const res = await fetchImpl(`${base}/v1/call`, {
        method: "POST",
        headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json", ...(idempotencyKey ? { "idempotency-key": idempotencyKey } : {}) },
        body: JSON.stringify(body),
      });
      const json = (await res.json()) as { result?: unknown; error?: { code: string } };
      if (res.status !== 200) return { ok: false, code: json.error?.code ?? `HTTP ${res.status}`, status: res.status };
      // toolbelt.call answers the inner call's response as its result.
      return { ok: true, result: wrap ? (json.result as { result: unknown }).result : json.result };
    },
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
  return {
    name,
    entry,
    route: opts.route,
    mcpDirect: opts.shape === "direct",
    call: async ({ tool, args, idempotencyKey }) => {
      // A direct tools/call has no field for an idempotency key (call_tool has `idempotency_key`).
      if (opts.shape === "direct" && idempotencyKey !== undefined) return undefined;
      const c = await clientOf();
      const params =
        opts.shape === "call_tool"
          ? { name: "call_tool", arguments: { tool, args, ...(idempotencyKey ? { idempotency_key: idempotencyKey } : {}) } }
          : { name: tool, arguments: args as Record<string, unknown> };
      let r: ToolResult;
      try {
        r = (await c.callTool(params)) as ToolResult;
      } catch (e) {
        const code = (e as { code?: unknown }).code;
        if (typeof code === "number") return { ok: false, code };
        throw e;
      }
      if (r.isError) {
        const error = r.structuredContent?.error;
        return { ok: false, code: isRecord(error) && typeof error.code === "string" ? error.code : `no structuredContent.error.code in ${JSON.stringify(r)}` };
      }
      return { ok: true, result: r.structuredContent ?? r.content?.[0]?.text };
    },
    close: async () => {
      await client?.close();
    },
  };
}
