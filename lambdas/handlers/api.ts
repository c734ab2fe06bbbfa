// Lambda entry for find, sessions and surface (API Gateway HTTP API). Config, artifact, policy and
// the DynamoDB client are loaded once per cold start; the Hono adapter turns events into Requests.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { handle } from "hono/aws-lambda";
import { loadArtifact } from "../artifact.js";
import { loadConfig } from "../config.js";
import { parsePolicy } from "../core/auth.js";
import { createApp } from "../http/app.js";
import { createDeps, parseBriefs } from "../http/deps.js";
import { jsonLogger } from "../http/logger.js";
import { CALL_PATHS } from "../http/openapi-call.js";
import { clientFromConfig, DynamoSessionStore } from "../stores/dynamodb.js";

/** Briefs come from TOOLBELT_BRIEFS (JSON or a file), else `briefs.json` beside the artifact, else none. */
function briefsText(inline: string | undefined, artifactDir: string): string | undefined {
  if (inline) return inline;
  const file = join(artifactDir, "briefs.json");
  return existsSync(file) ? readFileSync(file, "utf8") : undefined;
}

export const config = loadConfig(process.env);
if (!config.policyJson) throw new Error("TOOLBELT_POLICY is not set: give the policy JSON (principals, key digests, grants) or a file path");
const artifact = loadArtifact(config.artifactDir);
const logger = jsonLogger();
const briefs = briefsText(config.briefsJson, config.artifactDir);
export const client = clientFromConfig(config);

export const deps = createDeps({
  artifact,
  store: new DynamoSessionStore(client, config.table),
  policy: parsePolicy(config.policyJson),
  briefs: briefs ? parseBriefs(briefs) : [],
  config,
  logger,
});

// The call Lambda serves POST /v1/call and GET /v1/admin/misses behind the same HTTP API: documented here.
export const app = createApp(deps, { documentOnly: CALL_PATHS });
export const handler = handle(app);
