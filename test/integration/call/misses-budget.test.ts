// The miss logs' byte budget against dynalite: any caller could have every distinct query stored
// (about 760 bytes each, without end); a window's writes now stop at the budget.
import { ScanCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUDGET_WINDOW_SECS, DynamoMissStore, FIND_MISSES, itemBytes } from "../../../lambdas/stores/misses.js";
import { startDynalite, type TestDynamo } from "../../helpers/dynalite.js";

let dynamo: TestDynamo;
beforeAll(async () => {
  dynamo = await startDynalite({ table: "toolbelt-miss-budget" });
});
afterAll(async () => {
  await dynamo?.close();
});

/** Bytes of the find-miss log's items as stored: every item of its partitions, by DynamoDB's item-size rule and as JSON. */
async function storedBytes(): Promise<{ bytes: number; json: number; items: number }> {
  let bytes = 0;
  let json = 0;
  let items = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const out = await dynamo.client.send(new ScanCommand({ TableName: dynamo.table, ...(start ? { ExclusiveStartKey: start } : {}) }));
    for (const item of out.Items ?? []) {
      if (!String(item.pk).startsWith("FINDMISS")) continue;
      items++;
      bytes += itemBytes(item);
      json += Buffer.byteLength(JSON.stringify(item, (_, v) => (v instanceof Set ? [...v] : v)));
    }
    start = out.LastEvaluatedKey;
  } while (start);
  return { bytes, json, items };
}

describe("the find-miss log's byte budget", () => {
  it("10,000 distinct queries stored about 760 bytes each without bound: the log stays under its budget and keeps the queries that came first", async () => {
    const maxBytes = 256 * 1024;
    const concurrency = 20;
    const store = new DynamoMissStore(dynamo.client, dynamo.table, FIND_MISSES, { maxBytes });
    const at = new Date().toISOString();
    let next = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < 10_000) {
          const i = next++;
          await store.record({ name: `where can I find the invoice number ${i} for my last order`, principal: `p${i % 50}`, at, outcome: "none" });
        }
      }),
    );
    const { bytes, json, items } = await storedBytes();
    // Writers that passed the check together may each add one record past it (about 2 KB here).
    expect(bytes).toBeLessThanOrEqual(maxBytes + concurrency * 2048);
    // Measured another way (JSON, which spends more on quotes and braces than DynamoDB does).
    expect(json).toBeLessThan(1.5 * maxBytes);
    expect(bytes).toBeGreaterThan(maxBytes / 2);
    expect(store.overBudget).toBeGreaterThan(9_000);
    expect(items).toBeLessThan(3 * (10_000 - store.overBudget) + 2);
    const top = await store.top(5);
    expect(top.length).toBe(5);
  }, 120_000);

  it("a spent budget drops misses until its window ends; the next window records again (the tool-name log has a budget of its own)", async () => {
    const store = new DynamoMissStore(dynamo.client, dynamo.table, FIND_MISSES, { maxBytes: 1 });
    const now = Date.now();
    const at = (secs: number) => new Date(now + secs * 1000).toISOString();
    await store.record({ name: "in a spent window", principal: "p", at: at(0), outcome: "none" });
    const before = store.overBudget;
    await store.record({ name: "over the budget", principal: "p", at: at(1), outcome: "none" });
    expect(store.overBudget).toBe(before + 1);
    expect(await store.recent("over the budget", 5)).toEqual([]);
    await store.record({ name: "next window", principal: "p", at: at(BUDGET_WINDOW_SECS), outcome: "none" });
    expect(store.overBudget).toBe(before + 1);
    const calls = new DynamoMissStore(dynamo.client, dynamo.table);
    await calls.record({ name: "kv.gett", principal: "p", at: at(0), outcome: "not_found" });
    expect(calls.overBudget).toBe(0);
  });
});
