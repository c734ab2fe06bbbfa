// The audit store: every call's audit record in the table besides its log line, for the operator
// console (who called what in the last hour, what failed, calls and latency per family per minute).
//   pk AUDIT#<yyyy-mm-ddThh> (the record's UTC hour), sk <ISO time>#<random>, expires_at TTL
// One partition per hour: the console reads the last hour or day newest first with a Query per hour,
// never a Scan. The writer is on the call path: one PutItem in the background, nothing awaited.
import { randomBytes } from "node:crypto";
import { PutCommand, QueryCommand, type DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import type { AuditSink, CallAudit } from "../core/call/audit.js";
import type { ToolbeltError } from "../core/errors.js";
import { translateSdkError } from "./sdk-errors.js";

const HOUR_MS = 3_600_000;
export const AUDIT_PK = "AUDIT#";
/** The partition of the hour `ms` falls in. */
export const auditPk = (ms: number): string => AUDIT_PK + new Date(ms).toISOString().slice(0, 13);

/** Writes each record in the background; a failure is logged with its cause, never thrown into the call. */
export function dynamoAuditSink(
  client: DynamoDBDocumentClient,
  table: string,
  ttlDays: number,
  log: (message: string, fields: Record<string, unknown>) => void,
): AuditSink & { idle(): Promise<void> } {
  const pending = new Set<Promise<unknown>>();
  return {
    write(record: CallAudit, at = Date.now()) {
      const time = new Date(at).toISOString();
      const item = {
        ...record,
        pk: auditPk(at),
        sk: `${time}#${randomBytes(4).toString("hex")}`,
        type: "audit",
        time,
        expires_at: Math.floor(at / 1000) + ttlDays * 86_400,
      };
      const p = client
        .send(new PutCommand({ TableName: table, Item: item }))
        .catch((error: unknown) => log("could not store an audit record", { tool: record.tool, request_id: record.request_id, error }))
        .finally(() => pending.delete(p));
      pending.add(p);
    },
    async idle() {
      while (pending.size) await Promise.all(pending);
    },
  };
}

export type AuditFilter = { principal?: string; tool?: string; family?: string; outcome?: string };
export type AuditPage<T> = { records: T[]; next?: string };
/** The fields of a stored record the console lists. */
const LISTED = ["time", "principal", "tool", "family", "outcome", "status", "latency_ms", "upstream_status", "via", "request_id", "session", "depth"] as const;
export type ListedAudit = Pick<CallAudit, (typeof LISTED)[number] & keyof CallAudit> & { time: string };
/** One record as the per-minute figures read it. */
export type AuditPoint = { time: string; family: string; outcome: string; latency_ms: number };

/** Most items one answer reads (a list page with narrow filters, or a stats window): bounded work per request. */
export const MAX_ITEMS_READ = 20_000;

/** The start of the hour after partition `pk`'s: above every sort key in it. */
const hourEnd = (pk: string): string => new Date(Date.parse(`${pk.slice(AUDIT_PK.length)}:00:00Z`) + HOUR_MS).toISOString();
const encodeCursor = (pk: string, sk: string) => Buffer.from(JSON.stringify([pk, sk])).toString("base64url");
function decodeCursor(cursor: string): { pk: string; sk: string } | undefined {
  try {
    const v = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as unknown;
    if (Array.isArray(v) && typeof v[0] === "string" && v[0].startsWith(AUDIT_PK) && typeof v[1] === "string") return { pk: v[0], sk: v[1] };
  } catch {
    // not ours: undefined
  }
  return undefined;
}

/** The console's reads: records newest first with filters and a cursor, and every record of a window for the figures. */
export class DynamoAuditReader {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly table: string,
    /** Most items one answer reads; tests lower it. */
    private readonly maxItemsRead = MAX_ITEMS_READ,
  ) {}

  private fail(err: unknown, op: string): ToolbeltError {
    return translateSdkError(err, "audit store", op);
  }

  /** Hour partitions from the one holding `untilMs` back to the one holding `sinceMs`, newest first. */
  private static hours(sinceMs: number, untilMs: number): string[] {
    const out: string[] = [];
    for (let h = Math.floor(untilMs / HOUR_MS) * HOUR_MS; h >= Math.floor(sinceMs / HOUR_MS) * HOUR_MS; h -= HOUR_MS) out.push(auditPk(h));
    return out;
  }

  /**
   * Records at or after `sinceMs`, newest first, matching every filter given. `cursor` continues a page;
   * undefined is returned for a cursor this store did not write or that is outside the window (the route
   * answers 400; DynamoDB would refuse a start key before `since` with a 500). At most `maxItemsRead` items
   * are read, checked after every Query: a week of non-matching records answers what it found and `next`.
   */
  async list(sinceMs: number, nowMs: number, filter: AuditFilter, limit: number, cursor?: string): Promise<AuditPage<ListedAudit> | undefined> {
    const since = new Date(sinceMs).toISOString();
    const hours = DynamoAuditReader.hours(sinceMs, nowMs);
    const start = cursor === undefined ? undefined : decodeCursor(cursor);
    if (cursor !== undefined && !(start && hours.includes(start.pk) && start.sk >= since)) return undefined;
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = { ":since": since, ":now": Math.floor(nowMs / 1000) };
    const conditions = ["expires_at > :now"];
    for (const [field, value] of Object.entries(filter)) {
      if (value === undefined) continue;
      names[`#${field}`] = field;
      values[`:${field}`] = value;
      conditions.push(`#${field} = :${field}`);
    }
    const records: ListedAudit[] = [];
    let read = 0;
    const todo = hours.filter((pk) => !start || pk <= start.pk);
    try {
      for (const [h, pk] of todo.entries()) {
        let exclusive: Record<string, unknown> | undefined = start && pk === start.pk ? { pk, sk: start.sk } : undefined;
        do {
          const out = await this.client.send(
            new QueryCommand({
              TableName: this.table,
              KeyConditionExpression: "pk = :pk AND sk >= :since",
              FilterExpression: conditions.join(" AND "),
              ...(Object.keys(names).length ? { ExpressionAttributeNames: names } : {}),
              ExpressionAttributeValues: { ...values, ":pk": pk },
              ScanIndexForward: false,
              Limit: Math.min(1000, Math.max(limit - records.length, 50), this.maxItemsRead - read),
              ...(exclusive ? { ExclusiveStartKey: exclusive } : {}),
            }),
          );
          read += out.ScannedCount ?? 0;
          for (const item of out.Items ?? []) {
            records.push(listed(item));
            if (records.length === limit) return { records, next: encodeCursor(pk, String(item.sk)) };
          }
          exclusive = out.LastEvaluatedKey;
          if (read < this.maxItemsRead) continue;
          if (exclusive) return { records, next: encodeCursor(pk, String(exclusive.sk)) };
          // This hour is done: the next page starts at the top of the older one (a start key above its records).
          const older = todo[h + 1];
          return older ? { records, next: encodeCursor(older, hourEnd(older)) } : { records };
        } while (exclusive);
      }
    } catch (err) {
      throw this.fail(err, "list");
    }
    return { records };
  }

  /** Every record of the window (at most MAX_ITEMS_READ, newest first): what the per-minute figures are computed from. */
  async points(sinceMs: number, nowMs: number): Promise<{ points: AuditPoint[]; truncated: boolean }> {
    const points: AuditPoint[] = [];
    try {
      for (const pk of DynamoAuditReader.hours(sinceMs, nowMs)) {
        let exclusive: Record<string, unknown> | undefined;
        do {
          const out = await this.client.send(
            new QueryCommand({
              TableName: this.table,
              KeyConditionExpression: "pk = :pk AND sk >= :since",
              FilterExpression: "expires_at > :now",
              ProjectionExpression: "#time, #family, #outcome, #latency",
              ExpressionAttributeNames: { "#time": "time", "#family": "family", "#outcome": "outcome", "#latency": "latency_ms" },
              ExpressionAttributeValues: { ":pk": pk, ":since": new Date(sinceMs).toISOString(), ":now": Math.floor(nowMs / 1000) },
              ScanIndexForward: false,
              Limit: Math.min(1000, this.maxItemsRead - points.length),
              ...(exclusive ? { ExclusiveStartKey: exclusive } : {}),
            }),
          );
          for (const i of out.Items ?? []) {
            points.push({
              time: String(i.time),
              family: typeof i.family === "string" ? i.family : "none",
              outcome: String(i.outcome),
              latency_ms: Number(i.latency_ms ?? 0),
            });
          }
          exclusive = out.LastEvaluatedKey;
          if (exclusive && points.length >= this.maxItemsRead) return { points, truncated: true };
        } while (exclusive);
      }
    } catch (err) {
      throw this.fail(err, "stats");
    }
    return { points, truncated: false };
  }
}

function listed(item: Record<string, unknown>): ListedAudit {
  const out: Record<string, unknown> = {};
  for (const f of LISTED) if (item[f] !== undefined && item[f] !== null) out[f] = item[f];
  return out as ListedAudit;
}
