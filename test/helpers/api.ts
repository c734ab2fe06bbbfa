// startTestApi(): the whole REST app as it runs locally (real dynalite, a built artifact, a real
// listening server on 127.0.0.1:0) with a test policy. Route modules (e.g. call) can be mounted.
import type { ArtifactInput, EmitOptions } from "../../build/artifact.js";
import type { BriefFile } from "../../registry/contract/brief.js";
import type { PolicyFile } from "../../registry/contract/policy.js";
import type { Artifact } from "../../lambdas/artifact.js";
import { DEFAULT_HTTP_LIMITS, DEFAULT_SESSION_TTL_SECS, DEFAULT_SURFACE_BOUNDS, type Config } from "../../lambdas/config.js";
import { sha256Hex } from "../../lambdas/core/auth.js";
import { createApp, type RouteModule } from "../../lambdas/http/app.js";
import { createDeps, type Deps } from "../../lambdas/http/deps.js";
import type { MissRecorder, Models, SessionStore } from "../../lambdas/core/ports.js";
import { memoryLogger } from "../../lambdas/http/logger.js";
import { healthChecksFor } from "../../lambdas/http/routes/health.js";
import type { OriginPolicy } from "../../lambdas/http/origin.js";
import { buildTestArtifact } from "./artifact.js";
import { startDynalite, type TestDynamo } from "./dynalite.js";
import { serveApp } from "./server.js";

/** Keys of the test policy's principals (the policy stores only their digests). */
export const TEST_KEYS = { alice: "alice-key-0123", bob: "bob-key-4567", carol: "carol-key-89ab" } as const;

/** alice: everything but admin.*; bob: git.* only; carol: notes.* and admin.audit. */
export function testPolicy(): PolicyFile {
  return {
    version: 1,
    principals: [
      { id: "alice", keys: [sha256Hex(TEST_KEYS.alice)], allow: ["*"], deny: ["admin.*"], admin: false },
      { id: "bob", keys: [sha256Hex(TEST_KEYS.bob)], allow: ["git.*"], deny: [], admin: false },
      { id: "carol", keys: [sha256Hex(TEST_KEYS.carol)], allow: ["notes.*", "admin.audit"], deny: [], admin: true },
    ],
  };
}

export const testBriefs = (): BriefFile[] => [
  { version: 1, name: "review", description: "Review a change", tools: ["git.diff", "git.blame", "admin.reset"] },
  { version: 1, name: "notes", description: "Take notes", tools: ["notes.*"] },
];

export type TestApiOptions = {
  input?: ArtifactInput;
  /** How the artifact is built (test artifacts skip token counts unless asked). */
  emit?: EmitOptions;
  policy?: PolicyFile;
  briefs?: BriefFile[];
  config?: Partial<Pick<Config, "surface" | "http" | "sessionTtlSecs" | "alwaysLoaded">> & { origins?: OriginPolicy };
  clock?: () => number;
  extraRoutes?: RouteModule[];
  /** Reuse a running dynalite (the caller closes it). */
  dynamo?: TestDynamo;
  /** Replace the session store (e.g. one that fails, to test 500/503 mapping); dynalite still starts. */
  store?: SessionStore;
  /** Models by role (prompt tools, find's decision mode); none by default. */
  models?: Models;
  /** The find-miss log's store; find misses are not recorded without it. */
  findMisses?: MissRecorder;
  /** Listen on this port (default: any free one). */
  port?: number;
  /** GET /v1/health's probes, as the api Lambda and npm start have them (default: none, the artifact only). */
  health?: boolean;
};

export type TestApi = {
  url: string;
  artifact: Artifact;
  artifactDir: string;
  deps: Deps;
  dynamo: TestDynamo;
  logger: ReturnType<typeof memoryLogger>;
  /** fetch against the server with a principal's bearer key (or none). */
  request(path: string, init?: RequestInit & { as?: keyof typeof TEST_KEYS | null; json?: unknown }): Promise<Response>;
  close(): Promise<void>;
};

export async function startTestApi(opts: TestApiOptions = {}): Promise<TestApi> {
  const { dir, artifact } = await buildTestArtifact(undefined, opts.input, opts.emit);
  const dynamo = opts.dynamo ?? (await startDynalite());
  const logger = memoryLogger();
  const deps = createDeps({
    artifact,
    store: opts.store ?? dynamo.store,
    policy: opts.policy ?? testPolicy(),
    briefs: opts.briefs ?? testBriefs(),
    config: {
      surface: { ...DEFAULT_SURFACE_BOUNDS, ...opts.config?.surface },
      http: { ...DEFAULT_HTTP_LIMITS, ...opts.config?.http },
      sessionTtlSecs: opts.config?.sessionTtlSecs ?? DEFAULT_SESSION_TTL_SECS,
      ...(opts.config?.alwaysLoaded ? { alwaysLoaded: opts.config.alwaysLoaded } : {}),
      ...(opts.config?.origins ? { origins: opts.config.origins } : {}),
    },
    logger,
    ...(opts.clock ? { clock: opts.clock } : {}),
    ...(opts.models ? { models: opts.models } : {}),
    ...(opts.findMisses ? { findMisses: opts.findMisses } : {}),
    ...(opts.health ? { health: (d: Omit<Deps, "health">) => healthChecksFor(d, {}) } : {}),
  });
  const app = createApp(deps, { extraRoutes: opts.extraRoutes ?? [] });
  const server = await serveApp(app, opts.port);
  return {
    url: server.url,
    artifact,
    artifactDir: dir,
    deps,
    dynamo,
    logger,
    request(path, init = {}) {
      const { as = "alice", json, ...rest } = init;
      const headers = new Headers(rest.headers);
      if (as) headers.set("authorization", `Bearer ${TEST_KEYS[as]}`);
      if (json !== undefined) headers.set("content-type", "application/json");
      return fetch(server.url + path, { ...rest, headers, ...(json !== undefined ? { body: JSON.stringify(json), method: rest.method ?? "POST" } : {}) });
    },
    async close() {
      await server.close();
      if (!opts.dynamo) await dynamo.close();
    },
  };
}
