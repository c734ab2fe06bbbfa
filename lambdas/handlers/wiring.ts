// What every Lambda entry builds once per cold start, in one place: config from the environment,
// the artifact, policy and briefs, the DynamoDB client and the core's services (Deps). Each entry
// adds its own routes to this; none imports another entry.
import { loadArtifact } from "../artifact.js";
import { loadConfig, type Config } from "../config.js";
import { parsePolicy } from "../core/auth.js";
import { parseBriefs } from "../core/deployment-files.js";
import { createDeps, type Deps } from "../http/deps.js";
import { jsonLogger } from "../http/logger.js";
import { createModels, type ModelsOptions } from "../models/index.js";
import { clientFromConfig, DynamoSessionStore } from "../stores/dynamodb.js";
import { DynamoMissStore, FIND_MISSES } from "../stores/misses.js";

// The client's type comes from the store: only adapters import the AWS SDK (npm run check).
export type Wiring = { config: Config; client: ReturnType<typeof clientFromConfig>; deps: Deps };

/** Call once, at module scope of a handler (after its secrets are in `env`: model roles read their keys from it). */
export function wireFromEnv(env: Record<string, string | undefined> = process.env, opts: Pick<ModelsOptions, "skipMissingKeys" | "bedrock"> = {}): Wiring {
  const config = loadConfig(env);
  if (!config.policyJson) throw new Error("TOOLBELT_POLICY is not set: give the policy JSON (principals, key digests, grants) or a file path");
  const client = clientFromConfig(config);
  const deps = createDeps({
    artifact: loadArtifact(config.artifactDir),
    store: new DynamoSessionStore(client, config.table),
    policy: parsePolicy(config.policyJson),
    // Briefs come from TOOLBELT_BRIEFS (JSON or a file; the construct bundles briefs.json and points at it), else none.
    briefs: config.briefsJson ? parseBriefs(config.briefsJson, "TOOLBELT_BRIEFS") : [],
    config,
    logger: jsonLogger(),
    models: createModels(config.models, env, opts),
    // Queries no tool answered well, for the operator (npm run misses -- --find).
    findMisses: new DynamoMissStore(client, config.table, FIND_MISSES),
  });
  return { config, client, deps };
}
