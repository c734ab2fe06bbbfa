// The one wiring, first half: parsed config (config.ts) in, the dependencies every entry point shares out
// (artifact, policy, briefs, models, sessions, finder, miss log). wiring.ts adds the call options (backends,
// exec, roots, idempotency, limits, credentials) for the entry points that call tools; the api Lambda takes
// only this half, so none of the call path's stores reach its bundle.
import { statSync } from "node:fs";
import { join } from "node:path";
import type { BriefFile } from "../../registry/contract/brief.js";
import type { PolicyFile } from "../../registry/contract/policy.js";
import { loadArtifact, type Artifact } from "../artifact.js";
import { loadConfig, type Config } from "../config.js";
import { parsePolicy } from "../core/auth.js";
import { parseBriefs } from "../core/deployment-files.js";
import { createDeps, type Deps, type DepsInput } from "../http/deps.js";
import { healthChecksFor } from "../http/routes/health.js";
import { jsonLogger, type Logger } from "../http/logger.js";
import type { OriginPolicy } from "../http/origin.js";
import { createModels, type ModelsOptions } from "../models/index.js";
import { gatewaySecretValues } from "../secrets.js";
import { clientFromConfig, DynamoSessionStore } from "../stores/dynamodb.js";
import { DynamoMissStore, FIND_MISSES } from "../stores/misses.js";

// The client's type comes from the store: only adapters import the AWS SDK (npm run check).
export type DynamoClient = ReturnType<typeof clientFromConfig>;
export type EnvMap = Readonly<Record<string, string | undefined>>;

export type WireInput = {
  config: Config;
  /** What tool templates read `${VAR}` from (each family only its declared variables). */
  env: EnvMap;
  client: DynamoClient;
  artifact: Artifact;
  policy: PolicyFile;
  briefs: readonly BriefFile[];
  logger: Logger;
  /** How model roles are built (the Bedrock adapter where the bundle carries it; skip roles without keys). */
  models: Pick<ModelsOptions, "skipMissingKeys" | "bedrock">;
  /** File roots when TOOLBELT_FILE_ROOTS is unset (`npm start`: the project directory; Lambda: none). */
  defaultFileRoots: readonly string[];
  /** The gateway's own files (data, artifact, policy, keys): no file or git tool reaches them, root or not. */
  internalPaths: readonly string[];
  /** Which pages may call; by default the configured origins, no Host check. */
  origins?: OriginPolicy;
  /** When the artifact was written; by default its manifest file's time (Lambda: the bundle's, which is the build's). */
  builtAt?: string;
  /** GET /v1/health's probes (routes/health.ts healthChecksFor), where that route is served: given by the entry point, so other bundles leave them out. */
  health?: DepsInput["health"];
  /** The key file sealing per-principal tokens when neither TOOLBELT_CREDENTIALS_* is set (`npm start`: .toolbelt/credentials-key; Lambda: none). */
  credentialsKeyFile?: string;
};

export type DepsWiring = {
  config: Config;
  client: DynamoClient;
  deps: Deps;
  /** The find-miss log's store: the one deps records into, and GET /v1/admin/misses?kind=find reads (one budget meter). */
  findMisses: DynamoMissStore;
};

export function wireDeps(input: WireInput): DepsWiring {
  const { config, client, env } = input;
  // Model errors are redacted of every secret the gateway holds, the families' declared ones included.
  const models = createModels(config.models, env, { ...input.models, secrets: gatewaySecretValues(env, input.artifact.families) });
  // Queries no tool answered well, for the operator (npm run misses -- --find).
  const findMisses = new DynamoMissStore(client, config.table, FIND_MISSES, { maxBytes: config.misses.findMaxBytes });
  const deps = createDeps({
    artifact: input.artifact,
    store: new DynamoSessionStore(client, config.table),
    policy: input.policy,
    briefs: input.briefs,
    config: { ...config, findMissesPerMinute: config.misses.findPerMinute, origins: input.origins ?? config.origins },
    logger: input.logger,
    models,
    findMisses,
    ...(input.builtAt ? { builtAt: input.builtAt } : {}),
    ...(input.health ? { health: input.health } : {}),
  });
  return { config, client, deps, findMisses };
}

/** What a Lambda reads from its environment, once, at module scope (after its secrets are in `env`: model roles read their keys from it). */
export function wireInputFromEnv(env: Record<string, string | undefined>, models: Pick<ModelsOptions, "skipMissingKeys" | "bedrock">): WireInput {
  const config = loadConfig(env);
  if (!config.policyJson) throw new Error("TOOLBELT_POLICY is not set: give the policy JSON (principals, key digests, grants) or a file path");
  return {
    config,
    env,
    client: clientFromConfig(config),
    artifact: loadArtifact(config.artifactDir),
    policy: withIdentity(parsePolicy(config.policyJson), config.identityJson),
    // Briefs come from TOOLBELT_BRIEFS (JSON or a file; the construct bundles briefs.json and points at it), else none.
    briefs: config.briefsJson ? parseBriefs(config.briefsJson, "TOOLBELT_BRIEFS") : [],
    logger: jsonLogger(),
    models,
    // No roots unless the deployment names them (fileRoots): file and git tools answer 403 until then.
    defaultFileRoots: [],
    internalPaths: [config.artifactDir],
  };
}

/** The artifact manifest's modification time, if the file can be read. */
export function builtAtOf(artifactDir: string): { builtAt?: string } {
  try {
    const mtime = statSync(join(artifactDir, "manifest.json")).mtime;
    // A Lambda asset's files all carry 1980-01-01 (the CDK zips them with a fixed time, so equal bundles
    // hash alike): that is no build time, and health leaves it out rather than report it.
    return mtime.getUTCFullYear() < 2000 ? {} : { builtAt: mtime.toISOString() };
  } catch {
    return {};
  }
}

/** The api (and console) Lambda's wiring: deps only, with GET /v1/health's probes (its upstreams' URLs read their settings from `env`). */
export function depsFromEnv(env: Record<string, string | undefined>, models: Pick<ModelsOptions, "skipMissingKeys" | "bedrock"> = {}): DepsWiring {
  const input = wireInputFromEnv(env, models);
  return wireDeps({ ...input, ...builtAtOf(input.config.artifactDir), health: (deps) => healthChecksFor(deps, env) });
}

/** The policy with TOOLBELT_IDENTITY's identity; both naming one is refused rather than one silently winning. */
function withIdentity(policy: PolicyFile, identityJson: string | undefined): PolicyFile {
  if (!identityJson) return policy;
  if (policy.identity) throw new Error("TOOLBELT_IDENTITY and the policy's identity are both set: keep one");
  return parsePolicy({ ...policy, identity: JSON.parse(identityJson) as unknown });
}
