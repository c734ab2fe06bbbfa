// GET /v1/health's checks: the table (with its latency), each upstream family's reach, each model
// role's answer. One report serves every caller for HEALTH_CACHE_MS, and one probe round runs at a time: a
// caller asking in a loop cannot make the gateway probe its upstreams in a loop. Stale while
// revalidating: once a report is older than HEALTH_CACHE_MS, callers get it still while one round refreshes it
// in the background, so only the first request ever waits for probes (up to the timeout when an
// upstream is down) on this public route.
import type { CatalogTool, FamilyInfo } from "../../registry/contract/artifact.js";

/** HEALTH_CACHE_MS unless the gateway sets its own (TOOLBELT_HEALTH_CACHE_SECS, lambdas/config.ts). */
export const HEALTH_CACHE_MS = 30_000;
/** A probe not answered within this is down (the whole report waits at most this long). */
export const PROBE_TIMEOUT_MS = 2_000;

export type Check = { ok: boolean; latency_ms?: number; error?: string; note?: string };
export type UpstreamCheck = Check & { family: string };
export type ModelCheck = Check & { role: string };
export type HealthReport = { table: Check; upstreams: UpstreamCheck[]; models: ModelCheck[]; checked_at: string };

type Probe = (signal: AbortSignal) => Promise<void>;
/** What to probe for one family: a request to `url`, or nothing (exec, builtin, prompt tools: ok; a URL that needs a caller's input: a note). */
export type UpstreamTarget = { family: string; url?: string; note?: string };

export type HealthPorts = {
  table: Probe;
  upstreams: readonly UpstreamTarget[];
  /** Reaches a URL: resolves when it answered below 500, rejects with the reason otherwise. */
  reach: (url: string, signal: AbortSignal) => Promise<void>;
  /** Each configured role and how to ask it something cheap; `unprobed`: why this function cannot (its key is not loaded here). */
  models: readonly ({ role: string; probe: Probe; unprobed?: undefined } | { role: string; probe?: undefined; unprobed: string })[];
  now: () => number;
  cacheMs?: number;
  timeoutMs?: number;
};

async function timed(probe: Probe, timeoutMs: number): Promise<Check> {
  const started = performance.now();
  const signal = AbortSignal.timeout(timeoutMs);
  // Raced, not awaited alone: a probe that ignores its signal still ends the check in time.
  const late = new Promise<never>((_, reject) => signal.addEventListener("abort", () => reject(new Error(`no answer within ${timeoutMs} ms`))));
  const latency_ms = () => Math.round(performance.now() - started);
  try {
    await Promise.race([probe(signal), late]);
    return { ok: true, latency_ms: latency_ms() };
  } catch (e) {
    return { ok: false, latency_ms: latency_ms(), error: (e instanceof Error ? e.message : String(e)).slice(0, 200) };
  }
}

export type HealthChecks = { report(): Promise<HealthReport> };
/** GET /v1/health's verdict for a caller (its Authorization header): status, and for an admin what is down and every check. */
export type HealthService = {
  answer(authorization: string | undefined): Promise<{ status: "ok" | "degraded"; down?: string[]; checks?: HealthReport }>;
};

export function createHealthChecks(ports: HealthPorts): HealthChecks {
  const cacheMs = ports.cacheMs ?? HEALTH_CACHE_MS;
  const timeoutMs = ports.timeoutMs ?? PROBE_TIMEOUT_MS;
  /** The last finished round, kept from when it started. */
  let last: { at: number; report: HealthReport } | undefined;
  /** The round under way, if any: never two at once. */
  let round: Promise<HealthReport> | undefined;
  const run = async (): Promise<HealthReport> => {
    const [table, upstreams, models] = await Promise.all([
      timed(ports.table, timeoutMs),
      Promise.all(
        ports.upstreams.map(
          async ({ family, url, note }): Promise<UpstreamCheck> =>
            url ? { family, ...(await timed((signal) => ports.reach(url, signal), timeoutMs)) } : { family, ok: true, ...(note ? { note } : {}) },
        ),
      ),
      Promise.all(
        ports.models.map(
          async ({ role, probe, unprobed }): Promise<ModelCheck> =>
            probe ? { role, ...(await timed(probe, timeoutMs)) } : { role, ok: true, note: `not probed here: ${unprobed}` },
        ),
      ),
    ]);
    return { table, upstreams, models, checked_at: new Date(ports.now()).toISOString() };
  };
  const refresh = (): Promise<HealthReport> => {
    if (!round) {
      const at = ports.now();
      round = run()
        .then((report) => {
          last = { at, report };
          return report;
        })
        .finally(() => {
          round = undefined;
        });
    }
    return round;
  };
  return {
    report() {
      // The first request ever waits for a round; later ones answer from the last finished report.
      if (!last) return refresh();
      if (ports.now() - last.at >= cacheMs) refresh().catch(() => undefined);
      return Promise.resolve(last.report);
    },
  };
}

/** What is down in a report: the names `degraded` answers carry. */
export function downIn(report: HealthReport): string[] {
  return [...report.upstreams.filter((u) => !u.ok).map((u) => `upstream ${u.family}`), ...report.models.filter((m) => !m.ok).map((m) => `model ${m.role}`)];
}

/**
 * Where each family's upstream is: the first http tool's origin (its base URL) or the first MCP tool's
 * endpoint, with the family's declared `${VAR}`s filled from `env`. Never shown to a caller.
 */
export function upstreamTargets(
  families: readonly FamilyInfo[],
  tools: readonly CatalogTool[],
  env: Readonly<Record<string, string | undefined>>,
): UpstreamTarget[] {
  return families.map(({ name, variables = {} }) => {
    const b = tools.find((t) => t.family === name && (t.backend.kind === "http" || t.backend.kind === "mcp"))?.backend;
    if (b?.kind !== "http" && b?.kind !== "mcp") return { family: name };
    const filled = b.url.replace(/\$\{(\w+)\}/g, (whole, v: string) => (Object.hasOwn(variables, v) && typeof env[v] === "string" ? env[v] : whole));
    // An http family's base URL is its origin; an MCP family's is its endpoint.
    const url = b.kind === "http" ? /^https?:\/\/[^/?#]*/.exec(filled)?.[0]?.concat("/") : filled;
    return !url || /\$\{|\{\{/.test(url) ? { family: name, note: "not probed: its URL needs a setting or an input" } : { family: name, url };
  });
}
