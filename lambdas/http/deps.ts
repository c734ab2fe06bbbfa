// Wiring shared by the Lambda handler, `npm start` and the tests: everything the app needs, built once.
import type { BriefFile } from "../../registry/contract/brief.js";
import type { PolicyFile } from "../../registry/contract/policy.js";
import type { Config, HttpLimits } from "../config.js";
import { createPolicy, type Policy } from "../core/auth.js";
import { expandBriefSelector } from "../core/governance.js";
import { createFinder } from "../core/find/index.js";
import { withFamilyCheck } from "../core/find-family.js";
import { withDecisions, type CandidateSource } from "../core/find/decision.js";
import type { Finder } from "../core/find/types.js";
import { globMatcher } from "../../registry/contract/globs.js";
import type { Artifact, Clock, MissRecorder, Models, SessionStore, SurfaceBounds } from "../core/ports.js";
import { DEFAULT_MIN_SCORE } from "../core/find/index.js";
import { createFindMissLog, type FindMissLog } from "../core/misses.js";
import { NO_MODELS } from "../models/index.js";
import { DECIDER_ROLE } from "../../registry/contract/model-roles.js";
import { createSessions, type Sessions } from "../core/sessions.js";
import type { HealthService } from "../core/health.js";
import type { Logger } from "./logger.js";
import type { OriginPolicy } from "./origin.js";

/** What every route module receives. Other route modules (call, MCP) may ask for more by extending it. */
export type Deps = {
  artifact: Artifact;
  finder: Finder;
  policy: Policy;
  sessions: Sessions;
  store: SessionStore;
  /** Always-loaded names/globs in force (deployment override or the artifact's list). */
  alwaysLoaded: string[];
  isAlwaysLoaded: (name: string) => boolean;
  /** The deployment's briefs by name (the MCP endpoint lists a brief's declared tools). */
  briefs: ReadonlyMap<string, BriefFile>;
  config: { http: HttpLimits; surface: SurfaceBounds; sessionTtlSecs: number; metricsNamespace?: string; origins: OriginPolicy; healthCacheSecs?: number };
  clock: Clock;
  logger: Logger;
  /** Models by role: prompt tools (and find's decision mode) ask them. */
  models: Models;
  /** Where find misses go (queries answered none or below the default min_score), in the background; absent: not recorded. */
  findMisses?: FindMissLog;
  /** GET /v1/health's probes (table, upstreams, models), one round per 30 s whoever asks; absent: it reports the artifact only (the call and MCP functions, whose group does not serve it). */
  health?: HealthService;
  /** When the artifact was written (its manifest file's time), if known. */
  builtAt?: string;
  /** The policy's principal ids (the console's catalog says which reach each tool). */
  principals: readonly string[];
};

export type DepsInput = {
  artifact: Artifact;
  store: SessionStore;
  policy: PolicyFile;
  briefs?: readonly BriefFile[];
  config: Pick<Config, "http" | "surface" | "sessionTtlSecs" | "alwaysLoaded" | "metricsNamespace"> & {
    /** Config.findMaxModelRequests (default DECISION_DEFAULTS.maxModelRequests). */
    findMaxModelRequests?: number;
    /** Config.misses.findPerMinute (default FIND_MISSES_PER_MINUTE). */
    findMissesPerMinute?: number;
    /** Which pages may call (origin.ts); default: none but requests without `Origin`. */
    origins?: OriginPolicy;
    /** Config.healthCacheSecs (default core/health.ts HEALTH_CACHE_MS). */
    healthCacheSecs?: number;
  };
  logger: Logger;
  clock?: Clock;
  finder?: Finder;
  models?: Models;
  /** The find-miss log's store (DynamoMissStore with FIND_MISSES); absent: find misses are not recorded. */
  findMisses?: MissRecorder;
  /** When the artifact was written. */
  builtAt?: string;
  /** Builds health's probes from the other deps (routes/health.ts healthChecksFor); passed only where /v1/health is served, so the probes stay out of the other bundles. */
  health?: (deps: Omit<Deps, "health">) => HealthService;
};

/** A model is configured for find's decision mode (in this function or not: every entry point advertises the same surface). */
export const hasDecider = (models: Models): boolean => models.roles().includes(DECIDER_ROLE);

/** Find as every entry point serves it: keyword ranking, and decision mode when a model role answers. */
const decisionFinder = (keyword: Finder & CandidateSource, models: Models, maxModelRequests?: number): Finder =>
  withDecisions(keyword, keyword, { models, ...(maxModelRequests !== undefined ? { maxModelRequests } : {}) });

export function createDeps(input: DepsInput): Deps {
  const deps = baseDeps(input);
  return input.health ? { ...deps, health: input.health(deps) } : deps;
}

function baseDeps(input: DepsInput): Omit<Deps, "health"> {
  const { artifact, config } = input;
  const alwaysLoaded = config.alwaysLoaded ?? artifact.manifest.always_loaded;
  const isAlwaysLoaded = globMatcher(alwaysLoaded);
  // Governance selectors (policy and briefs) become tool names here, once, for every door's grant checks.
  const policy = createPolicy(input.policy, { tools: artifact.tools });
  const clock = input.clock ?? Date.now;
  const briefs = new Map((input.briefs ?? []).map((b) => [b.name, expandBriefSelector(b, artifact.tools)]));
  const models = input.models ?? NO_MODELS;
  const finder = withFamilyCheck(input.finder ?? decisionFinder(createFinder(artifact, { alwaysLoaded }), models, config.findMaxModelRequests), artifact.tools);
  const { logger } = input;
  return {
    artifact,
    finder,
    policy,
    store: input.store,
    sessions: createSessions({
      store: input.store,
      artifact,
      briefs,
      isAlwaysLoaded,
      bounds: config.surface,
      decisionMode: hasDecider(models),
      ttlSecs: config.sessionTtlSecs,
      clock,
    }),
    alwaysLoaded,
    isAlwaysLoaded,
    briefs,
    config: {
      http: config.http,
      surface: config.surface,
      sessionTtlSecs: config.sessionTtlSecs,
      ...(config.metricsNamespace ? { metricsNamespace: config.metricsNamespace } : {}),
      origins: config.origins ?? { own: [], allowed: [] },
      ...(config.healthCacheSecs !== undefined ? { healthCacheSecs: config.healthCacheSecs } : {}),
    },
    clock,
    logger: input.logger,
    models,
    ...(input.builtAt ? { builtAt: input.builtAt } : {}),
    principals: input.policy.principals.map((p) => p.id),
    ...(input.findMisses
      ? {
          findMisses: createFindMissLog({
            store: input.findMisses,
            ...(config.findMissesPerMinute !== undefined ? { perMinute: config.findMissesPerMinute } : {}),
            find: (request, granted) => finder.find(request, granted),
            floor: DEFAULT_MIN_SCORE,
            log: (level, message, fields) => logger[level](message, fields),
            now: () => new Date(clock()),
          }),
        }
      : {}),
  };
}
