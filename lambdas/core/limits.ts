// Rate limits, concurrency and daily quotas from the policy, counted across every gateway instance
// in the table (the store), checked by the call gateway before dispatch.
//
// Why fixed windows: a window counter is one conditional UpdateItem (`ADD n 1` if `n < limit`) per
// limit, all sent at once, so a limited call costs one round trip and never a read. A sliding log
// needs an item per request and a query; a token bucket needs a read-modify-write (or a clock in the
// condition) and retries under contention. The price is the boundary burst: a caller may use its
// whole allowance at the end of one window and again at the start of the next (up to 2k in any
// k-window straddling the boundary). requests_per_second caps that burst where it matters.
import { randomUUID } from "node:crypto";
import type { Limits, PolicyFile } from "../../registry/contract/policy.js";
import { META_TOOLS } from "../../registry/contract/names.js";
import { globMatcher } from "../../registry/contract/globs.js";
import { ToolbeltError } from "./errors.js";
import type { Caller, Clock } from "./ports.js";

export type LimitName = keyof Limits;
/** Whose counter: the caller's, the caller's for this tool, or the tool's family's (every caller's). */
export type LimitScope = "principal" | "tool" | "family";

/** The limits' counters in the table: DynamoDB on Lambda and `npm start` (stores/limits.ts). */
export interface LimitStore {
  /** Add one to the counter `key` unless it has reached `limit`: the new count, or undefined when refused. */
  count(key: string, limit: number, expiresAt: number): Promise<number | undefined>;
  /** Take one back (another limit refused the call this one counted). */
  uncount(key: string): Promise<void>;
  /**
   * Hold lease `id` in the set `key` while fewer than `limit` leases are live, until `until` (epoch ms);
   * leases past their time at `now` are freed first when the set is full (their call crashed).
   */
  lease(key: string, id: string, limit: number, until: number, now: number): Promise<boolean>;
  /** Free lease `id` (once: a lease already freed is left alone). */
  release(key: string, id: string): Promise<void>;
}

export type LimiterOptions = {
  store: LimitStore;
  policy: Pick<PolicyFile, "principals" | "family_limits">;
  clock: Clock;
  /** How long past its tool's timeout a call's lease holds its slot if the call never frees it (default 30 s). */
  leaseMarginMs?: number;
  /** When the table fails: refuse the call with 503 (default), or let it through unlimited and log. */
  failOpen?: boolean;
  log?: (level: "warn", message: string, fields: Record<string, unknown>) => void;
  /** Lease ids (tests); random by default. */
  newId?: () => string;
};

/** A window counter's state after this call counted, for the RateLimit headers. */
export type LimitState = { scope: LimitScope; limit: LimitName; quota: number; remaining: number; window_secs: number; reset_secs: number };

/** An admitted call: free its leases when it ends. */
export type Pass = { states: readonly LimitState[]; release(): Promise<void> };

export type Limiter = {
  /** Count the call against every limit that applies, or throw TOO_MANY_REQUESTS naming the one it is over. */
  admit(caller: Caller, tool: { name: string; family: string }, timeoutMs: number): Promise<Pass>;
};

export const DEFAULT_LEASE_MARGIN_MS = 30_000;

const WINDOW_MS = { requests_per_second: 1000, requests_per_minute: 60_000, daily_quota: 86_400_000 } as const;
type WindowName = keyof typeof WINDOW_MS;
const NAMES: readonly LimitName[] = ["requests_per_second", "requests_per_minute", "daily_quota", "concurrent_calls"];

/** One limit that applies to a call: whose counter (`subject`), which limit, how many. */
type Rule = { scope: LimitScope; subject: string; name: LimitName; limit: number };

/** A concurrency refusal: slots free as calls end, so ask again soon. */
const LEASE_RETRY_SECS = 1;
/** Counters outlive their window by this much before the table's TTL may take them. */
const COUNTER_GRACE_SECS = 60;

export const NO_PASS: Pass = { states: [], release: async () => undefined };

/** Whether a policy declares any limit: without one, no limiter is built and no call writes anything. */
export function declaresLimits(policy: Pick<PolicyFile, "principals" | "family_limits">): boolean {
  const some = (l: Limits | undefined) => l !== undefined && NAMES.some((n) => l[n] !== undefined);
  return Object.values(policy.family_limits ?? {}).some(some) || policy.principals.some((p) => some(p.limits) || Object.values(p.tool_limits ?? {}).some(some));
}

/** Per limit name, the smallest value any of the matching declarations sets (several globs may match one tool). */
function tightest(matched: readonly Limits[]): Limits {
  const out: Limits = {};
  for (const l of matched) for (const n of NAMES) if (l[n] !== undefined) out[n] = Math.min(out[n] ?? Infinity, l[n]);
  return out;
}

function globbed(record: Record<string, Limits> | undefined): (name: string) => Limits {
  const entries = Object.entries(record ?? {}).map(([glob, limits]) => ({ match: globMatcher([glob]), limits }));
  return (name) => tightest(entries.filter((e) => e.match(name)).map((e) => e.limits));
}

/** Parts of a counter's key; a token subject may hold any character, so each part is escaped. */
const part = (s: string) => encodeURIComponent(s);

export function createLimiter(opts: LimiterOptions): Limiter | undefined {
  if (!declaresLimits(opts.policy)) return undefined;
  const { store, clock } = opts;
  const margin = opts.leaseMarginMs ?? DEFAULT_LEASE_MARGIN_MS;
  const newId = opts.newId ?? randomUUID;
  const meta = new Set<string>(META_TOOLS);
  const principals = new Map(opts.policy.principals.map((p) => [p.id, { limits: p.limits ?? {}, tools: globbed(p.tool_limits) }]));
  const families = globbed(opts.policy.family_limits);

  // The rules of one policy principal × tool, built once (both sets are finite: the policy's and the catalog's).
  const cache = new Map<string, readonly { scope: LimitScope; name: LimitName; limit: number }[]>();
  const rulesOf = (role: string, tool: { name: string; family: string }) => {
    const p = principals.get(role);
    const key = `${p ? role : ""}\u0000${tool.name}`;
    let rules = cache.get(key);
    if (!rules) {
      const list: { scope: LimitScope; name: LimitName; limit: number }[] = [];
      const add = (scope: LimitScope, l: Limits) => {
        for (const name of NAMES) if (l[name] !== undefined) list.push({ scope, name, limit: l[name] });
      };
      if (p) add("principal", p.limits);
      if (p) add("tool", p.tools(tool.name));
      add("family", families(tool.family));
      cache.set(key, (rules = list));
    }
    return rules;
  };

  const subjectOf = (scope: LimitScope, caller: Caller, tool: { name: string; family: string }) =>
    scope === "family" ? `f/${part(tool.family)}` : scope === "tool" ? `p/${part(caller.principal)}/t/${part(tool.name)}` : `p/${part(caller.principal)}`;

  const refusal = (rule: Rule, tool: { name: string; family: string }, retryAfter: number) => {
    const whose = rule.scope === "family" ? `the ${tool.family} family's` : rule.scope === "tool" ? `your ${tool.name}` : "your";
    const what =
      rule.name === "concurrent_calls"
        ? `${whose} limit of ${rule.limit} calls at once is reached`
        : rule.name === "daily_quota"
          ? `${whose} daily quota of ${rule.limit} calls (UTC day) is used up`
          : `${whose} limit of ${rule.limit} ${rule.name === "requests_per_second" ? "calls per second" : "calls per minute"} is reached`;
    return new ToolbeltError("TOO_MANY_REQUESTS", `${what}; retry after ${retryAfter} s`, {
      limit: rule.name,
      scope: rule.scope,
      quota: rule.limit,
      tool: tool.name,
      ...(rule.scope === "family" ? { family: tool.family } : {}),
      retry_after_secs: retryAfter,
    });
  };

  return {
    async admit(caller, tool, timeoutMs) {
      // The meta-tools only reach other tools, which are counted themselves (a nested call holding a slot would starve its own inner call).
      if (meta.has(tool.name)) return NO_PASS;
      const declared = rulesOf(caller.role ?? caller.principal, tool);
      if (declared.length === 0) return NO_PASS;
      const now = clock();
      const rules: Rule[] = declared.map((r) => ({ ...r, subject: subjectOf(r.scope, caller, tool) }));
      const leaseId = newId();
      const until = now + timeoutMs + margin;

      // Every limit at once: one round trip when all admit.
      const outcomes = await Promise.allSettled(
        rules.map(async (rule) => {
          if (rule.name === "concurrent_calls") {
            const key = `${rule.subject}/concurrent`;
            return { rule, key, ok: await store.lease(key, leaseId, rule.limit, until, now) };
          }
          const windowMs = WINDOW_MS[rule.name as WindowName];
          const start = Math.floor(now / windowMs) * windowMs;
          const key = `${rule.subject}/${rule.name}/${start}`;
          const count = await store.count(key, rule.limit, Math.ceil((start + windowMs) / 1000) + COUNTER_GRACE_SECS);
          const reset = Math.max(1, Math.ceil((start + windowMs - now) / 1000));
          return { rule, key, ok: count !== undefined, count: count ?? rule.limit, reset, window: windowMs / 1000 };
        }),
      );
      const held = outcomes.flatMap((o) => (o.status === "fulfilled" && o.value.ok ? [o.value] : []));
      const undo = () => Promise.allSettled(held.map((h) => (h.rule.name === "concurrent_calls" ? store.release(h.key, leaseId) : store.uncount(h.key))));

      const failed = outcomes.find((o) => o.status === "rejected");
      if (failed) {
        await undo();
        if (!opts.failOpen) throw failed.reason;
        opts.log?.("warn", "rate limits not checked: the table failed", { tool: tool.name, error: String(failed.reason) });
        return NO_PASS;
      }
      const refused = outcomes.flatMap((o) => (o.status === "fulfilled" && !o.value.ok ? [o.value] : []));
      if (refused.length > 0) {
        await undo();
        // The caller must wait for the longest of them anyway: name that one.
        const worst = refused.reduce((a, b) => ((b.reset ?? LEASE_RETRY_SECS) > (a.reset ?? LEASE_RETRY_SECS) ? b : a));
        throw refusal(worst.rule, tool, worst.reset ?? LEASE_RETRY_SECS);
      }

      const states: LimitState[] = held.flatMap((h) =>
        h.window === undefined
          ? []
          : [{ scope: h.rule.scope, limit: h.rule.name, quota: h.rule.limit, remaining: h.rule.limit - h.count, window_secs: h.window, reset_secs: h.reset }],
      );
      const leases = held.filter((h) => h.rule.name === "concurrent_calls");
      return {
        states,
        release: async () => {
          if (leases.length === 0) return;
          const freed = await Promise.allSettled(leases.map((h) => store.release(h.key, leaseId)));
          // Not freed now, freed when its time passes: a slot lost for a while, never an error for a call that ran.
          for (const f of freed)
            if (f.status === "rejected") opts.log?.("warn", "could not free a concurrency lease", { tool: tool.name, error: String(f.reason) });
        },
      };
    },
  };
}

/**
 * The limits a call counted, as response headers per the IETF draft "RateLimit header fields for
 * HTTP" (draft-ietf-httpapi-ratelimit-headers, structured fields): `RateLimit-Policy` lists every
 * window limit that applied (quota `q`, window `w` seconds), `RateLimit` the one with the fewest
 * calls left (`r`) and the seconds until its window resets (`t`). Empty when no window limit applied.
 */
export function rateLimitHeaders(states: readonly LimitState[]): Record<string, string> {
  if (states.length === 0) return {};
  const name = (s: LimitState) => `"${s.scope}-${s.limit.replaceAll("_", "-")}"`;
  const closest = states.reduce((a, b) => (b.remaining < a.remaining || (b.remaining === a.remaining && b.reset_secs > a.reset_secs) ? b : a));
  return {
    "ratelimit-policy": states.map((s) => `${name(s)};q=${s.quota};w=${s.window_secs}`).join(", "),
    ratelimit: `${name(closest)};r=${closest.remaining};t=${closest.reset_secs}`,
  };
}
