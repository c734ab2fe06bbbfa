// The one wiring: parsed config (config.ts) in, the gateway's dependencies out. Every entry point that
// calls tools (the call and MCP Lambdas, and `npm start`'s REST and MCP) takes its deps and its call options
// from here, and the api Lambda its deps from wiring-deps.ts, the first half of this: so exec off, file
// roots, the paths no tool may reach, idempotency, limits and the miss logs are the same behind every door.
// No entry point reads the environment or builds a backend itself.
import type { CallModuleOptions } from "../http/routes/call.js";
import type { ModelsOptions } from "../models/index.js";
import { createResultBudget } from "../core/call/result-budget.js";
import { DynamoContinuationStore } from "../stores/continuations.js";
import { DynamoIdempotencyStore } from "../stores/idempotency.js";
import { DynamoApprovalStore } from "../stores/approvals.js";
import { DynamoLimitStore } from "../stores/limits.js";
import { declaresLimits } from "../core/limits.js";
import { DynamoMissStore } from "../stores/misses.js";
import { dynamoAuditSink } from "../stores/audit.js";
import { wireDeps, wireInputFromEnv, type DepsWiring, type WireInput } from "./wiring-deps.js";

export type { WireInput } from "./wiring-deps.js";

export type Wiring = DepsWiring & {
  /** For createCallModule and createMcpModule alike: one set of backends options for every door. */
  call: CallModuleOptions;
  /** The audit store's writer (absent with TOOLBELT_AUDIT_STORE=off): `idle()` before the table closes. */
  audit?: ReturnType<typeof dynamoAuditSink>;
};

export function wire(input: WireInput): Wiring {
  const { config, client, env } = input;
  const wired = wireDeps(input);
  // Each call's audit record also goes to the table (the console's calls view), in the background.
  const audit = config.audit.store
    ? dynamoAuditSink(client, config.table, config.audit.ttlDays, (message, fields) => input.logger.error(message, fields))
    : undefined;
  const call: CallModuleOptions = {
    env,
    misses: new DynamoMissStore(client, config.table, undefined, { maxBytes: config.misses.callMaxBytes }),
    findMisses: wired.findMisses,
    idempotency: { store: new DynamoIdempotencyStore(client, config.table), windowSecs: config.idempotencyTtlSecs },
    approvals: { store: new DynamoApprovalStore(client, config.table), ttlSecs: config.approvalTtlSecs },
    // exec runs the registry's commands on this host; TOOLBELT_EXEC=off refuses them with 501 at every door.
    exec: config.exec,
    // A pulled MCP tool is checked against its upstream's tools/list, read again once older than this.
    mcpListMaxAgeMs: config.mcpListMaxAgeSecs * 1000,
    fileRoots: config.fileRoots ?? input.defaultFileRoots,
    // The key that seals users' tokens is the gateway's own file wherever the operator put it.
    deniedPaths: [...input.internalPaths, ...(config.credentials.keyFile ? [config.credentials.keyFile] : [])],
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
    // Answers over their token budget are cut; the rest waits in the table for the caller's continuation.
    results: createResultBudget({
      store: new DynamoContinuationStore(client, config.table),
      defaultBudget: config.results.budgetTokens,
      ttlSecs: config.results.continuationTtlSecs,
    }),
    deprecatedCalls: config.deprecatedCalls,
    ...(audit ? { auditSink: audit } : {}),
    // Counted in the table only when the policy declares a limit: otherwise calls write nothing for them.
    ...(declaresLimits(input.policy) ? { limits: { store: new DynamoLimitStore(client, config.table), policy: input.policy } } : {}),
  };
  return { ...wired, call, ...(audit ? { audit } : {}) };
}

/** Call once, at module scope of a Lambda handler that calls tools (after its secrets are in `env`). */
export const wireFromEnv = (env: Record<string, string | undefined> = process.env, opts: Pick<ModelsOptions, "skipMissingKeys" | "bedrock"> = {}): Wiring =>
  wire(wireInputFromEnv(env, opts));
