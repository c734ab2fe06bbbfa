// The deployment's models by role, built once per cold start from TOOLBELT_MODELS (config.ts) and
// the environment the roles' `key_env` name (on Lambda, TOOLBELT_SECRETS fills them from SSM first).
import type { ModelPort, Models } from "../core/ports.js";
import { Secrets } from "../core/redaction.js";
import { redactedError, type Redactor } from "../core/redaction.js";
import { gatewaySecretValues } from "../secrets.js";
import { openAiModel } from "./openai.js";
import { MODELS_ENV, timeoutOf, type ModelRoles } from "./roles.js";

type Env = Readonly<Record<string, string | undefined>>;

export type ModelsOptions = {
  /** fetch for the OpenAI-compatible adapter (tests may pass their own). */
  fetch?: typeof fetch;
  /**
   * Leave out roles whose key variable is unset instead of failing (the api function, which loads no
   * secrets: such a role is then `unavailable` there, and find falls back to keywords saying why).
   */
  skipMissingKeys?: boolean;
  /**
   * The Bedrock adapter (about 88 KB of SDK client), passed by the functions that carry it (call,
   * MCP, `npm start`); without it a bedrock role is unavailable, and find says so in fallback_reason.
   */
  bedrock?: typeof import("./bedrock.js").bedrockModel;
  /**
   * More values to redact from model errors besides those found in `env` (the gateway's credentials,
   * TOOLBELT_SECRETS, the roles' keys): the families' declared secrets, gatewaySecretValues(env, families).
   */
  secrets?: readonly string[];
  /** Largest answer read from an OpenAI-compatible endpoint (DEFAULT_MAX_RESPONSE_BYTES, 4 MiB). */
  maxResponseBytes?: number;
};

/**
 * A port whose failures carry no secret: an endpoint's error body may echo anything it was sent or
 * holds, and find shows it in `fallback_reason`, a prompt tool in its 502, the log in its error line.
 */
function redacting(port: ModelPort, redactor: Redactor): ModelPort {
  const clean = (e: unknown) => {
    throw redactedError(e, redactor);
  };
  return {
    role: port.role,
    provider: port.provider,
    model: port.model,
    timeoutMs: port.timeoutMs,
    complete: (request) => port.complete(request).catch(clean),
    choose: (request) => port.choose(request).catch(clean),
  };
}

export const NO_MODELS: Models = { get: () => undefined, roles: () => [], unavailable: () => undefined };

/** Every role's adapter; a role whose key variable is unset fails here, naming the role and the variable. */
export function createModels(roles: ModelRoles, env: Env, options: ModelsOptions = {}): Models {
  const ports = new Map<string, ModelPort>();
  const skipped = new Map<string, string>();
  const problems: string[] = [];
  const redactor = new Secrets([...gatewaySecretValues(env, [], roles), ...(options.secrets ?? [])]);
  for (const [role, spec] of Object.entries(roles)) {
    const timeoutMs = timeoutOf(role, spec);
    if (spec.provider === "openai") {
      const key = spec.key_env === undefined ? undefined : env[spec.key_env];
      if (spec.key_env !== undefined && !key) {
        const problem = `role "${role}": key_env names ${spec.key_env}, which is not set (on Lambda, map it to its SSM parameter in TOOLBELT_SECRETS)`;
        if (options.skipMissingKeys) skipped.set(role, problem);
        else problems.push(problem);
        continue;
      }
      ports.set(role, redacting(openAiModel(role, spec, timeoutMs, key, options.fetch, options.maxResponseBytes), redactor));
    } else if (options.bedrock) {
      ports.set(role, redacting(options.bedrock(role, spec, timeoutMs), redactor));
    } else {
      skipped.set(role, `role "${role}" uses Bedrock, whose client this function does not carry (find's decision mode needs an OpenAI-compatible decider)`);
    }
  }
  if (problems.length) throw new Error(`${MODELS_ENV}: ${problems.join("; ")}`);
  const names = Object.keys(roles).sort();
  return {
    get: (role) => (Object.hasOwn(roles, role) ? ports.get(role) : undefined),
    roles: () => names,
    unavailable: (role) => (Object.hasOwn(roles, role) ? skipped.get(role) : undefined),
  };
}
