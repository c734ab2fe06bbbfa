// The one wiring: parsed config (config.ts) in, the gateway's dependencies out. Every entry point (the
// api, call and MCP Lambdas, and `npm start`'s REST and MCP) takes its deps and its call options from
// here, so exec off, file roots, the paths no tool may reach, idempotency and the miss logs are the same
// behind every door. No entry point reads the environment or builds a backend itself.
import type { BriefFile } from "../../registry/contract/brief.js";
import type { PolicyFile } from "../../registry/contract/policy.js";
import { loadArtifact, type Artifact } from "../artifact.js";
import { loadConfig, type Config } from "../config.js";
import { parsePolicy } from "../core/auth.js";
import { parseBriefs } from "../core/deployment-files.js";
import type { EnvMap } from "../backends/templates.js";
import type { CallModuleOptions } from "../http/routes/call.js";
import { createDeps, type Deps } from "../http/deps.js";
import { jsonLogger, type Logger } from "../http/logger.js";
import type { OriginPolicy } from "../http/origin.js";
import { createModels, type ModelsOptions } from "../models/index.js";
import { gatewaySecretValues } from "../secrets.js";
import { clientFromConfig, DynamoSessionStore } from "../stores/dynamodb.js";
import { DynamoIdempotencyStore } from "../stores/idempotency.js";
import { DynamoLimitStore } from "../stores/limits.js";
import { declaresLimits } from "../core/limits.js";
import { DynamoMissStore, FIND_MISSES } from "../stores/misses.js";

// The client's type comes from the store: only adapters import the AWS SDK (npm run check).
type DynamoClient = ReturnType<typeof clientFromConfig>;

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
  /** The key file sealing per-principal tokens when neither TOOLBELT_CREDENTIALS_* is set (`npm start`: .toolbelt/credentials-key; Lambda: none). */
  credentialsKeyFile?: string;
};

export type Wiring = {
  config: Config;
  client: DynamoClient;
  deps: Deps;
  /** For createCallModule and createMcpModule alike: one set of backends options for every door. */
  call: CallModuleOptions;
};

export function wire(input: WireInput): Wiring {
  const { config, client, env } = input;
  // Model errors are redacted of every secret the gateway holds, the families' declared ones included.
  const models = createModels(config.models, env, { ...input.models, secrets: gatewaySecretValues(env, input.artifact.families) });
  const findMisses = new DynamoMissStore(client, config.table, FIND_MISSES, { maxBytes: config.misses.findMaxBytes });
  const deps = createDeps({
    artifact: input.artifact,
    store: new DynamoSessionStore(client, config.table),
    policy: input.policy,
    briefs: input.briefs,
    config: { ...config, findMissesPerMinute: config.misses.findPerMinute, origins: input.origins ?? config.origins },
    logger: input.logger,
    models,
    // Queries no tool answered well, for the operator (npm run misses -- --find).
    findMisses,
  });
  const call: CallModuleOptions = {
    env,
    misses: new DynamoMissStore(client, config.table, undefined, { maxBytes: config.misses.callMaxBytes }),
    findMisses,
    idempotency: { store: new DynamoIdempotencyStore(client, config.table), windowSecs: config.idempotencyTtlSecs },
    // exec runs the registry's commands on this host; TOOLBELT_EXEC=off refuses them with 501 at every door.
    exec: config.exec,
    fileRoots: config.fileRoots ?? input.defaultFileRoots,
    deniedPaths: input.internalPaths,
    // Principals' sealed upstream tokens, in the same table (the store is built by the call path only); sealed with KMS on AWS, with a key file locally.
    credentials: {
      client,
      table: config.table,
      keys: {
        region: config.region,
        ...(config.credentials.kmsKeyId ? { kmsKeyId: config.credentials.kmsKeyId } : {}),
        ...((config.credentials.keyFile ?? input.credentialsKeyFile) ? { keyFile: config.credentials.keyFile ?? input.credentialsKeyFile } : {}),
      },
    },
    // Counted in the table only when the policy declares a limit: otherwise calls write nothing for them.
    ...(declaresLimits(input.policy) ? { limits: { store: new DynamoLimitStore(client, config.table), policy: input.policy } } : {}),
  };
  return { config, client, deps, call };
}

/** Call once, at module scope of a Lambda handler (after its secrets are in `env`: model roles read their keys from it). */
export function wireFromEnv(env: Record<string, string | undefined> = process.env, opts: Pick<ModelsOptions, "skipMissingKeys" | "bedrock"> = {}): Wiring {
  const config = loadConfig(env);
  if (!config.policyJson) throw new Error("TOOLBELT_POLICY is not set: give the policy JSON (principals, key digests, grants) or a file path");
  return wire({
    config,
    env,
    client: clientFromConfig(config),
    artifact: loadArtifact(config.artifactDir),
    policy: parsePolicy(config.policyJson),
    // Briefs come from TOOLBELT_BRIEFS (JSON or a file; the construct bundles briefs.json and points at it), else none.
    briefs: config.briefsJson ? parseBriefs(config.briefsJson, "TOOLBELT_BRIEFS") : [],
    logger: jsonLogger(),
    models: opts,
    // No roots unless the deployment names them (fileRoots): file and git tools answer 403 until then.
    defaultFileRoots: [],
    internalPaths: [config.artifactDir],
  });
}
