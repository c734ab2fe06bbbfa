// The limiter's decisions over an in-memory store with DynamoDB's semantics (conditional add, leases
// with a time): which limits apply, counters per principal/tool/family, windows by the clock,
// refusals naming the limit with a sane retry_after_secs, give-backs, and the RateLimit headers.
import { describe, expect, it } from "vitest";
import type { PolicyFile } from "../../../../registry/contract/policy.js";
import { createLimiter, declaresLimits, rateLimitHeaders, type LimitStore } from "../../../../lambdas/core/limits.js";
import { ToolbeltError } from "../../../../lambdas/core/errors.js";
import type { Caller } from "../../../../lambdas/core/ports.js";

class MemoryLimitStore implements LimitStore {
  readonly counts = new Map<string, number>();
  readonly leases = new Map<string, Map<string, number>>();
  writes = 0;
  async count(key: string, limit: number): Promise<number | undefined> {
    this.writes += 1;
    const n = this.counts.get(key) ?? 0;
    if (n >= limit) return undefined;
    this.counts.set(key, n + 1);
    return n + 1;
  }
  async uncount(key: string): Promise<void> {
    this.writes += 1;
    this.counts.set(key, Math.max(0, (this.counts.get(key) ?? 0) - 1));
  }
  async lease(key: string, id: string, limit: number, until: number, now: number): Promise<boolean> {
    this.writes += 1;
    const set = this.leases.get(key) ?? new Map<string, number>();
    this.leases.set(key, set);
    if (set.size >= limit) for (const [l, t] of set) if (t <= now) set.delete(l);
    if (set.size >= limit) return false;
    set.set(id, until);
    return true;
  }
  async release(key: string, id: string): Promise<void> {
    this.writes += 1;
    this.leases.get(key)?.delete(id);
  }
}

const caller = (principal: string, role?: string): Caller => ({ principal, ...(role ? { role } : {}), admin: false, granted: () => true });
const notes = { name: "notes.add", family: "notes" };
const T0 = Date.UTC(2026, 11, 3, 10, 0, 15);

function setup(policy: Pick<PolicyFile, "principals" | "family_limits">) {
  const store = new MemoryLimitStore();
  let now = T0;
  const limiter = createLimiter({ store, policy, clock: () => now });
  if (!limiter) throw new Error("no limiter");
  return { store, limiter, at: (ms: number) => (now = ms) };
}

const principal = (id: string, over: Partial<PolicyFile["principals"][number]> = {}) => ({ id, keys: [], allow: ["*"], deny: [], admin: false, ...over });

async function refusal(p: Promise<unknown>): Promise<ToolbeltError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!(e instanceof ToolbeltError)) throw new Error(`expected a refusal, got ${String(e)}`);
  return e;
}

describe("limits", () => {
  it("a policy without limits builds no limiter: no call counts anything", () => {
    const policy = { principals: [principal("a"), principal("b", { tool_limits: {} })], family_limits: { notes: {} } };
    expect(declaresLimits(policy)).toBe(false);
    expect(createLimiter({ store: new MemoryLimitStore(), policy, clock: Date.now })).toBeUndefined();
  });

  it("lets requests_per_minute calls through in a window, refuses the next with the seconds left in it, and admits again in the next window", async () => {
    const { limiter, at } = setup({ principals: [principal("a", { limits: { requests_per_minute: 3 } })] });
    for (let i = 0; i < 3; i++) await limiter.admit(caller("a"), notes, 1000);
    const e = await refusal(limiter.admit(caller("a"), notes, 1000));
    expect(e.code).toBe("TOO_MANY_REQUESTS");
    expect(e.details).toEqual({ limit: "requests_per_minute", scope: "principal", quota: 3, tool: "notes.add", retry_after_secs: 45 });
    at(T0 + 45_000);
    await expect(limiter.admit(caller("a"), notes, 1000)).resolves.toBeDefined();
  });

  it("counts a token subject on its own counters with its role's limits", async () => {
    const { limiter } = setup({ principals: [principal("users", { limits: { requests_per_minute: 1 } })] });
    await limiter.admit(caller("sub-1", "users"), notes, 1000);
    await limiter.admit(caller("sub-2", "users"), notes, 1000);
    expect((await refusal(limiter.admit(caller("sub-1", "users"), notes, 1000))).details.limit).toBe("requests_per_minute");
  });

  it("gives back what it counted when another limit refuses, and names the one with the longest wait", async () => {
    const { limiter, store } = setup({
      principals: [principal("a", { limits: { requests_per_minute: 10, daily_quota: 1 } })],
    });
    await limiter.admit(caller("a"), notes, 1000);
    const e = await refusal(limiter.admit(caller("a"), notes, 1000));
    expect(e.details).toMatchObject({ limit: "daily_quota", retry_after_secs: 50_385 });
    expect([...store.counts].find(([k]) => k.includes("requests_per_minute"))?.[1]).toBe(1);
  });

  it("keeps tool limits per tool and family limits across principals", async () => {
    const { limiter } = setup({
      principals: [principal("a", { tool_limits: { "notes.*": { requests_per_minute: 1 } } }), principal("b")],
      family_limits: { shared: { requests_per_minute: 2 } },
    });
    await limiter.admit(caller("a"), notes, 1000);
    await limiter.admit(caller("a"), { name: "notes.list", family: "notes" }, 1000);
    expect((await refusal(limiter.admit(caller("a"), notes, 1000))).details).toMatchObject({ scope: "tool", tool: "notes.add" });
    const ping = { name: "shared.ping", family: "shared" };
    await limiter.admit(caller("a"), ping, 1000);
    await limiter.admit(caller("b"), ping, 1000);
    expect((await refusal(limiter.admit(caller("b"), ping, 1000))).details).toMatchObject({ scope: "family", family: "shared" });
  });

  it("holds a concurrency slot until released, and a slot past its lease frees itself", async () => {
    const { limiter, at } = setup({ principals: [principal("a", { limits: { concurrent_calls: 1 } })] });
    const first = await limiter.admit(caller("a"), notes, 1000);
    expect((await refusal(limiter.admit(caller("a"), notes, 1000))).details).toMatchObject({ limit: "concurrent_calls", retry_after_secs: 1 });
    await first.release();
    await limiter.admit(caller("a"), notes, 1000); // never released: its call crashed
    at(T0 + 1000 + 30_000);
    await expect(limiter.admit(caller("a"), notes, 1000)).resolves.toBeDefined();
  });

  it("does not count the meta-tools (the tool toolbelt.call reaches is counted) or callers without limits", async () => {
    const { limiter, store } = setup({ principals: [principal("a", { limits: { requests_per_minute: 1 } }), principal("free")] });
    await limiter.admit(caller("a"), { name: "toolbelt.call", family: "toolbelt" }, 1000);
    await limiter.admit(caller("free"), notes, 1000);
    expect(store.writes).toBe(0);
  });

  it("reports the window limits as the IETF draft's RateLimit-Policy and RateLimit fields", async () => {
    const { limiter } = setup({ principals: [principal("a", { limits: { requests_per_minute: 5, daily_quota: 100, concurrent_calls: 2 } })] });
    const pass = await limiter.admit(caller("a"), notes, 1000);
    expect(rateLimitHeaders(pass.states)).toEqual({
      "ratelimit-policy": '"principal-requests-per-minute";q=5;w=60, "principal-daily-quota";q=100;w=86400',
      ratelimit: '"principal-requests-per-minute";r=4;t=45',
    });
    expect(rateLimitHeaders([])).toEqual({});
  });
});
