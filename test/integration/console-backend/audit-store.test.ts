// The audit store's list over dynalite: the read cap holds on every Query (a week of records that match no
// filter stops at the cap and answers `next`), and a cursor outside the window is refused before DynamoDB sees it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CallAudit } from "../../../lambdas/core/call/audit.js";
import { type AuditPage, auditPk, DynamoAuditReader, dynamoAuditSink, type ListedAudit } from "../../../lambdas/stores/audit.js";
import { startDynalite, type TestDynamo } from "../../helpers/dynalite.js";

const HOUR = 3_600_000;
const now = Date.parse("2026-12-07T03:30:00Z");
const since = now - 168 * HOUR;
let dynamo: TestDynamo;

const record = (i: number): CallAudit =>
  ({ principal: "alice", tool: "notes.create", family: "notes", depth: 0, outcome: "OK", status: 200, latency_ms: i }) as CallAudit;
const cursorOf = (pk: string, sk: string) => Buffer.from(JSON.stringify([pk, sk])).toString("base64url");

beforeAll(async () => {
  dynamo = await startDynalite();
  const sink = dynamoAuditSink(dynamo.client, dynamo.table, 7, (message, fields) => {
    throw new Error(`${message} ${JSON.stringify(fields)}`);
  });
  // Five records in each of the last ten hours (the newest hour's at its top), fifty in all.
  for (let h = 0; h < 10; h++) for (let i = 0; i < 5; i++) sink.write(record(i), now - h * HOUR - i * 60_000);
  await sink.idle();
});

afterAll(async () => {
  await dynamo?.close();
});

describe("DynamoAuditReader.list", () => {
  it("stops at the read cap even when no page continues: a filter matching nothing answers [] and `next`, and the pages cover every hour once", async () => {
    // Prepare: a cap of 12 items, each hour's Query reading its 5 records in one page (no LastEvaluatedKey).
    const reader = new DynamoAuditReader(dynamo.client, dynamo.table, 12);
    const matched = new DynamoAuditReader(dynamo.client, dynamo.table);
    // Act
    const pages = [];
    let cursor: string | undefined;
    do {
      const page = await reader.list(since, now, { family: "nobody" }, 50, cursor);
      expect(page).toBeDefined();
      pages.push(page!);
      cursor = page!.next;
    } while (cursor && pages.length < 20);
    // Assess: 50 items at up to 12 a page is 5 pages, each empty, the last without `next`.
    expect(pages.map((p) => [p.records.length, p.next !== undefined])).toEqual([
      [0, true],
      [0, true],
      [0, true],
      [0, true],
      [0, false],
    ]);
    // The same walk with a matching filter lists each record exactly once.
    const seen: string[] = [];
    cursor = undefined;
    do {
      const page: AuditPage<ListedAudit> = (await reader.list(since, now, { family: "notes" }, 50, cursor))!;
      seen.push(...page.records.map((r) => r.time));
      cursor = page.next;
    } while (cursor);
    const all = (await matched.list(since, now, {}, 500))!;
    expect(all.records).toHaveLength(50);
    expect(seen).toEqual(all.records.map((r) => r.time));
  });

  it("refuses a cursor whose sort key is before `since` or whose hour is outside the window (the route answers 400), rather than letting DynamoDB fail", async () => {
    const reader = new DynamoAuditReader(dynamo.client, dynamo.table);
    const recent = now - 2 * HOUR;
    expect(await reader.list(recent, now, {}, 10, cursorOf(auditPk(now), "2000-01-01T00:00:00.000Z#00"))).toBeUndefined();
    expect(await reader.list(recent, now, {}, 10, cursorOf(auditPk(now - 5 * HOUR), new Date(now).toISOString()))).toBeUndefined();
    expect(await reader.list(recent, now, {}, 10, cursorOf(auditPk(now + HOUR), new Date(now).toISOString()))).toBeUndefined();
    // A cursor inside the window still continues.
    const first = (await reader.list(recent, now, {}, 3))!;
    const next = (await reader.list(recent, now, {}, 3, first.next))!;
    expect(next.records[0]!.time < first.records[2]!.time).toBe(true);
  });
});
