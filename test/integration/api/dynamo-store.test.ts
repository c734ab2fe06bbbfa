// The DynamoDB session store against dynalite: a session and its pins (one item each), the conditional
// unpin and renewal, and SDK errors as domain errors.
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ToolbeltError } from "../../../lambdas/core/errors.js";
import { DynamoSessionStore, ensureTable } from "../../../lambdas/stores/dynamodb.js";
import type { SessionRecord } from "../../../lambdas/core/ports.js";
import { startDynalite, type TestDynamo } from "../../helpers/dynalite.js";

let dynamo: TestDynamo;
beforeAll(async () => {
  dynamo = await startDynalite({ table: "toolbelt-store" });
});
afterAll(async () => {
  await dynamo?.close();
});

const record = (id: string, over: Partial<SessionRecord> = {}): SessionRecord => ({
  id,
  principal: "alice",
  declared: ["git.diff"],
  pins: [{ name: "git.log", bytes: 120, last_used: 5 }],
  created_at: 1000,
  expires_at: 2000,
  ...over,
});

describe("DynamoSessionStore", () => {
  it("round-trips a session, with and without a brief", async () => {
    await dynamo.store.create(record("s-one", { brief: "review" }));
    await dynamo.store.create(record("s-two"));
    expect(await dynamo.store.get("s-one")).toEqual(record("s-one", { brief: "review" }));
    expect(await dynamo.store.get("s-two")).toEqual(record("s-two"));
    expect(await dynamo.store.get("s-missing")).toBeUndefined();
  });

  it("refuses a second create of the same id with CONFLICT", async () => {
    await dynamo.store.create(record("s-dup"));
    await expect(dynamo.store.create(record("s-dup", { principal: "mallory" }))).rejects.toMatchObject({ code: "CONFLICT" });
    expect((await dynamo.store.get("s-dup"))?.principal).toBe("alice");
  });

  it("writes each pin on its own: the latest use wins whatever lands last, an unpin keeps a pin used since, and the session is untouched", async () => {
    await dynamo.store.create(record("s-pins", { pins: [] }));
    const diff = { name: "git.diff", bytes: 80, last_used: 7 };
    await Promise.all([dynamo.store.putPin("s-pins", { name: "git.log", bytes: 120, last_used: 6 }, 2100), dynamo.store.putPin("s-pins", diff, 2100)]);
    await dynamo.store.putPin("s-pins", { name: "git.log", bytes: 120, last_used: 9 }, 2100);
    await dynamo.store.putPin("s-pins", { name: "git.log", bytes: 120, last_used: 8 }, 2100); // an older use landing late
    const sorted = (id: string) => dynamo.store.get(id).then((s) => s && { ...s, pins: [...s.pins].sort((a, b) => a.last_used - b.last_used) });
    expect(await sorted("s-pins")).toEqual(record("s-pins", { pins: [diff, { name: "git.log", bytes: 120, last_used: 9 }] }));
    // Seen at 6, used again at 9: stays. Seen at 7 and unchanged: removed.
    await dynamo.store.dropPin("s-pins", { name: "git.log", bytes: 120, last_used: 6 });
    await dynamo.store.dropPin("s-pins", diff);
    await dynamo.store.dropPin("s-pins", { name: "never.pinned", bytes: 1, last_used: 1 });
    expect((await dynamo.store.get("s-pins"))?.pins).toEqual([{ name: "git.log", bytes: 120, last_used: 9 }]);
  });

  it("renews the expiry later only, and never creates a missing session", async () => {
    await dynamo.store.create(record("s-renew"));
    await dynamo.store.renew("s-renew", 2500);
    await dynamo.store.renew("s-renew", 2400);
    expect((await dynamo.store.get("s-renew"))?.expires_at).toBe(2500);
    await dynamo.store.renew("s-nowhere", 2500);
    expect(await dynamo.store.get("s-nowhere")).toBeUndefined();
  });

  it("turns SDK errors into ToolbeltError, keeping the SDK error as the cause for the log", async () => {
    const missingTable = new DynamoSessionStore(dynamo.client, "no-such-table");
    const err = await missingTable.get("x").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ToolbeltError);
    expect(err).toMatchObject({ code: "INTERNAL", message: "session store get failed" });
    expect((err as Error).cause).toMatchObject({ name: "ResourceNotFoundException" });
  });

  it("creates the table once and accepts an existing one", async () => {
    await dynamo.store.create(record("s-before"));
    await ensureTable(dynamo.client, dynamo.table);
    // An existing table is kept as it is: what it held is still there.
    expect(await dynamo.store.get("s-before")).toEqual(record("s-before"));
    const second = new DynamoSessionStore(dynamo.client, "toolbelt-second");
    await expect(second.get("s-2nd")).rejects.toMatchObject({ code: "INTERNAL" });
    await ensureTable(dynamo.client, "toolbelt-second");
    await second.create(record("s-2nd"));
    await ensureTable(dynamo.client, "toolbelt-second");
    expect(await second.get("s-2nd")).toEqual(record("s-2nd"));
    expect(await dynamo.store.get("s-2nd")).toBeUndefined();
  });
});

describe("a data folder (TOOLBELT_DATA_DIR of npm start)", () => {
  it("keeps sessions across a restart of dynalite", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "toolbelt-data-"));
    const first = await startDynalite({ dataDir });
    await first.store.create(record("s-kept"));
    await first.close();
    const second = await startDynalite({ dataDir });
    try {
      expect(await second.store.get("s-kept")).toEqual(record("s-kept"));
    } finally {
      await second.close();
    }
  });
});
