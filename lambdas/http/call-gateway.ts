// The call gateway wired to the app's Deps (artifact, finder, sessions, logger, clock) and the
// backends: one wiring for every entry point that calls tools (POST /v1/call, the MCP endpoint's
// call tool), so all get the same resolution, authorization, validation, dispatch and pin-on-use.
// Apart from deps.ts so ajv and the backends stay out of the api bundle.
import { createBackends } from "../backends/index.js";
import type { EnvMap } from "../backends/templates.js";
import { withMetaTools } from "../contract/meta-tools.js";
import { createCallGateway, type CallGateway } from "../core/call/gateway.js";
import type { AuditSink, CallAudit } from "../core/call/audit.js";
import type { IdempotencyStore } from "../core/call/idempotency.js";
import type { Backends } from "../core/call/types.js";
import type { MissStore } from "../core/ports.js";
import { createLimiter, type LimiterOptions } from "../core/limits.js";
import type { Deps } from "./deps.js";
import type { DeprecatedCalls } from "../core/deprecated.js";
import type { ResultBudget } from "../core/call/result-budget.js";
import { approvalsOf, type ApprovalSettings } from "./routes/approvals.js";
import { writeAudit } from "./telemetry.js";
import { gatewayRedactor } from "../secrets.js";
import { Secrets } from "../core/redaction.js";
import { createCredentials, type Credentials } from "../core/credentials.js";
import { callSecrets } from "../core/redaction.js";
import { dataKeysFrom, DynamoCredentialStore, type CredentialKeySettings } from "../stores/credentials.js";
import { notedDrift, withDriftScope } from "../backends/mcp-drift.js";

export type CallGatewayOptions = {
  /** The gateway's environment: each family's templates read only the variables it declares; never echoed. */
  env: EnvMap;
  misses?: MissStore;
  /** Enable the exec backend (default true). */
  exec?: boolean;
  /** The oldest an MCP upstream's cached tools/list may be when a call is checked against its pin (Config.mcpListMaxAgeSecs; default 5 min). */
  mcpListMaxAgeMs?: number;
  /** Directories file and git tools may touch (Config.fileRoots; none: they answer 403). */
  fileRoots?: readonly string[];
  /** The gateway's own files (data, artifact, policy, keys): refused even inside a root. */
  deniedPaths?: readonly string[];
  /** Where idempotency keys are kept and for how long (the table; Config.idempotencyTtlSecs); without it keys are ignored. */
  idempotency?: { store: IdempotencyStore; windowSecs: number };
  /** The policy's limits and the table that counts them (core/limits.ts); the clock defaults to the app's. */
  limits?: Omit<LimiterOptions, "clock" | "log"> & Partial<Pick<LimiterOptions, "clock">>;
  /** Bounded results: answers over their token budget are cut, the rest kept for continuations (core/call/result-budget.ts). */
  results?: ResultBudget;
  /** A call to a deprecated tool: refused with 410 TOOL_DEPRECATED, or run with a warning (TOOLBELT_DEPRECATED_CALLS). */
  deprecatedCalls?: DeprecatedCalls;
  /** Calls held for approval (policy `approvals`): the table and TOOLBELT_APPROVAL_TTL_SECS; absent: none are held. */
  approvals?: ApprovalSettings;
  /** Replace the backends (tests); by default built from `env` with the app's finder. */
  backends?: (deps: Deps) => Backends;
  /** Share one gateway (and its upstream connections) between route modules: see shareGateway. */
  gateway?: (deps: Deps) => AppCallGateway;
  /** The audit store: each call's record also goes there (in the background), besides the log line. */
  auditSink?: AuditSink;
  /** Per-principal upstream tokens: where they are kept and what seals them (wiring.ts, from Config.credentials). */
  credentials?: { client: ConstructorParameters<typeof DynamoCredentialStore>[0]; table: string; keys: CredentialKeySettings };
};

const opened = new WeakMap<object, Credentials>();

/** The credentials service for these options, built once (the call routes and the backends share it). */
export function credentialsOf(deps: Deps, options: CallGatewayOptions): Credentials | undefined {
  const c = options.credentials;
  if (!c) return undefined;
  let built = opened.get(c);
  if (!built) {
    const store = new DynamoCredentialStore(c.client, c.table);
    built = createCredentials({ store, keys: dataKeysFrom(c.keys), families: deps.artifact.families, now: () => new Date(deps.clock()) });
    opened.set(c, built);
  }
  return built;
}

export type AppCallGateway = {
  gateway: CallGateway;
  /** Close pooled upstream connections (MCP clients). */
  close(): Promise<void>;
};

/** The options with one gateway, built on first use, for every module they are given to (REST call and MCP in one process). */
export function shareGateway<T extends CallGatewayOptions>(options: T): T {
  let shared: AppCallGateway | undefined;
  let closed: Promise<void> | undefined;
  return {
    ...options,
    gateway: (deps: Deps) => {
      if (!shared) {
        const built = createAppCallGateway(deps, options);
        shared = { gateway: built.gateway, close: () => (closed ??= built.close()) };
      }
      return shared;
    },
  };
}

export function createAppCallGateway(deps: Deps, options: CallGatewayOptions): AppCallGateway {
  if (options.gateway) return options.gateway(deps);
  let backends: Backends;
  let close: () => Promise<void> = async () => undefined;
  // Each call's own values (a principal's upstream token) join the deployment's secrets for that call.
  const perCall = callSecrets(gatewayRedactor(options.env, deps.artifact.families), (values) => new Secrets(values));
  const credentials = credentialsOf(deps, options);
  if (options.backends) backends = options.backends(deps);
  else {
    const built = createBackends({
      env: options.env,
      families: deps.artifact.families,
      finder: deps.finder,
      ...(deps.findMisses ? { findMisses: deps.findMisses } : {}),
      exec: options.exec ?? true,
      ...(options.mcpListMaxAgeMs !== undefined ? { mcpDrift: { maxAgeMs: options.mcpListMaxAgeMs } } : {}),
      fileRoots: options.fileRoots ?? [],
      deniedPaths: options.deniedPaths ?? [],
      models: deps.models,
      ...(credentials ? { credentials: { families: credentials.families, tokenFor: credentials.tokenFor, onToken: perCall.add } } : {}),
    });
    close = () => built.mcp.close();
    backends = built.backends;
  }
  // Undefined when the policy declares no limit: then no call writes anything for them.
  const limiter =
    options.limits && createLimiter({ clock: deps.clock, ...options.limits, log: (level, message, fields) => deps.logger[level](message, fields) });
  const approvals = approvalsOf(deps.policy, options.approvals, deps.clock);
  const inner = createCallGateway({
    tools: withMetaTools(deps.artifact.byName),
    backends,
    // Once, for every backend's answer and error: no secret the gateway holds reaches a caller, a record or a log.
    redactor: perCall.redactor,
    ...(options.misses ? { misses: options.misses } : {}),
    sessions: deps.sessions,
    log: (level, message, fields) => deps.logger[level](message, fields),
    audit: (record) => {
      const r = withDrift(deps, record);
      writeAudit(deps.logger, r, deps.config.metricsNamespace);
      options.auditSink?.write(r);
    },
    ...(options.idempotency
      ? {
          idempotency: {
            ...options.idempotency,
            onStoreError: (what, error) => deps.logger.warn(`could not ${what} an idempotency key`, { error: String(error) }),
          },
        }
      : {}),
    now: () => new Date(deps.clock()),
    ...(limiter ? { limits: limiter } : {}),
    ...(options.results ? { results: options.results } : {}),
    ...(options.deprecatedCalls ? { deprecatedCalls: options.deprecatedCalls } : {}),
    ...(approvals ? { approvals } : {}),
    readOnlyBriefs: (name) => deps.briefs.get(name)?.read_only === true,
  });
  const gateway: CallGateway = {
    call: (request, caller, callOptions) => withDriftScope(() => perCall.run(() => inner.call(request, caller, callOptions))),
  };
  return { gateway, close };
}

/** The record with the drift a call ran with under its family's `drift: warn`, which is also logged as a warning. */
function withDrift(deps: Deps, record: CallAudit): CallAudit {
  const noted = notedDrift();
  if (!noted.drift || record.drift) return record;
  deps.logger.warn("called a tool whose MCP upstream changed its definition (drift: warn)", { tool: record.tool, drift: noted.drift });
  return { ...record, ...noted };
}
