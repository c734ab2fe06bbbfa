// The operator console's data routes (admin principals only; lambdas/contract/admin.ts): the catalog and
// who reaches each tool, find as any principal, a session's belt, the audit store's records and figures.
// Mounted by `npm start` and the console Lambda (lambdas/handlers/console.ts), never the call or MCP ones.
import { type Context, Hono } from "hono";
import {
  AdminFindBody,
  type AdminSessionResponse,
  AUDIT_LIMITS,
  type AuditListResponse,
  AuditQuery,
  AuditStatsQuery,
  type AuditStatsResponse,
  type CatalogResponse,
} from "../../contract/admin.js";
import { SESSION_ID_RE } from "../../contract/sessions.js";
import { isCallable } from "../../../registry/contract/callable.js";
import { globMatcher } from "../../../registry/contract/globs.js";
import type { CatalogTool } from "../../../registry/contract/artifact.js";
import { ToolbeltError } from "../../core/errors.js";
import type { Caller } from "../../core/ports.js";
import { fitPins } from "../../core/sessions.js";
import { toolBytes } from "../../core/surface.js";
import type { AuditPage, AuditPoint, DynamoAuditReader, ListedAudit } from "../../stores/audit.js";
import type { RouteModule } from "../app.js";
import type { Deps } from "../deps.js";
import { callerOf, type AppEnv } from "../env.js";
import { ADMIN_PATHS } from "../openapi-admin.js";
import { checkBody, parseJsonBody } from "../parse.js";

export type AdminOptions = {
  /** The environment: which declared family settings are present (never their values). */
  env?: Readonly<Record<string, string | undefined>>;
  /** The audit store's reads; absent (TOOLBELT_AUDIT_STORE=off): the audit routes answer 404 saying so. */
  audit?: Pick<DynamoAuditReader, "list" | "points">;
};

const MINUTE_MS = 60_000;

function requireAdmin(c: Context<AppEnv>): Caller {
  const caller = callerOf(c);
  if (!caller.admin) {
    throw new ToolbeltError("FORBIDDEN", "the console's data is for operators: this needs a principal with `admin: true` in the policy");
  }
  return caller;
}

/** Query parameters checked against `schema`: 400 naming each bad one and what it must be. */
function checkQuery<S extends typeof AuditQuery | typeof AuditStatsQuery>(c: Context<AppEnv>, schema: S) {
  return checkBody(schema, c.req.query()) as ReturnType<S["parse"]>;
}

/** Names TOOLBELT_SECRETS maps to SSM parameters: present on AWS though this function never loads them. */
function secretNames(env: Readonly<Record<string, string | undefined>>): Set<string> {
  try {
    const spec = JSON.parse(env.TOOLBELT_SECRETS ?? "{}") as unknown;
    return new Set(spec && typeof spec === "object" && !Array.isArray(spec) ? Object.keys(spec) : []);
  } catch {
    return new Set();
  }
}

/** The catalog as the console shows it: built once per cold start (the artifact, policy and environment do not change). */
export function buildCatalog(deps: Deps, env: Readonly<Record<string, string | undefined>>): CatalogResponse {
  const fromSecrets = secretNames(env);
  const callers = deps.principals.flatMap((id) => {
    const caller = deps.policy.callerById(id);
    return caller ? [caller] : [];
  });
  const briefs = [...deps.briefs.values()].map((b) => ({ name: b.name, declares: globMatcher(b.tools) }));
  const roles = new Set(deps.models.roles());
  const byFamily = new Map<string, CatalogTool[]>();
  for (const t of deps.artifact.tools) byFamily.set(t.family, [...(byFamily.get(t.family) ?? []), t]);
  const families = deps.artifact.families.map((f) => {
    const settings = Object.entries(f.variables ?? {}).map(([name, v]) => ({
      name,
      present: (typeof env[name] === "string" && env[name] !== "") || fromSecrets.has(name),
      secret: v.secret,
    }));
    const missing = settings.filter((s) => !s.present).map((s) => s.name);
    const tools = (byFamily.get(f.name) ?? []).map((t) => {
      const reason = !isCallable(t)
        ? "no backend: imported from a catalog, a call answers 501"
        : t.deprecated
          ? "deprecated"
          : missing.length && t.backend.kind !== "builtin"
            ? `its family's settings are not set: ${missing.join(", ")}`
            : t.backend.kind === "prompt" && !roles.has(t.backend.model)
              ? `model role ${t.backend.model} is not configured (TOOLBELT_MODELS)`
              : undefined;
      return {
        name: t.name,
        description: t.description,
        kind: t.kind,
        callable: reason === undefined,
        ...(reason ? { not_callable_reason: reason } : {}),
        input_schema: t.input_schema as Record<string, unknown>,
        governance: t.governance as Record<string, unknown>,
        ...(t.deprecated ? { deprecated: t.deprecated as unknown as Record<string, unknown> } : {}),
        reached_by: {
          principals: callers.filter((c) => c.granted(t.name)).map((c) => c.principal),
          briefs: briefs.filter((b) => b.declares(t.name)).map((b) => b.name),
        },
      };
    });
    const kinds = new Set(tools.map((t) => t.kind));
    return { name: f.name, description: f.description, kind: kinds.size === 1 ? [...kinds][0]! : "mixed", tools, settings };
  });
  const m = deps.artifact.manifest;
  return {
    families,
    artifact: { format_version: m.format_version, registry_hash: m.registry_hash, ...(deps.builtAt ? { built_at: deps.builtAt } : {}), counts: m.counts },
  };
}

/** A session's belt as the console shows it: each tool, why it is there, its bytes and share of the pin budget. */
export function sessionBelt(deps: Deps, id: string, record: NonNullable<Awaited<ReturnType<Deps["store"]["get"]>>>): AdminSessionResponse {
  // A token user's grants are its mapped principal's, which a session does not store: its surface then shows its pins only.
  const caller: Caller = deps.policy.callerById(record.principal) ?? { principal: record.principal, admin: false, granted: () => false };
  const budget = deps.config.surface.pinBudgetBytes;
  const { pins } = fitPins(
    [...record.pins].sort((a, b) => a.last_used - b.last_used),
    budget,
  );
  const surface = deps.sessions.surface({ ...record, pins }, caller);
  const lastUse = new Map(pins.map((p) => [p.name, p.last_used]));
  const belt = surface.tools.map((t) => {
    const tool = deps.artifact.byName.get(t.name);
    const bytes = pins.find((p) => p.name === t.name)?.bytes ?? (tool ? toolBytes(tool) : 0);
    const used = lastUse.get(t.name);
    return {
      name: t.name,
      source: t.on_belt === "pinned" ? ("pin" as const) : t.on_belt === "declared" ? ("packing" as const) : ("always" as const),
      bytes,
      share: budget > 0 ? Math.round((bytes / budget) * 1000) / 1000 : 0,
      ...(used !== undefined ? { last_used_at: new Date(used).toISOString() } : {}),
    };
  });
  const size = surface.size.surface;
  return {
    id,
    principal: record.principal,
    ...(record.brief !== undefined ? { brief: record.brief } : {}),
    belt,
    budget_bytes: budget,
    used_bytes: surface.pins.used_bytes,
    surface_tokens: size.o200k_tokens ?? size.approx_tokens,
    expires_at: new Date(record.expires_at * 1000).toISOString(),
  };
}

/** Nearest-rank percentile of sorted values. */
const percentile = (sorted: readonly number[], p: number) => (sorted.length ? sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)]! : 0);

/**
 * The bucket for a stats window: a minute up to an hour, five minutes up to six hours, fifteen above, so a
 * day lists 96 buckets per family, not 1,440 (60 busy families at a minute each answered 6.5 MB, over
 * Lambda's 6 MB).
 */
export const bucketSecs = (minutes: number): number => (minutes <= 60 ? 60 : minutes <= 360 ? 300 : 900);

/** Calls, errors and latency percentiles per family per bucket (a minute unless told), every bucket listed (oldest first). */
export function minuteStats(points: readonly AuditPoint[], startMs: number, count: number, bucketMs = MINUTE_MS): AuditStatsResponse["families"] {
  const byFamily = new Map<string, { latencies: number[]; errors: number }[]>();
  for (const p of points) {
    const i = Math.floor((Date.parse(p.time) - startMs) / bucketMs);
    if (!(i >= 0 && i < count)) continue;
    let slots = byFamily.get(p.family);
    if (!slots) byFamily.set(p.family, (slots = Array.from({ length: count }, () => ({ latencies: [], errors: 0 }))));
    slots[i]!.latencies.push(p.latency_ms);
    if (p.outcome !== "OK") slots[i]!.errors++;
  }
  return [...byFamily.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([family, slots]) => ({
      family,
      buckets: slots.map((s, i) => {
        const sorted = s.latencies.sort((a, b) => a - b);
        return {
          t: new Date(startMs + i * bucketMs).toISOString(),
          calls: sorted.length,
          errors: s.errors,
          p50_ms: percentile(sorted, 0.5),
          p95_ms: percentile(sorted, 0.95),
        };
      }),
    }));
}

export function createAdminModule(options: AdminOptions = {}): RouteModule {
  const env = options.env ?? {};
  return {
    openapi: ADMIN_PATHS,
    routes(deps: Deps) {
      const app = new Hono<AppEnv>();
      let catalog: CatalogResponse | undefined;
      const auditOf = () => {
        if (!options.audit)
          throw new ToolbeltError("NOT_FOUND", "the audit store is off here: set TOOLBELT_AUDIT_STORE=on (the construct: auditTtlDays above 0)");
        return options.audit;
      };

      app.get("/v1/admin/catalog", (c) => {
        requireAdmin(c);
        return c.json<CatalogResponse>((catalog ??= buildCatalog(deps, env)));
      });

      app.post("/v1/admin/find", async (c) => {
        const admin = requireAdmin(c);
        const { principal, ...request } = await parseJsonBody(c, AdminFindBody, { maxBytes: deps.config.http.maxBodyBytes });
        const as = principal === undefined ? admin : deps.policy.callerById(principal);
        if (!as) {
          throw new ToolbeltError("NOT_FOUND", `no principal ${JSON.stringify(principal)} in the policy: use one of its principal ids`, {
            principal,
            available: [...deps.principals].slice(0, 100),
          });
        }
        // The finder and grants POST /v1/find uses, so the ranking is the same; the playground's queries are no misses.
        return c.json(await deps.finder.find(request, as.granted));
      });

      app.get("/v1/admin/sessions/:id", async (c) => {
        requireAdmin(c);
        const id = c.req.param("id");
        const record = SESSION_ID_RE.test(id) ? await deps.store.get(id) : undefined;
        if (!record) {
          throw new ToolbeltError("SESSION_NOT_FOUND", `no session ${JSON.stringify(id.slice(0, 80))}: use an id POST /v1/sessions answered`, {
            session: id.slice(0, 80),
          });
        }
        return c.json<AdminSessionResponse>(sessionBelt(deps, id, record));
      });

      app.get("/v1/admin/audit", async (c) => {
        requireAdmin(c);
        const q = checkQuery(c, AuditQuery);
        const now = deps.clock();
        // An earlier `since` is read as the oldest allowed instant, not refused: the console's "a week ago"
        // is the browser's clock, which may run ahead of ours.
        const since = Math.max(now - AUDIT_LIMITS.maxHours * 3_600_000, q.since === undefined ? now - 3_600_000 : Date.parse(q.since));
        const filter = { principal: q.principal, tool: q.tool, family: q.family, outcome: q.outcome };
        const page: AuditPage<ListedAudit> | undefined = await auditOf().list(since, now, filter, q.limit, q.cursor);
        if (!page)
          throw new ToolbeltError("INVALID_REQUEST", "cursor is not one this route answered: send `next` as it came, or leave it out", { cursor: q.cursor });
        return c.json<AuditListResponse>(page as AuditListResponse);
      });

      app.get("/v1/admin/audit/stats", async (c) => {
        requireAdmin(c);
        const { minutes } = checkQuery(c, AuditStatsQuery);
        const now = deps.clock();
        const bucket_secs = bucketSecs(minutes);
        const bucketMs = bucket_secs * 1000;
        const count = Math.ceil((minutes * 60) / bucket_secs);
        const start = (Math.floor(now / bucketMs) - count + 1) * bucketMs;
        const { points, truncated } = await auditOf().points(start, now);
        return c.json<AuditStatsResponse>({
          minutes,
          bucket_secs,
          families: minuteStats(points, start, count, bucketMs),
          ...(truncated ? { truncated: true as const } : {}),
        });
      });
      return app;
    },
  };
}
