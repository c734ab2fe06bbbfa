// What every Lambda entry builds once per cold start, in one place: config from the environment,
// the artifact, policy and briefs, the DynamoDB client and the core's services (Deps). Each entry
// adds its own routes to this; none imports another entry.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { loadArtifact } from "../artifact.js";
import { loadConfig, type Config } from "../config.js";
import { parsePolicy } from "../core/auth.js";
import { createDeps, parseBriefs, type Deps } from "../http/deps.js";
import { jsonLogger } from "../http/logger.js";
import { clientFromConfig, DynamoSessionStore } from "../stores/dynamodb.js";

// The client's type comes from the store: only adapters import the AWS SDK (npm run check).
export type Wiring = { config: Config; client: ReturnType<typeof clientFromConfig>; deps: Deps };

/** Briefs come from TOOLBELT_BRIEFS (JSON or a file), else `briefs.json` beside the artifact, else none. */
function briefsText(inline: string | undefined, artifactDir: string): string | undefined {
  if (inline) return inline;
  const file = join(artifactDir, "briefs.json");
  return existsSync(file) ? readFileSync(file, "utf8") : undefined;
}

/** Call once, at module scope of a handler. */
export function wireFromEnv(env: Record<string, string | undefined> = process.env): Wiring {
  const config = loadConfig(env);
  if (!config.policyJson) throw new Error("TOOLBELT_POLICY is not set: give the policy JSON (principals, key digests, grants) or a file path");
  const briefs = briefsText(config.briefsJson, config.artifactDir);
  const client = clientFromConfig(config);
  const deps = createDeps({
    artifact: loadArtifact(config.artifactDir),
    store: new DynamoSessionStore(client, config.table),
    policy: parsePolicy(config.policyJson),
    briefs: briefs ? parseBriefs(briefs) : [],
    config,
    logger: jsonLogger(),
  });
  return { config, client, deps };
}
