// The miss log against dynalite: counters survive concurrent writers, spellings are folded by
// canonical name, the top list is ordered and read within a bound, expired events are ignored; the
// find-miss log is the same store in its own partitions.
import { BatchWriteCommand, GetCommand, PutCommand, QueryCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CALL_MISSES,
  DynamoMissStore,
  FIND_MISSES,
  MAX_KEY_BYTES,
  MAX_NAME,
  MAX_SPELLINGS,
  MISSES_PK,
  missEventPk,
  SUMMARY_TTL_SECS,
  TOP_READ_SLACK,
} from "../../../lambdas/stores/misses.js";
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

/** The rank entries (and pages) a top() read, counted on the wire: the client's own send, observed. */
function countingReads(store: DynamoMissStore): { items: number; pages: number } {
  const seen = { items: 0, pages: 0 };
  const client = (store as unknown as { client: typeof dynamo.client }).client;
  const send = client.send.bind(client);
  (client as { send: unknown }).send = async (command: unknown) => {
    const out = (await send(command as never)) as { Items?: unknown[] };
    if (command instanceof QueryCommand) {
      seen.pages++;
      seen.items += out.Items?.length ?? 0;
    }
    return out;
  };
  return seen;
}

describe("DynamoMissStore.top", () => {
  // top() once read every summary of the partition (a Query paged to the end) to sort them in memory:
  // a caller sending thousands of bogus names made every operator read cost thousands of items.
  it("top() read every summary of the partition: it reads at most 2 × limit + TOP_READ_SLACK ranked entries", async () => {
    const local = await startDynalite({ table: "toolbelt-misses-top" });
    try {
      const writer = new DynamoMissStore(local.client, local.table);
      const now = new Date().toISOString();
      const record = (name: string) => writer.record({ name, principal: "p", at: now, outcome: "not_found" });
      // Three names seen more than once (one of them by 8 concurrent writers), then 200 seen once (more
      // than the read bound): their ranked copies written as record() writes them, in batches to keep the test quick.
      await record("bogus-0");
      const { Items: [copy] = [] } = await local.client.send(
        new QueryCommand({ TableName: local.table, KeyConditionExpression: "pk = :pk", ExpressionAttributeValues: { ":pk": CALL_MISSES.rank } }),
      );
      for (let i = 1; i < 200; i += 25) {
        const batch = Array.from({ length: Math.min(25, 200 - i) }, (_, j) => `bogus_${i + j}`);
        const item = (key: string) => ({ ...copy, sk: String(copy!.sk).replace("bogus_0", key), key, names: new Set([key]) });
        await local.client.send(new BatchWriteCommand({ RequestItems: { [local.table]: batch.map((key) => ({ PutRequest: { Item: item(key) } })) } }));
      }
      for (let i = 0; i < 5; i++) await record("deploy");
      await Promise.all(Array.from({ length: 8 }, () => record("Git.Stauts")));
      for (let i = 0; i < 3; i++) await record("search");

      const reader = new DynamoMissStore(local.client, local.table);
      const reads = countingReads(reader);
      const top = await reader.top(3);
      expect(top.map((m) => [m.canonical, m.count])).toEqual([
        ["git_stauts", 8],
        ["deploy", 5],
        ["search", 3],
      ]);
      expect(reads.items).toBeLessThanOrEqual(2 * 3 + TOP_READ_SLACK);

      // The ties among the names seen once come in key order, each once (superseded copies are skipped).
      const ten = await reader.top(10);
      expect(ten.map((m) => m.canonical)).toEqual([
        "git_stauts",
        "deploy",
        "search",
        ...["bogus_0", "bogus_1", "bogus_10", "bogus_100", "bogus_101", "bogus_102", "bogus_103"],
      ]);
      const { Items = [] } = await local.client.send(
        new QueryCommand({ TableName: local.table, KeyConditionExpression: "pk = :pk", ExpressionAttributeValues: { ":pk": CALL_MISSES.rank } }),
      );
      // One ranked copy per name once writers are done (a concurrent pair may leave one superseded copy).
      expect(Items.length).toBeLessThanOrEqual(203 + 8);
      expect(Items.length).toBeGreaterThanOrEqual(203);
    } finally {
      await local.close();
    }
  });
});

describe("the find-miss log", () => {
  const find = () => new DynamoMissStore(dynamo.client, dynamo.table, FIND_MISSES);

  it("keeps find misses apart from call misses, keyed by the normalised query, with the best tool and its score", async () => {
    const at = new Date().toISOString();
    await find().record({
      name: "Book a  table",
      principal: "p1",
      at: new Date(Date.now() - 1000).toISOString(),
      outcome: "none",
      best_tool: "git.diff",
      best_score: 0.31,
    });
    await find().record({ name: "book a table", principal: "p2", at, outcome: "none" });
    const [top] = await find().top(1);
    expect(top).toEqual({
      canonical: "book a table",
      count: 2,
      names: ["Book a  table", "book a table"],
      last_at: at,
      last_principal: "p2",
      last_outcome: "none",
    });
    expect((await store.top(1000)).map((m) => m.canonical)).not.toContain("book a table");
    expect((await find().recent("BOOK A TABLE", 5)).map((e) => [e.principal, e.best_tool, e.best_score])).toEqual([
      ["p2", undefined, undefined],
      ["p1", "git.diff", 0.31],
    ]);
  });

  it("counts a folded burst by its size, and keeps one ranked copy of the key", async () => {
    const at = new Date().toISOString();
    await find().record({ name: "order pizza", principal: "p", at, outcome: "none" }, 5);
    await find().record({ name: "Order Pizza", principal: "q", at, outcome: "none" }, 3);
    expect((await find().top(1000)).find((m) => m.canonical === "order pizza")).toMatchObject({ count: 8, names: ["Order Pizza", "order pizza"] });
    const { Items = [] } = await dynamo.client.send(
      new QueryCommand({ TableName: dynamo.table, KeyConditionExpression: "pk = :pk", ExpressionAttributeValues: { ":pk": FIND_MISSES.rank } }),
    );
    expect(Items.filter((i) => i.key === "order pizza").map((i) => i.count)).toEqual([8]);
  });

  it("stores a hostile query within DynamoDB's key limits: 1,000 emoji with control characters", async () => {
    const hostile = `\u001b[2J${"😀".repeat(1000)}\u0000`;
    await find().record({ name: hostile, principal: "p", at: new Date().toISOString(), outcome: "none" });
    const entry = (await find().top(1000)).find((m) => m.canonical.includes("😀"))!;
    expect(Buffer.byteLength(entry.canonical)).toBeLessThanOrEqual(MAX_KEY_BYTES);
    expect(entry.names[0]!.length).toBeLessThanOrEqual(MAX_NAME);
  });
});
