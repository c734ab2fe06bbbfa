// The DynamoDB session store against dynalite: conditional writes and SDK errors as domain errors.
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
  version: 1,
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

  it("writes only over the version it read", async () => {
    await dynamo.store.create(record("s-ver"));
    await dynamo.store.update(record("s-ver", { version: 2, pins: [] }), 1);
    await expect(dynamo.store.update(record("s-ver", { version: 2, declared: [] }), 1)).rejects.toMatchObject({ code: "CONFLICT" });
    await expect(dynamo.store.update(record("s-nowhere", { version: 2 }), 1)).rejects.toMatchObject({ code: "CONFLICT" });
    expect(await dynamo.store.get("s-ver")).toEqual(record("s-ver", { version: 2, pins: [] }));
  });

  it("turns SDK errors into ToolbeltError, keeping the SDK error as the cause for the log", async () => {
    const missingTable = new DynamoSessionStore(dynamo.client, "no-such-table");
    const err = await missingTable.get("x").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ToolbeltError);
    expect(err).toMatchObject({ code: "INTERNAL", message: "session store get failed" });
    expect((err as Error).cause).toMatchObject({ name: "ResourceNotFoundException" });
  });

  it("creates the table once and accepts an existing one", async () => {
    await ensureTable(dynamo.client, dynamo.table);
    await ensureTable(dynamo.client, "toolbelt-second");
    await new DynamoSessionStore(dynamo.client, "toolbelt-second").create(record("s-2nd"));
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
