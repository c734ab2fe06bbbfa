// The miss log against dynalite: counters survive concurrent writers, spellings are folded by
// canonical name, the top list is ordered, and expired events are ignored.
import { GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DynamoMissStore, MAX_NAME, MAX_SPELLINGS, MISSES_PK, missEventPk, SUMMARY_TTL_SECS } from "../../../lambdas/stores/misses.js";
import { startDynalite, type TestDynamo } from "../../helpers/dynalite.js";

let dynamo: TestDynamo;
let store: DynamoMissStore;

beforeAll(async () => {
  dynamo = await startDynalite({ table: "toolbelt-misses" });
  store = new DynamoMissStore(dynamo.client, dynamo.table);
});
afterAll(async () => {
  await dynamo?.close();
});

const at = (i: number) => new Date(Date.UTC(2026, 11, 1, 0, 0, i)).toISOString();

describe("DynamoMissStore", () => {
  it("counts concurrent misses without losing any and folds spellings by canonical name", async () => {
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        store.record({ name: i % 2 ? "Git.Stauts" : "git-stauts", principal: `p${i % 3}`, at: at(i), outcome: "resolved", resolved_to: "git.status" }),
      ),
    );
    await store.record({ name: "deploy", principal: "p1", at: at(30), outcome: "not_found" });
    await store.record({ name: "Deploy", principal: "p2", at: at(31), outcome: "not_found" });
    await store.record({ name: "search", principal: "p1", at: at(32), outcome: "ambiguous" });

    const top = await store.top(10);
    expect(top.map((m) => [m.canonical, m.count])).toEqual([
      ["git_stauts", 20],
      ["deploy", 2],
      ["search", 1],
    ]);
    expect(top[0]).toMatchObject({ names: ["Git.Stauts", "git-stauts"], resolved_to: "git.status", last_outcome: "resolved" });
    expect(top[1]).toMatchObject({ names: ["Deploy", "deploy"], last_principal: "p2", last_at: at(31), last_outcome: "not_found" });
    expect(top[1]).not.toHaveProperty("resolved_to");
    expect(await store.top(1)).toHaveLength(1);
  });

  it("lists the latest events of one name, newest first, ignoring expired ones", async () => {
    await dynamo.client.send(
      new PutCommand({
        TableName: dynamo.table,
        Item: {
          pk: missEventPk("deploy"),
          sk: "2020-01-01T00:00:00.000Z#old",
          name: "deploy",
          principal: "ghost",
          at: "2020-01-01T00:00:00.000Z",
          outcome: "not_found",
          expires_at: 1,
        },
      }),
    );
    const events = await store.recent("DEPLOY", 10);
    expect(events.map((e) => [e.name, e.principal])).toEqual([
      ["Deploy", "p2"],
      ["deploy", "p1"],
    ]);
  });

  it("bounds a huge name", async () => {
    await store.record({ name: "x".repeat(5000), principal: "p", at: at(40), outcome: "not_found" });
    const top = await store.top(100);
    expect(top.find((m) => m.canonical.startsWith("xxx"))?.canonical.length).toBe(256);
  });

  // One name's spellings once reached DynamoDB's 400 KB item limit (MAX_SPELLINGS applied only on read),
  // after which every write to it failed and its misses silently stopped counting.
  it("spellings reached the 400 KB item limit and misses stopped counting: the stored item keeps at most MAX_SPELLINGS", async () => {
    // 60 distinct 256-character spellings of one canonical name (they differ in case only).
    const spelling = (i: number) => [...i.toString(2).padStart(9, "0")].map((b) => (b === "1" ? "Q" : "q")).join("") + "q".repeat(MAX_NAME - 9);
    for (let i = 0; i < 60; i += 30) {
      await Promise.all(Array.from({ length: 30 }, (_, j) => store.record({ name: spelling(i + j), principal: "p", at: at(50), outcome: "not_found" })));
    }
    const { Item } = await dynamo.client.send(new GetCommand({ TableName: dynamo.table, Key: { pk: MISSES_PK, sk: "q".repeat(MAX_NAME) } }));
    const names = [...((Item?.names as Set<string> | undefined) ?? [])];
    expect(Item?.count).toBe(60);
    expect(names).toHaveLength(MAX_SPELLINGS);
    // The bound: 20 spellings of at most 256 characters plus the key and the last miss's fields.
    expect(JSON.stringify({ ...Item, names }).length).toBeLessThan(8 * 1024);
  });

  it("a summary written before the bound, with thousands of spellings, is replaced by the next miss", async () => {
    const names = new Set(Array.from({ length: 2000 }, (_, i) => `legacy-${i}`));
    await dynamo.client.send(new PutCommand({ TableName: dynamo.table, Item: { pk: MISSES_PK, sk: "legacy", type: "miss_summary", count: 9999, names } }));
    await store.record({ name: "Legacy", principal: "p", at: new Date().toISOString(), outcome: "not_found" });
    const legacy = (await store.top(1000)).find((m) => m.canonical === "legacy");
    expect(legacy).toMatchObject({ count: 1, names: ["Legacy"] });
  });

  it("a summary expires SUMMARY_TTL_SECS after its last miss and the next miss starts it over", async () => {
    const old = new Date(Date.now() - (SUMMARY_TTL_SECS + 3600) * 1000).toISOString();
    await store.record({ name: "stale-name", principal: "p", at: old, outcome: "not_found" });
    await store.record({ name: "Stale-Name", principal: "p", at: old, outcome: "not_found" });
    expect((await store.top(1000)).map((m) => m.canonical)).not.toContain("stale_name");
    await store.record({ name: "stale_name", principal: "q", at: new Date().toISOString(), outcome: "not_found" });
    expect((await store.top(1000)).find((m) => m.canonical === "stale_name")).toMatchObject({ count: 1, names: ["stale_name"], last_principal: "q" });
  });
});
