// The one place the environment is parsed. Everything below `handlers/` receives a Config value.
import { existsSync, readFileSync } from "node:fs";
import { delimiter, isAbsolute } from "node:path";
import type { SurfaceBounds } from "./core/ports.js";

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
  /** Briefs JSON (the text): an array of brief objects or `{briefs: [...]}`. */
  briefsJson?: string;
  /** Always-loaded names/globs overriding the artifact's list (comma-separated in the env). */
  alwaysLoaded?: string[];
  sessionTtlSecs: number;
  surface: SurfaceBounds;
  http: HttpLimits;
  /** Run exec tools (TOOLBELT_EXEC, default on; `off` answers them 501). */
  exec: boolean;
  /**
   * Directories file and git tools may touch (TOOLBELT_FILE_ROOTS, `:`-separated absolute paths).
   * Unset: the entry point decides (`npm start`: the project directory; Lambda: none, so they answer 403).
   */
  fileRoots?: string[];
};

export const DEFAULT_SURFACE_BOUNDS: SurfaceBounds = { maxTools: 30, maxSchemaBytes: 24 * 1024, pinBudgetBytes: 8 * 1024 };
export const DEFAULT_HTTP_LIMITS: HttpLimits = { maxBodyBytes: 64 * 1024, maxUrlChars: 4096 };
export const DEFAULT_SESSION_TTL_SECS = 3600;

type Env = Record<string, string | undefined>;

function int(env: Env, key: string, fallback: number): number {
  const raw = env[key];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${key} must be a positive integer, got ${JSON.stringify(raw)}`);
  return n;
}

/** A value given either inline as JSON or as a path to a JSON file. */
function jsonOrFile(env: Env, key: string): string | undefined {
  const raw = env[key]?.trim();
  if (!raw) return undefined;
  if (raw.startsWith("{") || raw.startsWith("[")) return raw;
  if (!existsSync(raw)) throw new Error(`${key} is neither JSON nor an existing file: ${raw}`);
  return readFileSync(raw, "utf8");
}

function execSwitch(env: Env): boolean {
  const raw = env.TOOLBELT_EXEC?.trim() ?? "";
  if (raw === "" || raw === "on") return true;
  if (raw === "off") return false;
  throw new Error(`TOOLBELT_EXEC must be on or off, got ${JSON.stringify(raw)}`);
}

function fileRoots(env: Env): string[] | undefined {
  const raw = env.TOOLBELT_FILE_ROOTS;
  if (raw === undefined) return undefined;
  const roots = raw.split(delimiter).map((s) => s.trim()).filter(Boolean);
  const relative = roots.find((r) => !isAbsolute(r));
  if (relative !== undefined) throw new Error(`TOOLBELT_FILE_ROOTS entries must be absolute paths, got ${JSON.stringify(relative)}`);
  return roots;
}

export function loadConfig(env: Env = process.env): Config {
  const always = env.TOOLBELT_ALWAYS_LOADED?.split(",").map((s) => s.trim()).filter(Boolean);
  const endpoint = env.DYNAMODB_ENDPOINT?.trim();
  const policyJson = jsonOrFile(env, "TOOLBELT_POLICY");
  const briefsJson = jsonOrFile(env, "TOOLBELT_BRIEFS");
  const roots = fileRoots(env);
  return {
    artifactDir: env.TOOLBELT_ARTIFACT_DIR?.trim() || "dist/artifact",
    table: env.TOOLBELT_TABLE?.trim() || "toolbelt",
    region: env.AWS_REGION?.trim() || env.AWS_DEFAULT_REGION?.trim() || "us-east-1",
    ...(endpoint ? { dynamodbEndpoint: endpoint } : {}),
    ...(policyJson ? { policyJson } : {}),
    ...(briefsJson ? { briefsJson } : {}),
    ...(always?.length ? { alwaysLoaded: always } : {}),
    sessionTtlSecs: int(env, "TOOLBELT_SESSION_TTL_SECS", DEFAULT_SESSION_TTL_SECS),
    surface: {
      maxTools: int(env, "TOOLBELT_SURFACE_MAX_TOOLS", DEFAULT_SURFACE_BOUNDS.maxTools),
      maxSchemaBytes: int(env, "TOOLBELT_SURFACE_MAX_BYTES", DEFAULT_SURFACE_BOUNDS.maxSchemaBytes),
      pinBudgetBytes: int(env, "TOOLBELT_PIN_BUDGET_BYTES", DEFAULT_SURFACE_BOUNDS.pinBudgetBytes),
    },
    http: {
      maxBodyBytes: int(env, "TOOLBELT_MAX_BODY_BYTES", DEFAULT_HTTP_LIMITS.maxBodyBytes),
      maxUrlChars: int(env, "TOOLBELT_MAX_URL_CHARS", DEFAULT_HTTP_LIMITS.maxUrlChars),
    },
    exec: execSwitch(env),
    ...(roots ? { fileRoots: roots } : {}),
  };
}
