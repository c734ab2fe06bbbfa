// GET /v1/health's checks: the table (with its latency), each upstream family's reach, each model
// role's answer. One report serves every caller for CACHE_MS, and one probe round runs at a time: a
// caller asking in a loop cannot make the gateway probe its upstreams in a loop.
import type { CatalogTool, FamilyInfo } from "../../registry/contract/artifact.js";

export const HEALTH_CACHE_MS = 30_000;
/** A probe not answered within this is down (the whole report waits at most this long). */
export const PROBE_TIMEOUT_MS = 2_000;

export type Check = { ok: boolean; latency_ms?: number; error?: string; note?: string };
export type UpstreamCheck = Check & { family: string; kind: string };
export type ModelCheck = Check & { role: string };
export type HealthReport = { table: Check; upstreams: UpstreamCheck[]; models: ModelCheck[]; checked_at: string };

type Probe = (signal: AbortSignal) => Promise<void>;
/** What to probe for one family: a request to `url`, or nothing (exec, builtin, prompt tools; a URL that needs a caller's input) with a note. */
export type UpstreamTarget = { family: string; kind: string; url?: string; note?: string };

export type HealthPorts = {
  table: Probe;
  upstreams: readonly UpstreamTarget[];
  /** Reaches a URL: resolves when it answered below 500, rejects with the reason otherwise. */
  reach: (url: string, signal: AbortSignal) => Promise<void>;
  /** Each configured role and how to ask it something cheap; `unprobed`: why this function cannot (its key is not loaded here). */
  models: readonly { role: string; probe?: Probe; unprobed?: string }[];
  now: () => number;
  cacheMs?: number;
  timeoutMs?: number;
};

const message = (e: unknown) => (e instanceof Error ? e.message || e.name : String(e)).slice(0, 200);

async function timed(probe: Probe, timeoutMs: number): Promise<Check> {
  const started = performance.now();
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new Error(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
  });
  try {
    await Promise.race([probe(controller.signal), late]);
    return { ok: true, latency_ms: Math.round(performance.now() - started) };
  } catch (e) {
    return { ok: false, latency_ms: Math.round(performance.now() - started), error: message(e) };
  } finally {
    clearTimeout(timer);
  }
}

export type HealthChecks = { report(): Promise<HealthReport> };

export function createHealthChecks(ports: HealthPorts): HealthChecks {
  const cacheMs = ports.cacheMs ?? HEALTH_CACHE_MS;
  const timeoutMs = ports.timeoutMs ?? PROBE_TIMEOUT_MS;
  let last: { at: number; report: Promise<HealthReport> } | undefined;
  const run = async (): Promise<HealthReport> => {
    const [table, upstreams, models] = await Promise.all([
      timed(ports.table, timeoutMs),
      Promise.all(
        ports.upstreams.map(async ({ family, kind, url, note }): Promise<UpstreamCheck> => {
          if (!url) return { family, kind, ok: true, ...(note ? { note } : {}) };
          return { family, kind, ...(await timed((signal) => ports.reach(url, signal), timeoutMs)) };
        }),
      ),
      Promise.all(
        ports.models.map(async ({ role, probe, unprobed }): Promise<ModelCheck> => {
          if (!probe) return { role, ok: true, note: `not probed in this function: ${unprobed ?? "no model"}` };
          return { role, ...(await timed(probe, timeoutMs)) };
        }),
      ),
    ]);
    return { table, upstreams, models, checked_at: new Date(ports.now()).toISOString() };
  };
  return {
    report() {
      const now = ports.now();
      // One round at a time, its answer kept for cacheMs from when it started.
      if (!last || now - last.at >= cacheMs) last = { at: now, report: run() };
      return last.report;
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
  const first = new Map<string, CatalogTool>();
  const kinds = new Map<string, Set<string>>();
  for (const t of tools) {
    kinds.set(t.family, (kinds.get(t.family) ?? new Set()).add(t.backend.kind));
    const b = t.backend.kind;
    if ((b === "http" || b === "mcp") && !first.has(t.family)) first.set(t.family, t);
  }
  return families.map((f) => {
    const kindSet = kinds.get(f.name) ?? new Set<string>();
    const kind = kindSet.size === 1 ? [...kindSet][0]! : "mixed";
    const tool = first.get(f.name);
    if (!tool || (tool.backend.kind !== "http" && tool.backend.kind !== "mcp")) return { family: f.name, kind };
    const declared = f.variables ?? {};
    const filled = tool.backend.url.replace(/\$\{(\w+)\}/g, (whole, name: string) =>
      Object.hasOwn(declared, name) && typeof env[name] === "string" ? env[name] : whole,
    );
    const url = tool.backend.kind === "http" ? /^https?:\/\/[^/?#]*/.exec(filled)?.[0] : filled;
    if (!url || /\$\{|\{\{/.test(url)) return { family: f.name, kind, note: "not probed: its URL needs a setting or an input to be known" };
    return { family: f.name, kind, url: tool.backend.kind === "http" ? `${url}/` : url };
  });
}
