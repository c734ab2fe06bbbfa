// TOOLBELT_MODELS: which model answers each role (`decider` for find's decision mode, `prompt` for
// prompt tools, or any role a prompt tool names), where it is and how to authenticate. Parsed once
// at start by config.ts; every problem names the role and the field.
import { DECIDER_ROLE, MODELS_ENV } from "../../registry/contract/model-roles.js";
import * as z from "../core/zod-mini.js";

export { DECIDER_ROLE, MODELS_ENV };
/**
 * A decision runs inside the api function's 10 s timeout and must leave time for the keyword
 * fallback and the response, so the decider's budget defaults to 4 s and may not exceed 8 s.
 */
export const DECIDER_TIMEOUT_MS = { default: 4_000, max: 8_000 } as const;
/** Other roles answer prompt tools, whose own `timeout_secs` bounds the call as well. */
export const DEFAULT_MODEL_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_TOKENS = 1_024;

const ROLE_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const httpUrl = z.string().check(
  z.refine((u) => {
    try {
      return ["http:", "https:"].includes(new URL(u).protocol);
    } catch {
      return false;
    }
  }, "must be an http(s) URL"),
);

const common = {
  model: z.string().check(z.minLength(1)),
  timeout_ms: z.optional(z.number().check(z.int(), z.minimum(100), z.maximum(900_000))),
  max_tokens: z.optional(z.number().check(z.int(), z.minimum(1), z.maximum(100_000))),
};

const OpenAiRole = z.strictObject({
  provider: z.literal("openai"),
  ...common,
  /** Base URL of an OpenAI-compatible API (…/v1): requests go to `${url}/chat/completions`. */
  url: httpUrl,
  /** Environment variable holding the API key (on Lambda, TOOLBELT_SECRETS fills it from SSM). */
  key_env: z.optional(z.string().check(z.regex(ENV_NAME, "must be an environment variable name"))),
});

const BedrockRole = z.strictObject({
  provider: z.literal("bedrock"),
  ...common,
  region: z.optional(z.string().check(z.regex(/^[a-z]{2}(-[a-z]+)+-\d$/, "must be an AWS region such as us-east-1"))),
  /** Endpoint override (a VPC endpoint, or a loopback server in tests). */
  endpoint: z.optional(httpUrl),
});

const ModelRole = z.discriminatedUnion("provider", [OpenAiRole, BedrockRole]);
export type ModelRole = z.infer<typeof ModelRole>;
export type ModelRoles = Record<string, ModelRole>;

/** The role's call budget: its `timeout_ms`, or the default for its kind. */
export const timeoutOf = (role: string, spec: ModelRole): number =>
  spec.timeout_ms ?? (role === DECIDER_ROLE ? DECIDER_TIMEOUT_MS.default : DEFAULT_MODEL_TIMEOUT_MS);

/** Parses TOOLBELT_MODELS' JSON text (unset: no roles). Throws one Error naming every bad role and field. */
export function parseModelRoles(text: string | undefined): ModelRoles {
  if (text === undefined || text.trim() === "") return {};
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new Error(`${MODELS_ENV} is not JSON: ${(e as Error).message}`);
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw new Error(`${MODELS_ENV} must be an object of role → {provider, model, ...}, e.g. {"decider": {"provider": "openai", "url": "…/v1", "model": "…"}}`);
  }
  const roles: ModelRoles = {};
  const problems: string[] = [];
  for (const [role, spec] of Object.entries(raw)) {
    if (!ROLE_NAME.test(role) || role === "__proto__") {
      problems.push(`role ${JSON.stringify(role)}: a role name is letters, digits, _ and - (starting with a letter)`);
      continue;
    }
    const parsed = ModelRole.safeParse(spec);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        const field = issue.path.map(String).join(".");
        problems.push(`role "${role}": ${field === "provider" ? 'provider must be "openai" or "bedrock"' : `${field ? `${field} ` : ""}${issue.message}`}`);
      }
      continue;
    }
    if (role === DECIDER_ROLE && (parsed.data.timeout_ms ?? 0) > DECIDER_TIMEOUT_MS.max) {
      problems.push(`role "${role}": timeout_ms must be at most ${DECIDER_TIMEOUT_MS.max} (find answers inside the api function's 10 s)`);
      continue;
    }
    roles[role] = parsed.data;
  }
  if (problems.length) throw new Error(`${MODELS_ENV}: ${problems.join("; ")}`);
  return roles;
}
