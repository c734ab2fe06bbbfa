// `npm start`'s app (createLocalApp) on a free loopback port with the demo service it calls, and two keys:
// `all` (the local principal, every tool) and `narrow` (time.* but time.zones), plus the travel-planning brief.
import type { Server } from "node:http";
import { serve } from "@hono/node-server";
import { startDemoService } from "../../../dev/demo-service/index.js";
import { loadConfig } from "../../../lambdas/config.js";
import { localPolicyFile, sha256Hex } from "../../../lambdas/core/auth.js";
import { memoryLogger } from "../../../lambdas/http/logger.js";
import { createLocalApp } from "../../../lambdas/local/local-app.js";
import { freePort } from "../../../lambdas/local/ports.js";
import { startDynalite } from "../../helpers/dynalite.js";
import { exampleArtifact } from "../../helpers/example-registry.js";

export const KEYS = { all: "model-apis-all-key", narrow: "model-apis-narrow-key" } as const;
export const NARROW = { allow: ["time.*"], deny: ["time.zones"] };
export const BRIEF = { version: 1, name: "travel-planning", description: "Plan travel across time zones.", tools: ["time.*", "convert.units"] };

export type Gateway = { url: string; close(): Promise<void> };

export async function startGateway(): Promise<Gateway> {
  const port = await freePort();
  const [dynamo, demo, artifact] = await Promise.all([startDynalite({ table: "toolbelt-model-apis" }), startDemoService(), exampleArtifact()]);
  const policy = localPolicyFile(KEYS.all);
  policy.principals.push({ id: "narrow", description: "time tools only", keys: [sha256Hex(KEYS.narrow)], ...NARROW, admin: false });
  const local = createLocalApp({
    config: loadConfig({ TOOLBELT_TABLE: dynamo.table }),
    env: { DEMO_SERVICE_URL: demo.url, DEMO_SERVICE_TOKEN: demo.token, EVERYTHING_MCP_URL: "http://127.0.0.1:9/mcp" },
    client: dynamo.client,
    artifact,
    policy,
    briefs: [BRIEF],
    logger: memoryLogger(),
    models: {},
    defaultFileRoots: [],
    internalPaths: [],
    port,
  });
  const server = serve({ fetch: local.app.fetch, hostname: "127.0.0.1", port }) as Server;
  await new Promise<void>((done, fail) => (server.listening ? done() : (server.once("listening", () => done()), server.once("error", fail))));
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
      await local.close();
      await Promise.all([demo.close(), dynamo.close()]);
    },
  };
}
