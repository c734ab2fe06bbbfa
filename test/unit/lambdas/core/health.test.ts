// core/health.ts with in-memory probes: one round of probes per 30 s whoever asks, the last report
// answering while the next round runs, a probe that never
// answers ends its check in time, and where each family's upstream is.
import { describe, expect, it } from "vitest";
import type { CatalogTool, FamilyInfo } from "../../../../registry/contract/artifact.js";
import { createHealthChecks, downIn, type HealthPorts, upstreamTargets } from "../../../../lambdas/core/health.js";
import { minuteStats } from "../../../../lambdas/http/routes/admin.js";

function ports(over: Partial<HealthPorts> = {}): HealthPorts & { calls: string[]; at: { now: number } } {
  const calls: string[] = [];
  const at = { now: 1_000_000 };
  return {
    calls,
    at,
    table: async () => {
      calls.push("table");
    },
    upstreams: [{ family: "crm", url: "https://crm.example/" }, { family: "files" }],
    reach: async (url) => {
      calls.push(url);
    },
    models: [{ role: "decider", unprobed: "its key is not loaded here" }],
    now: () => at.now,
    ...over,
  };
}

describe("createHealthChecks", () => {
  it("runs one round of probes per 30 s for every caller, concurrent ones included", async () => {
    const p = ports();
    const health = createHealthChecks(p);
    const [a, b] = await Promise.all([health.report(), health.report()]);
    expect(a).toBe(b);
    p.at.now += 29_999;
    expect(await health.report()).toBe(a);
    expect(p.calls).toEqual(["table", "https://crm.example/"]);
    p.at.now += 1;
    // Stale while revalidating: the expired report answers, one round refreshes it behind.
    const [stale, alsoStale] = await Promise.all([health.report(), health.report()]);
    expect(stale).toBe(a);
    expect(alsoStale).toBe(a);
    await new Promise((r) => setTimeout(r, 0));
    expect(p.calls).toHaveLength(4);
    const c = await health.report();
    expect(c).not.toBe(a);
    expect(c).toMatchObject({
      table: { ok: true },
      upstreams: [
        { family: "crm", ok: true },
        { family: "files", ok: true },
      ],
      models: [{ role: "decider", ok: true, note: "not probed here: its key is not loaded here" }],
    });
    expect(downIn(c)).toEqual([]);
  });

  it("answers from the last report while a refresh hangs on a down upstream, and starts no second round meanwhile", async () => {
    let release: () => void = () => undefined;
    let rounds = 0;
    const p = ports({
      reach: (url) => {
        rounds += 1;
        // The first round answers; the refresh hangs until released (as an upstream not answering would, until the timeout).
        return rounds === 1 ? Promise.resolve() : new Promise<void>((resolve) => (release = () => resolve(void url)));
      },
    });
    const health = createHealthChecks(p);
    const first = await health.report();
    p.at.now += 30_000;
    expect(await health.report()).toBe(first);
    expect(await health.report()).toBe(first);
    expect(rounds).toBe(2);
    release();
    await new Promise((r) => setTimeout(r, 0));
    const fresh = await health.report();
    expect(fresh).not.toBe(first);
    expect(fresh.checked_at).toBe(new Date(p.at.now).toISOString());
    expect(rounds).toBe(2);
  });

  it("marks a probe that fails or never answers as down, with why, and names it", async () => {
    const report = await createHealthChecks(
      ports({
        timeoutMs: 20,
        reach: () => new Promise(() => undefined),
        models: [{ role: "decider", probe: async () => Promise.reject(new Error("HTTP 401 from the model endpoint")) }],
      }),
    ).report();
    expect(report.upstreams[0]).toMatchObject({ family: "crm", ok: false, error: "no answer within 20 ms" });
    expect(report.models[0]).toMatchObject({ role: "decider", ok: false, error: "HTTP 401 from the model endpoint" });
    expect(downIn(report)).toEqual(["upstream crm", "model decider"]);
  });
});

describe("upstreamTargets", () => {
  const family = (name: string, variables?: FamilyInfo["variables"]): FamilyInfo => ({
    name,
    description: name,
    required: true,
    tool_count: 1,
    examples: [],
    ...(variables ? { variables } : {}),
  });
  const tool = (name: string, backend: CatalogTool["backend"]) => ({ name, family: name.split(".")[0], kind: backend.kind, backend }) as unknown as CatalogTool;

  it("takes an http family's origin, an MCP family's endpoint, fills declared settings only, and notes what it cannot know", () => {
    const targets = upstreamTargets(
      [family("crm", { CRM_BASE: { secret: false } }), family("docs"), family("wiki"), family("shell"), family("tenant")],
      [
        tool("crm.lookup", { kind: "http", method: "GET", url: "${CRM_BASE}/customers/{{input.id}}", output: "json" }),
        tool("docs.search", { kind: "mcp", url: "http://127.0.0.1:3001/mcp", tool: "search" }),
        tool("wiki.read", { kind: "http", method: "GET", url: "${WIKI_BASE}/page", output: "json" }),
        tool("shell.run", { kind: "exec", command: "ls", args: [], output: "text" }),
        tool("tenant.get", { kind: "http", method: "GET", url: "https://{{input.tenant}}.example.com/x", output: "json" }),
      ],
      { CRM_BASE: "https://crm.example.com:8443/api", WIKI_BASE: "https://wiki.example" },
    );
    expect(targets).toEqual([
      { family: "crm", url: "https://crm.example.com:8443/" },
      { family: "docs", url: "http://127.0.0.1:3001/mcp" },
      // WIKI_BASE is in the environment but the family does not declare it: not read.
      { family: "wiki", note: "not probed: its URL needs a setting or an input" },
      { family: "shell" },
      { family: "tenant", note: "not probed: its URL needs a setting or an input" },
    ]);
  });
});

describe("minuteStats", () => {
  it("lists every minute of the window per family, with calls, errors and nearest-rank p50 and p95", () => {
    const start = Date.parse("2026-12-07T01:00:00Z");
    const at = (min: number, sec = 0) => new Date(start + min * 60_000 + sec * 1000).toISOString();
    const points = [
      ...[10, 20, 30, 40, 1000].map((ms, i) => ({ time: at(1, i), family: "crm", outcome: i === 4 ? "UPSTREAM_TIMEOUT" : "OK", latency_ms: ms })),
      { time: at(2), family: "docs", outcome: "OK", latency_ms: 5 },
      { time: at(-1), family: "docs", outcome: "OK", latency_ms: 5 },
    ];
    const stats = minuteStats(points, start, 3);
    expect(stats.map((f) => f.family)).toEqual(["crm", "docs"]);
    expect(stats[0]!.buckets).toEqual([
      { t: "2026-12-07T01:00:00.000Z", calls: 0, errors: 0, p50_ms: 0, p95_ms: 0 },
      { t: "2026-12-07T01:01:00.000Z", calls: 5, errors: 1, p50_ms: 30, p95_ms: 1000 },
      { t: "2026-12-07T01:02:00.000Z", calls: 0, errors: 0, p50_ms: 0, p95_ms: 0 },
    ]);
    expect(stats[1]!.buckets.map((b) => b.calls)).toEqual([0, 0, 1]);
  });
});
