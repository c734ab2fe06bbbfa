// Find misses end to end: a real listening server on dynalite records the queries no tool answered
// well (REST find and the toolbelt.find meta-tool), the admin route and `npm run misses -- --find`
// read them back, a hostile query is bounded, and a miss log that fails never fails a find.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MissesResponse, MissSummary } from "../../../lambdas/contract/misses.js";
import { DEFAULT_MIN_SCORE } from "../../../lambdas/core/find/index.js";
import { MAX_QUERY_CHARS } from "../../../lambdas/core/misses.js";
import { createCallModule, type CallModule } from "../../../lambdas/http/routes/call.js";
import { run as misses } from "../../../lambdas/local/misses.js";
import { DynamoMissStore, FIND_MISSES } from "../../../lambdas/stores/misses.js";
import { startTestApi, TEST_KEYS, type TestApi } from "../../helpers/api.js";
import { defaultTestTools, testArtifactInput } from "../../helpers/artifact.js";
import { startDynalite, type TestDynamo } from "../../helpers/dynalite.js";
import { metaTools } from "../call/helpers.js";

let dynamo: TestDynamo;
let api: TestApi;
let calls: CallModule;

beforeAll(async () => {
  dynamo = await startDynalite({ table: "toolbelt-find-misses" });
  const findMisses = new DynamoMissStore(dynamo.client, dynamo.table, FIND_MISSES);
  calls = createCallModule({ env: {}, misses: new DynamoMissStore(dynamo.client, dynamo.table), findMisses });
  api = await startTestApi({ dynamo, extraRoutes: [calls], findMisses, input: testArtifactInput([...defaultTestTools(), ...metaTools()]) });
});
afterAll(async () => {
  await api?.close();
  await calls?.close();
  await dynamo?.close();
});

const find = async (body: Record<string, unknown>, as: keyof typeof TEST_KEYS = "alice") => {
  const res = await api.request("/v1/find", { as, json: body });
  expect(res.status).toBe(200);
  return (await res.json()) as { verdict: string; tools: { name: string; score: number }[] };
};
/** The find-miss log as an operator reads it, once the misses in flight are written. */
const findMisses = async (query = ""): Promise<MissesResponse> => {
  await api.deps.findMisses!.idle();
  const res = await api.request(`/v1/admin/misses?kind=find&limit=100${query}`, { as: "carol" });
  expect(res.status).toBe(200);
  return (await res.json()) as MissesResponse;
};
const cli = async (args: string[]): Promise<{ code: number; out: string }> => {
  let out = "";
  const code = await misses([...args, "--url", api.url, "--key", TEST_KEYS.carol], { out: (s) => (out += s), err: (s) => (out += s), env: {} });
  return { code, out };
};
const entry = async (canonical: string) => ((await findMisses()) as { misses: MissSummary[] }).misses.find((m) => m.canonical === canonical);

describe("the find-miss log", () => {
  it("records a query answered none with the best tool below min_score, folds spellings, and leaves a good match out", async () => {
    expect((await find({ query: "show the weather tomorrow" })).verdict).toBe("none");
    expect((await find({ query: "Show the  WEATHER tomorrow" }, "bob")).verdict).toBe("none");
    expect((await find({ query: "list recent commits of a repository" })).verdict).toBe("match");

    const weather = await entry("show the weather tomorrow");
    expect(weather).toMatchObject({
      count: 2,
      names: ["Show the  WEATHER tomorrow", "show the weather tomorrow"],
      last_principal: "bob",
      last_outcome: "none",
    });
    // The best tool bob may call (git.* only), scored under the default min_score.
    expect(weather!.best_tool).toMatch(/^git\./);
    expect(weather!.best_score).toBeGreaterThan(0);
    expect(weather!.best_score).toBeLessThan(DEFAULT_MIN_SCORE);
    expect(await entry("list recent commits of a repository")).toBeUndefined();
    // The tool-name log is another partition.
    const calls = (await (await api.request("/v1/admin/misses?limit=100", { as: "carol" })).json()) as { misses: MissSummary[] };
    expect(calls.misses.map((m) => m.canonical)).not.toContain("show the weather tomorrow");
  });

  it("records a match whose best tool scored below the default min_score (the caller lowered it) as low_score, and a query matching no word without a best tool", async () => {
    const weak = await find({ query: "commits", min_score: 0.05 });
    expect(weak.verdict).toBe("match");
    expect(weak.tools[0]!.score).toBeLessThan(DEFAULT_MIN_SCORE);
    expect(await entry("commits")).toMatchObject({ last_outcome: "low_score", best_tool: weak.tools[0]!.name, best_score: weak.tools[0]!.score });
    await find({ query: "zqxv plorb" });
    const nothing = await entry("zqxv plorb");
    expect(nothing).toMatchObject({ count: 1, last_outcome: "none" });
    expect(nothing).not.toHaveProperty("best_tool");
  });

  it("records toolbelt.find's misses as REST find's", async () => {
    const res = await api.request("/v1/call", { json: { tool: "toolbelt.find", args: { query: "order a pizza with extra cheese" } } });
    expect(res.status).toBe(200);
    expect(await entry("order a pizza with extra cheese")).toMatchObject({ count: 1, last_principal: "alice", last_outcome: "none" });
  });

  it("bounds a hostile query (1,000 characters of emoji with terminal escapes and a bidi override): find answers, the log keeps a clean bounded key", async () => {
    const hostile = `\u001b[2J\u202e${"😀".repeat(499)}\u0000x`;
    expect((await find({ query: hostile })).verdict).toBe("none");
    const { misses: all } = (await findMisses()) as { misses: MissSummary[] };
    const stored = all.find((m) => m.canonical.includes("😀"))!;
    expect(stored.canonical.length).toBeLessThanOrEqual(MAX_QUERY_CHARS);
    // Escapes become spaces (trimmed here), the bidi override goes, the cut falls between two emoji.
    expect(stored.canonical).toBe(`[2j${"😀".repeat((MAX_QUERY_CHARS - 4) / 2)}`);
    expect(JSON.stringify(stored)).not.toMatch(/\\u001b|\\u202e|\\u0000/);
  });

  it("lists one query's latest events with `name` (any spelling)", async () => {
    const { name, events } = (await findMisses(`&name=${encodeURIComponent("SHOW the weather   tomorrow")}`)) as {
      name: string;
      events: { principal: string }[];
    };
    expect(name).toBe("SHOW the weather   tomorrow");
    expect(events.map((e) => e.principal)).toEqual(["bob", "alice"]);
  });

  it("refuses an unknown kind with 400 saying what to send", async () => {
    const res = await api.request("/v1/admin/misses?kind=finds", { as: "carol" });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/kind call or find/);
  });

  it("npm run misses -- --find prints the queries with their best tool", async () => {
    const { code, out } = await cli(["--find"]);
    expect(code, out).toBe(0);
    const lines = out.trim().split("\n");
    expect(lines[0]).toMatch(/^count\s+queries\s+outcome\s+last principal\s+last at$/);
    expect(lines.find((l) => l.includes("show the weather tomorrow"))).toMatch(
      /^\s*2\s+Show the {2}WEATHER tomorrow \| show the weather tomorrow\s+none \(best git\.\S+ 0\.\d+\)\s+bob\s/,
    );
  });

  it("npm run misses shows a control character a caller put in a tool name escaped, never raw to the terminal", async () => {
    expect((await api.request("/v1/call", { json: { tool: "beep\u0007\u001b[2J.tool" } })).status).toBe(404);
    const { code, out } = await cli([]);
    expect(code, out).toBe(0);
    expect(out).toContain("beep\\u0007\\u001b[2J.tool");
    expect(out).not.toMatch(/(?!\n)[\p{Cc}\p{Cf}]/u);
  });
});

describe("a find-miss log that fails", () => {
  // The store points at a table that does not exist: every record fails on the wire.
  it("never fails a find: the answer is the same, the failure is logged", async () => {
    const broken = await startTestApi({ dynamo, findMisses: new DynamoMissStore(dynamo.client, "no-such-table", FIND_MISSES) });
    try {
      const res = await broken.request("/v1/find", { json: { query: "show the weather tomorrow" } });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { verdict: string }).verdict).toBe("none");
      await broken.deps.findMisses!.idle();
      expect(broken.logger.entries.filter((l) => l.message === "could not record a find miss")).toMatchObject([
        { level: "error", fields: { query: "show the weather tomorrow" } },
      ]);
    } finally {
      await broken.close();
    }
  });
});
