// Audit records and metrics as log lines. Each line is also a CloudWatch embedded metric format
// (EMF) document: CloudWatch Logs turns its `_aws` block into metrics, and Logs Insights queries the
// rest. Written by hand, not with Powertools Metrics: that package adds 15 KB minified to a bundle
// and the api bundle had 8 KB left under its ceiling; this file is about 1 KB (README, Operations).
import type { FindResult } from "../contract/find.js";
import type { CallAudit } from "../core/call/audit.js";
import type { LogFields, Logger } from "./logger.js";

export const METRICS_NAMESPACE = "Toolbelt";

/** Metric names as the alarms (infra/alarms.ts) and dashboards read them. */
export const METRIC = {
  calls: "Calls",
  callLatency: "CallLatency",
  callErrors: "CallErrors",
  /** Calls that ended 5xx (the gateway's or an upstream's fault, not the caller's). */
  callFaults: "CallFaults",
  pinsEvicted: "PinsEvicted",
  idempotentReplays: "IdempotentReplays",
  upstreamDrift: "UpstreamDrift",
  finds: "Finds",
  findNone: "FindNone",
} as const;

type Unit = "Count" | "Milliseconds";
type Metric = { name: string; unit: Unit; value: number; dimensions: string[][] };

/** The `_aws` block and metric values of one EMF document; metrics with the same dimension sets share a directive. */
function emf(metrics: readonly Metric[], at: number, namespace: string): LogFields {
  const directives = new Map<string, { Namespace: string; Dimensions: string[][]; Metrics: { Name: string; Unit: Unit }[] }>();
  const values: LogFields = {};
  for (const m of metrics) {
    const key = JSON.stringify(m.dimensions);
    let d = directives.get(key);
    if (!d) directives.set(key, (d = { Namespace: namespace, Dimensions: m.dimensions, Metrics: [] }));
    d.Metrics.push({ Name: m.name, Unit: m.unit });
    values[m.name] = m.value;
  }
  return { _aws: { Timestamp: at, CloudWatchMetrics: [...directives.values()] }, ...values };
}

/** A call's audit record with its metrics: calls and latency by tool family, errors by code, faults, pins evicted, replays. */
export function auditFields(r: CallAudit, at = Date.now(), namespace = METRICS_NAMESPACE): LogFields {
  const metrics: Metric[] = [
    { name: METRIC.calls, unit: "Count", value: 1, dimensions: [[], ["Family"]] },
    { name: METRIC.callLatency, unit: "Milliseconds", value: r.latency_ms, dimensions: [[], ["Family"]] },
  ];
  if (r.outcome !== "OK") metrics.push({ name: METRIC.callErrors, unit: "Count", value: 1, dimensions: [[], ["Code"]] });
  if (r.status >= 500) metrics.push({ name: METRIC.callFaults, unit: "Count", value: 1, dimensions: [[]] });
  if (r.pins_evicted) metrics.push({ name: METRIC.pinsEvicted, unit: "Count", value: r.pins_evicted, dimensions: [[]] });
  if (r.idempotency === "replayed") metrics.push({ name: METRIC.idempotentReplays, unit: "Count", value: 1, dimensions: [[]] });
  // Refused drift is a CallErrors code too; this counts every call that met a changed upstream definition, allowed or not.
  if (r.drift?.length) metrics.push({ name: METRIC.upstreamDrift, unit: "Count", value: 1, dimensions: [[], ["Family"]] });
  return { ...r, Family: r.family ?? "none", Code: r.outcome, ...emf(metrics, at, namespace) };
}

/** Write a call's audit record (message `call`). */
export function writeAudit(logger: Logger, r: CallAudit, namespace = METRICS_NAMESPACE): void {
  logger.info("call", auditFields(r, Date.now(), namespace));
}

// A find's metrics are the same two every time: their directive is built once per namespace, not per find.
const findDirectives = new Map<string, LogFields[]>();
function findDirective(namespace: string): LogFields[] {
  let d = findDirectives.get(namespace);
  if (!d) {
    const { _aws } = emf(
      [
        { name: METRIC.finds, unit: "Count", value: 1, dimensions: [[]] },
        { name: METRIC.findNone, unit: "Count", value: 0, dimensions: [[]] },
      ],
      0,
      namespace,
    ) as { _aws: { CloudWatchMetrics: LogFields[] } };
    findDirectives.set(namespace, (d = _aws.CloudWatchMetrics));
  }
  return d;
}

/** A find's record is cut to this many characters of the query: enough to read, not a copy of a 1,000-character body. */
export const LOGGED_QUERY_CHARS = 200;

/** What a find's record says beside its verdict: who asked, what (clipped; loggers escape it), the top tool, how long. */
export function findFacts(principal: string, query: string, result: Pick<FindResult, "mode" | "tools">, startedMs: number): LogFields {
  const cut = query.length <= LOGGED_QUERY_CHARS ? query : query.slice(0, LOGGED_QUERY_CHARS).replace(/[\uD800-\uDBFF]$/, "");
  return {
    principal,
    query: cut,
    mode: result.mode,
    ...(result.tools[0] ? { top_tool: result.tools[0].name } : {}),
    latency_ms: Math.round((performance.now() - startedMs) * 100) / 100,
  };
}

/** Write a find's verdict as metrics (message `find`): the none-rate is FindNone / Finds. */
export function writeFind(logger: Logger, verdict: string, fields: LogFields = {}, namespace = METRICS_NAMESPACE): void {
  const metrics = {
    verdict,
    _aws: { Timestamp: Date.now(), CloudWatchMetrics: findDirective(namespace) },
    [METRIC.finds]: 1,
    [METRIC.findNone]: verdict === "none" ? 1 : 0,
  };
  // Not `{ ...fields, verdict, ... }`: on Node 20 a spread followed by new keys costs microseconds (measured), this is far less.
  logger.info("find", Object.assign({}, fields, metrics));
}
