// The limits' counters in the Toolbelt table (core/limits.ts decides which; this file only counts).
//   pk "LIMIT#<subject>/<limit>/<window start ms>", sk "LIMIT": n (calls counted), expires_at (s, TTL)
//     A window's start is in its key, so an old window is never read again: nothing to filter when
//     the TTL has not removed it yet (dynalite never does).
//   pk "LIMIT#<subject>/concurrent", sk "LIMIT": n (leases held), one attribute `lease_<id>` per call
//     in flight holding the epoch ms its lease ends, expires_at (s, TTL: a day past the last lease taken).
import { ConditionalCheckFailedException } from "@aws-sdk/client-dynamodb";
import { GetCommand, UpdateCommand, type DynamoDBDocumentClient, type UpdateCommandInput } from "@aws-sdk/lib-dynamodb";
import type { LimitStore } from "../core/limits.js";
import { translateSdkError } from "./sdk-errors.js";

const key = (k: string) => ({ pk: `LIMIT#${k}`, sk: "LIMIT" });
const LEASE = "lease_";
/** A lease set item stays this long after its last lease was taken (any tool's timeout is far shorter). */
const LEASE_ITEM_TTL_SECS = 86_400;
const translate = (err: unknown, op: string) => translateSdkError(err, "rate-limit store", op);

export class DynamoLimitStore implements LimitStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async count(k: string, limit: number, expiresAt: number): Promise<number | undefined> {
    try {
      const out = await this.client.send(
        new UpdateCommand({
          TableName: this.table,
          Key: key(k),
          UpdateExpression: "ADD n :one SET expires_at = :exp",
          ConditionExpression: "attribute_not_exists(n) OR n < :limit",
          ExpressionAttributeValues: { ":one": 1, ":limit": limit, ":exp": expiresAt },
          ReturnValues: "UPDATED_NEW",
        }),
      );
      return Number(out.Attributes?.n);
    } catch (err) {
      if (err instanceof ConditionalCheckFailedException) return undefined;
      throw translate(err, "count");
    }
  }

  uncount(k: string): Promise<void> {
    return this.unlessGone("uncount", {
      Key: key(k),
      UpdateExpression: "ADD n :minus",
      ConditionExpression: "n > :zero",
      ExpressionAttributeValues: { ":minus": -1, ":zero": 0 },
    });
  }

  async lease(k: string, id: string, limit: number, until: number, now: number): Promise<boolean> {
    if (await this.take(k, id, limit, until, now)) return true;
    // Full: free the leases whose calls crashed (past their time), then try once more.
    return (await this.reap(k, now)) > 0 && (await this.take(k, id, limit, until, now));
  }

  release(k: string, id: string): Promise<void> {
    return this.unlessGone("release", {
      Key: key(k),
      UpdateExpression: "REMOVE #lease ADD n :minus",
      // Only a lease still held: one already reaped was taken off the count then.
      ConditionExpression: "attribute_exists(#lease)",
      ExpressionAttributeNames: { "#lease": LEASE + id },
      ExpressionAttributeValues: { ":minus": -1 },
    });
  }

  /** A take-back whose condition failed has nothing left to take back: not an error. */
  private async unlessGone(op: string, update: Omit<UpdateCommandInput, "TableName">): Promise<void> {
    try {
      await this.client.send(new UpdateCommand({ TableName: this.table, ...update }));
    } catch (err) {
      if (!(err instanceof ConditionalCheckFailedException)) throw translate(err, op);
    }
  }

  /** One conditional update: the lease and the count together, while the count is under the limit. */
  private async take(k: string, id: string, limit: number, until: number, now: number): Promise<boolean> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.table,
          Key: key(k),
          UpdateExpression: "SET #lease = :until, expires_at = :exp ADD n :one",
          ConditionExpression: "attribute_not_exists(n) OR n < :limit",
          ExpressionAttributeNames: { "#lease": LEASE + id },
          ExpressionAttributeValues: { ":until": until, ":exp": Math.ceil(now / 1000) + LEASE_ITEM_TTL_SECS, ":one": 1, ":limit": limit },
        }),
      );
      return true;
    } catch (err) {
      if (err instanceof ConditionalCheckFailedException) return false;
      throw translate(err, "lease");
    }
  }

  /** Remove the leases past their time at `now` and take them off the count: how many were freed. */
  private async reap(k: string, now: number): Promise<number> {
    let expired: string[];
    try {
      const out = await this.client.send(new GetCommand({ TableName: this.table, Key: key(k), ConsistentRead: true }));
      expired = Object.entries(out.Item ?? {})
        .filter(([name, until]) => name.startsWith(LEASE) && Number(until) <= now)
        .map(([name]) => name);
    } catch (err) {
      throw translate(err, "read leases");
    }
    if (expired.length === 0) return 0;
    const names = Object.fromEntries(expired.map((n, i) => [`#l${i}`, n]));
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.table,
          Key: key(k),
          UpdateExpression: `REMOVE ${Object.keys(names).join(", ")} ADD n :minus`,
          // All still there: another reaper or a late release that got to one first has counted it off already.
          ConditionExpression: Object.keys(names)
            .map((n) => `attribute_exists(${n})`)
            .join(" AND "),
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: { ":minus": -expired.length },
        }),
      );
    } catch (err) {
      // Another reaper or a late release got to one first: slots were freed all the same.
      if (!(err instanceof ConditionalCheckFailedException)) throw translate(err, "free leases");
    }
    return expired.length;
  }
}
