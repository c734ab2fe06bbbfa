// The miss log against dynalite: counters survive concurrent writers, spellings are folded by
// canonical name, the top list is ordered, and expired events are ignored.
import { PutCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DynamoMissStore, missEventPk } from "../../../lambdas/stores/misses.js";
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
});
