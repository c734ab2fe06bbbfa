// Upstream secrets (tokens that http/mcp tools reference as `${NAME}`) are read from SSM Parameter
// Store at cold start, never baked into the bundle or the template. The deployment passes only
// names: TOOLBELT_SECRETS = {"GITHUB_TOKEN": "/toolbelt/github-token", ...}. Secrets Manager
// secrets come through SSM's `/aws/reference/secretsmanager/NAME` path, so one client serves both.
// Like stores/, this is an adapter: the SSM client is imported here only, and only when needed.
import type { FamilyInfo } from "../registry/contract/artifact.js";
import { Secrets, secretValuesOf } from "./core/redaction.js";

type EnvMap = Readonly<Record<string, string | undefined>>;
import { ToolbeltError } from "./core/errors.js";
import { MODELS_ENV, parseModelRoles, type ModelRoles } from "./models/roles.js";

export const SECRETS_ENV = "TOOLBELT_SECRETS";

/** Environment variable name → SSM parameter name. */
export type SecretSpec = Record<string, string>;

/** Reads one parameter's decrypted value; `undefined` when it does not exist. */
export type ParameterReader = (name: string) => Promise<string | undefined>;

type Env = Record<string, string | undefined>;

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function parseSecretSpec(raw: string | undefined): SecretSpec {
  if (raw === undefined || raw.trim() === "") return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ToolbeltError("INTERNAL", `${SECRETS_ENV} is not JSON`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new ToolbeltError("INTERNAL", `${SECRETS_ENV} must be an object of NAME: "/parameter/name"`);
  }
  const spec: SecretSpec = {};
  for (const [name, parameter] of Object.entries(parsed)) {
    // `__proto__` cannot be a key of the spec or of the values put into the environment (assigning it sets a prototype).
    if (!ENV_NAME.test(name) || name === "__proto__" || typeof parameter !== "string" || parameter === "") {
      throw new ToolbeltError("INTERNAL", `${SECRETS_ENV}: entry ${JSON.stringify(name)} must map a variable name to a parameter name`);
    }
    spec[name] = parameter;
  }
  return spec;
}

/**
 * Reads every parameter in parallel. A missing or unreadable one fails the whole resolution with
 * the variable and parameter names (never a value): a gateway half-configured with secrets would
 * fail later, per call, far from the cause.
 */
export async function resolveSecrets(spec: SecretSpec, read: ParameterReader): Promise<Record<string, string>> {
  const entries = Object.entries(spec);
  const results = await Promise.allSettled(entries.map(([, parameter]) => read(parameter)));
  const values: Record<string, string> = {};
  const problems: { name: string; parameter: string; reason: string }[] = [];
  results.forEach((result, i) => {
    const [name, parameter] = entries[i]!;
    if (result.status === "rejected") {
      const err = result.reason as { name?: string };
      problems.push({ name, parameter, reason: err?.name ?? "read failed" });
    } else if (result.value === undefined) {
      problems.push({ name, parameter, reason: "ParameterNotFound" });
    } else {
      values[name] = result.value;
    }
  });
  if (problems.length > 0) {
    throw new ToolbeltError("UNAVAILABLE", `upstream secrets could not be read: ${problems.map((p) => `${p.name} (${p.parameter}: ${p.reason})`).join(", ")}`, {
      secrets: problems,
    });
  }
  return values;
}

/** A reader over the real SSM API (`AWS_ENDPOINT_URL_SSM` points it elsewhere, as in tests). */
export function ssmParameterReader(opts: { region?: string } = {}): ParameterReader {
  // Loaded on first use: functions without secrets never pay for the SSM client at cold start.
  type Ssm = typeof import("@aws-sdk/client-ssm");
  let ssm: Promise<{ client: InstanceType<Ssm["SSMClient"]>; GetParameterCommand: Ssm["GetParameterCommand"] }> | undefined;
  return async (name) => {
    ssm ??= import("@aws-sdk/client-ssm").then((m) => ({
      client: new m.SSMClient(opts.region ? { region: opts.region } : {}),
      GetParameterCommand: m.GetParameterCommand,
    }));
    const { client, GetParameterCommand } = await ssm;
    try {
      const out = await client.send(new GetParameterCommand({ Name: name, WithDecryption: true }));
      return out.Parameter?.Value;
    } catch (err) {
      if ((err as { name?: string }).name === "ParameterNotFound") return undefined;
      throw err;
    }
  };
}

/**
 * Resolves the deployment's secrets into `env` (process.env by default) and returns the names set.
 * Call once at module scope of a handler that dispatches to upstreams, before the first request.
 * A variable already set is left alone, so local runs can pass secrets directly.
 */
export async function loadSecretsIntoEnv(env: Env = process.env, read?: ParameterReader): Promise<string[]> {
  const spec = parseSecretSpec(env[SECRETS_ENV]);
  // A string value means set; process.env inherits `constructor`, which is not a set variable.
  const wanted = Object.fromEntries(Object.entries(spec).filter(([name]) => typeof env[name] !== "string"));
  if (Object.keys(wanted).length === 0) return [];
  const region = env.AWS_REGION ?? env.AWS_DEFAULT_REGION;
  const values = await resolveSecrets(wanted, read ?? ssmParameterReader(region ? { region } : {}));
  Object.assign(env, values);
  return Object.keys(values).sort();
}

/**
 * Every value the gateway never shows a caller: its own credentials (TOOLBELT_API_KEY, AWS keys), what
 * TOOLBELT_SECRETS loads, the model roles' keys and the secrets `families` declare. Values shorter than
 * four characters are left out by the redactor (they would mangle ordinary text).
 */
export function gatewaySecretValues(
  env: EnvMap,
  families: readonly Pick<FamilyInfo, "name" | "variables">[] = [],
  roles: ModelRoles = parseModelRoles(env[MODELS_ENV]),
): string[] {
  const keys = Object.values(roles).flatMap((r) => (r.provider === "openai" && r.key_env !== undefined ? [r.key_env] : []));
  return secretValuesOf(families, env, [...Object.keys(parseSecretSpec(env[SECRETS_ENV])), ...keys]);
}

/** The call gateway's redactor (createCallGateway's `redactor`): built once per cold start. */
export const gatewayRedactor = (env: EnvMap, families: readonly Pick<FamilyInfo, "name" | "variables">[]): Secrets =>
  new Secrets(gatewaySecretValues(env, families));
