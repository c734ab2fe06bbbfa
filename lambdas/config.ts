// The one place the environment is parsed. Everything below `handlers/` receives a Config value.
import { existsSync, readFileSync } from "node:fs";
import { delimiter, isAbsolute } from "node:path";
import * as z from "./core/zod-mini.js";
import type { SurfaceBounds } from "./core/ports.js";
import { parseModelRoles, type ModelRoles } from "./models/roles.js";
import { DEFAULT_CONTINUATION_TTL_SECS, DEFAULT_RESULT_BUDGET_TOKENS } from "./contract/call.js";
import type { DeprecatedCalls } from "./core/deprecated.js";
import { HEALTH_CACHE_MS } from "./core/health.js";

export type HttpLimits = {
  /** Request bodies above this many bytes get 413. */
  maxBodyBytes: number;
  /** URLs (path + query) above this many characters get 414. */
  maxUrlChars: number;
};

export type Config = {
  artifactDir: string;
  table: string;
  /** DynamoDB endpoint override (dynalite locally and in tests); unset on AWS. */
  dynamodbEndpoint?: string;
  region: string;
  /** Policy JSON (the text, not a path): principals, key digests, grants. */
  policyJson?: string;
  /** The policy's identity given apart (TOOLBELT_IDENTITY: the construct's Cognito pool, whose ids exist only at deploy). */
  identityJson?: string;
  /** Briefs JSON (the text): an array of brief objects or `{briefs: [...]}`. */
  briefsJson?: string;
  /** Always-loaded names/globs overriding the artifact's list (comma-separated in the env). */
  alwaysLoaded?: string[];
  sessionTtlSecs: number;
  /** CloudWatch namespace of the metrics in the log lines (TOOLBELT_METRICS_NAMESPACE; the construct sets it). */
  metricsNamespace?: string;
  /** How long an idempotency key's first answer is replayed (TOOLBELT_IDEMPOTENCY_TTL_SECS, default 24 h). */
  idempotencyTtlSecs: number;
  /** How long a call held for approval waits for a decision and its completion (TOOLBELT_APPROVAL_TTL_SECS, default 1 h). */
  approvalTtlSecs: number;
  /** The oldest an MCP upstream's cached tools/list may be when a call is checked against its pinned definitions (TOOLBELT_MCP_LIST_MAX_AGE_SECS, default 5 min). */
  mcpListMaxAgeSecs: number;
  /** How long GET /v1/health serves one round of probes before it probes again (TOOLBELT_HEALTH_CACHE_SECS, default 30 s). */
  healthCacheSecs: number;
  /** Bounded results: o200k tokens of an answer before it is cut (TOOLBELT_RESULT_BUDGET_TOKENS), and how long its continuation lives (TOOLBELT_CONTINUATION_TTL_SECS). */
  results: { budgetTokens: number; continuationTtlSecs: number };
  /** A call to a deprecated tool: refused with 410 TOOL_DEPRECATED, or run with a warning (TOOLBELT_DEPRECATED_CALLS). */
  deprecatedCalls: DeprecatedCalls;
  surface: SurfaceBounds;
  http: HttpLimits;
  /** Run exec tools (TOOLBELT_EXEC, default on; `off` answers them 501). */
  exec: boolean;
  /**
   * Directories file and git tools may touch (TOOLBELT_FILE_ROOTS, `:`-separated absolute paths).
   * Unset: the entry point decides (`npm start`: the project directory; Lambda: none, so they answer 403).
   */
  fileRoots?: string[];
  /** Models by role (TOOLBELT_MODELS, JSON or a file path; lambdas/models/roles.ts): none configured is `{}`. */
  models: ModelRoles;
  /** Most model requests one find's decision mode sends, whatever chunk_size a caller asks (TOOLBELT_FIND_MAX_MODEL_REQUESTS, default 4). */
  findMaxModelRequests: number;
  /** The miss logs' bounds: find misses per principal per minute, and bytes of new items per 30 days for each log. */
  misses: { findPerMinute: number; findMaxBytes: number; callMaxBytes: number };
  /** Which browser pages may call the gateway (lambdas/http/origin.ts). */
  origins: OriginRules;
  /** `npm start` only: its port, data folder, log format and key (the Lambdas ignore these). */
  local: LocalSettings;
  /**
   * What seals per-principal upstream tokens (`credentials: per_principal`): a KMS key (TOOLBELT_CREDENTIALS_KMS_KEY,
   * id, ARN or alias; the construct sets it) or a local key file (TOOLBELT_CREDENTIALS_KEY_FILE); neither: none are stored.
   */
  credentials: { kmsKeyId?: string; keyFile?: string };
  /**
   * Audit records kept in the table for the operator console, besides the log line: on unless TOOLBELT_AUDIT_STORE=off,
   * each expiring TOOLBELT_AUDIT_TTL_DAYS after its call (default 7).
   */
  audit: { store: boolean; ttlDays: number };
};

export type OriginRules = {
  /** The gateway's own origins (TOOLBELT_PUBLIC_ORIGINS; the construct sets the API's URL and custom domain). */
  own: string[];
  /** Other origins whose pages may call the gateway (TOOLBELT_ALLOWED_ORIGINS, comma-separated). */
  allowed: string[];
};

export type LocalSettings = {
  /** PORT (default 8787; 0 picks a free one). */
  port?: string;
  /** TOOLBELT_DATA_DIR: dynalite's files; unset keeps the table in memory. */
  dataDir?: string;
  /** TOOLBELT_LOG_FORMAT: `json` for the Lambdas' lines, else one readable line per record. */
  logFormat: "json" | "readable";
  /** TOOLBELT_API_KEY: the local principal's key; unset, a random key kept in .toolbelt/local-key. */
  apiKey?: string;
  /** TOOLBELT_OAUTH=local (or `npm start -- --oauth`): a local authorization server and demo users (lambdas/local/oauth-provider.ts). */
  oauth: boolean;
};

/**
 * maxTokens: the issue's target for a surface with a brief of up to 8 tools (README "Token economy");
 * manifestMaxTokens: room for about 30 compact families (~33 o200k tokens each) when no brief fills the surface.
 */
export const DEFAULT_SURFACE_BOUNDS: SurfaceBounds = {
  maxTools: 30,
  maxSchemaBytes: 24 * 1024,
  pinBudgetBytes: 8 * 1024,
  maxTokens: 1500,
  manifestMaxTokens: 1000,
};
export const DEFAULT_HTTP_LIMITS: HttpLimits = { maxBodyBytes: 64 * 1024, maxUrlChars: 4096 };
export const DEFAULT_SESSION_TTL_SECS = 3600;
export const DEFAULT_IDEMPOTENCY_TTL_SECS = 24 * 3600;
export const DEFAULT_APPROVAL_TTL_SECS = 3600;
export const DEFAULT_FIND_MAX_MODEL_REQUESTS = 4;
/** Find misses recorded per principal per minute (core/misses.ts); the rest are counted and dropped. */
export const DEFAULT_FIND_MISSES_PER_MINUTE = 30;
/** Bytes of new items each miss log may write per 30-day window (stores/misses.ts). */
export const DEFAULT_MISSES_MAX_BYTES = 8 * 1024 * 1024;
/** Days an audit record stays in the table (the console reads the last hour or day). */
export const DEFAULT_AUDIT_TTL_DAYS = 7;

type Env = Record<string, string | undefined>;

/** A variable's value, trimmed; unset and blank are the same (the default applies). */
const text = z.pipe(
  z.optional(z.string()),
  z.transform((v) => v?.trim() || undefined),
);

/** A failed variable: the message names the variable (its key) and the value it had. */
const invalid = (ctx: { issues: unknown[] }, input: unknown, message: string) => {
  ctx.issues.push({ code: "custom", input, message });
  return z.NEVER;
};

const positiveInt = (fallback: number) =>
  z.pipe(
    z.optional(z.string()),
    z.transform((raw, ctx) => {
      if (raw === undefined || raw === "") return fallback;
      const n = Number(raw);
      return Number.isInteger(n) && n > 0 ? n : invalid(ctx, raw, `must be a positive integer, got ${JSON.stringify(raw)}`);
    }),
  );

/** A value given either inline as JSON or as a path to a JSON file: the JSON text. */
const jsonOrFile = z.pipe(
  text,
  z.transform((raw, ctx) => {
    if (raw === undefined || raw.startsWith("{") || raw.startsWith("[")) return raw;
    return existsSync(raw) ? readFileSync(raw, "utf8") : invalid(ctx, raw, `is neither JSON nor an existing file: ${raw}`);
  }),
);

const onOff = z.pipe(
  z.optional(z.string()),
  z.transform((v, ctx) => {
    const raw = v?.trim() ?? "";
    return raw === "" || raw === "on" ? true : raw === "off" ? false : invalid(ctx, raw, `must be on or off, got ${JSON.stringify(raw)}`);
  }),
);

/** `:`-separated absolute paths; unset stays unset, empty is none. */
const absolutePaths = z.pipe(
  z.optional(z.string()),
  z.transform((raw, ctx) => {
    if (raw === undefined) return undefined;
    const paths = raw
      .split(delimiter)
      .map((s) => s.trim())
      .filter(Boolean);
    const relative = paths.find((r) => !isAbsolute(r));
    return relative === undefined ? paths : invalid(ctx, raw, `entries must be absolute paths, got ${JSON.stringify(relative)}`);
  }),
);

/** Comma-separated origins (`scheme://host[:port]`, no path): each normalised by URL, a bad one named. */
const originList = z.pipe(
  z.optional(z.string()),
  z.transform((raw, ctx) => {
    const out: string[] = [];
    for (const item of (raw ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean)) {
      let url: URL | undefined;
      try {
        url = new URL(item);
      } catch {
        url = undefined;
      }
      if (!url || !/^https?:$/.test(url.protocol) || url.origin !== item.replace(/\/$/, "")) {
        return invalid(ctx, raw, `entries must be origins such as https://console.example.com (scheme, host, port; no path), got ${JSON.stringify(item)}`);
      }
      out.push(url.origin);
    }
    return out;
  }),
);

const commaList = z.pipe(
  z.optional(z.string()),
  z.transform((raw) =>
    raw
      ?.split(",")
      .map((s) => s.trim())
      .filter(Boolean),
  ),
);

/** Every variable the gateway reads; others in the environment are ignored. */
const EnvSchema = z.object({
  TOOLBELT_ARTIFACT_DIR: text,
  TOOLBELT_TABLE: text,
  AWS_REGION: text,
  AWS_DEFAULT_REGION: text,
  DYNAMODB_ENDPOINT: text,
  TOOLBELT_POLICY: jsonOrFile,
  TOOLBELT_IDENTITY: jsonOrFile,
  TOOLBELT_BRIEFS: jsonOrFile,
  TOOLBELT_ALWAYS_LOADED: commaList,
  TOOLBELT_SESSION_TTL_SECS: positiveInt(DEFAULT_SESSION_TTL_SECS),
  TOOLBELT_IDEMPOTENCY_TTL_SECS: positiveInt(DEFAULT_IDEMPOTENCY_TTL_SECS),
  TOOLBELT_APPROVAL_TTL_SECS: positiveInt(DEFAULT_APPROVAL_TTL_SECS),
  TOOLBELT_MCP_LIST_MAX_AGE_SECS: positiveInt(300),
  TOOLBELT_HEALTH_CACHE_SECS: positiveInt(HEALTH_CACHE_MS / 1000),
  TOOLBELT_RESULT_BUDGET_TOKENS: positiveInt(DEFAULT_RESULT_BUDGET_TOKENS),
  TOOLBELT_CONTINUATION_TTL_SECS: positiveInt(DEFAULT_CONTINUATION_TTL_SECS),
  TOOLBELT_DEPRECATED_CALLS: z.pipe(
    z.optional(z.string()),
    z.transform((v, ctx): DeprecatedCalls => {
      const raw = v?.trim() ?? "";
      return raw === "" || raw === "refuse" ? "refuse" : raw === "warn" ? "warn" : invalid(ctx, raw, `must be refuse or warn, got ${JSON.stringify(raw)}`);
    }),
  ),
  TOOLBELT_METRICS_NAMESPACE: text,
  TOOLBELT_SURFACE_MAX_TOOLS: positiveInt(DEFAULT_SURFACE_BOUNDS.maxTools),
  TOOLBELT_SURFACE_MAX_BYTES: positiveInt(DEFAULT_SURFACE_BOUNDS.maxSchemaBytes),
  TOOLBELT_PIN_BUDGET_BYTES: positiveInt(DEFAULT_SURFACE_BOUNDS.pinBudgetBytes),
  TOOLBELT_SURFACE_MAX_TOKENS: positiveInt(DEFAULT_SURFACE_BOUNDS.maxTokens),
  TOOLBELT_MANIFEST_MAX_TOKENS: positiveInt(DEFAULT_SURFACE_BOUNDS.manifestMaxTokens),
  TOOLBELT_MAX_BODY_BYTES: positiveInt(DEFAULT_HTTP_LIMITS.maxBodyBytes),
  TOOLBELT_MAX_URL_CHARS: positiveInt(DEFAULT_HTTP_LIMITS.maxUrlChars),
  TOOLBELT_EXEC: onOff,
  TOOLBELT_FILE_ROOTS: absolutePaths,
  TOOLBELT_MODELS: jsonOrFile,
  TOOLBELT_FIND_MAX_MODEL_REQUESTS: positiveInt(DEFAULT_FIND_MAX_MODEL_REQUESTS),
  TOOLBELT_FIND_MISSES_PER_MINUTE: positiveInt(DEFAULT_FIND_MISSES_PER_MINUTE),
  TOOLBELT_FIND_MISSES_MAX_BYTES: positiveInt(DEFAULT_MISSES_MAX_BYTES),
  TOOLBELT_MISSES_MAX_BYTES: positiveInt(DEFAULT_MISSES_MAX_BYTES),
  TOOLBELT_PUBLIC_ORIGINS: originList,
  TOOLBELT_ALLOWED_ORIGINS: originList,
  PORT: text,
  TOOLBELT_DATA_DIR: text,
  TOOLBELT_LOG_FORMAT: text,
  TOOLBELT_API_KEY: text,
  TOOLBELT_OAUTH: z.pipe(
    z.optional(z.string()),
    z.transform((v, ctx) => {
      const raw = v?.trim() ?? "";
      return raw === "" || raw === "off" ? false : raw === "local" ? true : invalid(ctx, raw, `must be local or off, got ${JSON.stringify(raw)}`);
    }),
  ),
  TOOLBELT_CREDENTIALS_KMS_KEY: text,
  TOOLBELT_CREDENTIALS_KEY_FILE: text,
  TOOLBELT_AUDIT_STORE: onOff,
  TOOLBELT_AUDIT_TTL_DAYS: positiveInt(DEFAULT_AUDIT_TTL_DAYS),
});

/** Parse the environment once; every bad variable is named in one error. */
export function loadConfig(env: Env = process.env): Config {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) throw new Error(parsed.error.issues.map((i) => `${i.path.map(String).join(".")} ${i.message}`).join("; "));
  const e = parsed.data;
  return {
    artifactDir: e.TOOLBELT_ARTIFACT_DIR ?? "dist/artifact",
    table: e.TOOLBELT_TABLE ?? "toolbelt",
    region: e.AWS_REGION ?? e.AWS_DEFAULT_REGION ?? "us-east-1",
    ...(e.DYNAMODB_ENDPOINT ? { dynamodbEndpoint: e.DYNAMODB_ENDPOINT } : {}),
    ...(e.TOOLBELT_POLICY ? { policyJson: e.TOOLBELT_POLICY } : {}),
    ...(e.TOOLBELT_IDENTITY ? { identityJson: e.TOOLBELT_IDENTITY } : {}),
    ...(e.TOOLBELT_BRIEFS ? { briefsJson: e.TOOLBELT_BRIEFS } : {}),
    ...(e.TOOLBELT_ALWAYS_LOADED?.length ? { alwaysLoaded: e.TOOLBELT_ALWAYS_LOADED } : {}),
    sessionTtlSecs: e.TOOLBELT_SESSION_TTL_SECS,
    idempotencyTtlSecs: e.TOOLBELT_IDEMPOTENCY_TTL_SECS,
    approvalTtlSecs: e.TOOLBELT_APPROVAL_TTL_SECS,
    mcpListMaxAgeSecs: e.TOOLBELT_MCP_LIST_MAX_AGE_SECS,
    healthCacheSecs: e.TOOLBELT_HEALTH_CACHE_SECS,
    results: { budgetTokens: e.TOOLBELT_RESULT_BUDGET_TOKENS, continuationTtlSecs: e.TOOLBELT_CONTINUATION_TTL_SECS },
    deprecatedCalls: e.TOOLBELT_DEPRECATED_CALLS,
    ...(e.TOOLBELT_METRICS_NAMESPACE ? { metricsNamespace: e.TOOLBELT_METRICS_NAMESPACE } : {}),
    surface: {
      maxTools: e.TOOLBELT_SURFACE_MAX_TOOLS,
      maxSchemaBytes: e.TOOLBELT_SURFACE_MAX_BYTES,
      pinBudgetBytes: e.TOOLBELT_PIN_BUDGET_BYTES,
      maxTokens: e.TOOLBELT_SURFACE_MAX_TOKENS,
      manifestMaxTokens: e.TOOLBELT_MANIFEST_MAX_TOKENS,
    },
    http: {
      maxBodyBytes: e.TOOLBELT_MAX_BODY_BYTES,
      maxUrlChars: e.TOOLBELT_MAX_URL_CHARS,
    },
    exec: e.TOOLBELT_EXEC,
    ...(e.TOOLBELT_FILE_ROOTS ? { fileRoots: e.TOOLBELT_FILE_ROOTS } : {}),
    models: parseModelRoles(e.TOOLBELT_MODELS),
    findMaxModelRequests: e.TOOLBELT_FIND_MAX_MODEL_REQUESTS,
    misses: {
      findPerMinute: e.TOOLBELT_FIND_MISSES_PER_MINUTE,
      findMaxBytes: e.TOOLBELT_FIND_MISSES_MAX_BYTES,
      callMaxBytes: e.TOOLBELT_MISSES_MAX_BYTES,
    },
    origins: { own: e.TOOLBELT_PUBLIC_ORIGINS, allowed: e.TOOLBELT_ALLOWED_ORIGINS },
    local: {
      ...(e.PORT ? { port: e.PORT } : {}),
      ...(e.TOOLBELT_DATA_DIR ? { dataDir: e.TOOLBELT_DATA_DIR } : {}),
      logFormat: e.TOOLBELT_LOG_FORMAT === "json" ? "json" : "readable",
      ...(e.TOOLBELT_API_KEY ? { apiKey: e.TOOLBELT_API_KEY } : {}),
      oauth: e.TOOLBELT_OAUTH,
    },
    credentials: {
      ...(e.TOOLBELT_CREDENTIALS_KMS_KEY ? { kmsKeyId: e.TOOLBELT_CREDENTIALS_KMS_KEY } : {}),
      ...(e.TOOLBELT_CREDENTIALS_KEY_FILE ? { keyFile: e.TOOLBELT_CREDENTIALS_KEY_FILE } : {}),
    },
    audit: { store: e.TOOLBELT_AUDIT_STORE, ttlDays: e.TOOLBELT_AUDIT_TTL_DAYS },
  };
}
