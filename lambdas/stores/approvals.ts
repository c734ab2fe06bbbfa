// Held calls in the sessions table, changed only by conditional writes (one decision, one completion).
//   pk "APPROVAL#<id>", sk "APPROVAL"; the record's fields; expires_at (s) is the table's TTL attribute;
//   response (gzipped JSON, binary) once the completed call answered, unless too large for an item.
import { gunzipSync, gzipSync } from "node:zlib";
import { ConditionalCheckFailedException } from "@aws-sdk/client-dynamodb";
import { GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import type { ApprovalRecord, ApprovalStore, ApprovalUpdate } from "../core/approvals.js";
import type { CallResponse } from "../core/call/types.js";
import { MAX_STORED_RESPONSE_BYTES } from "./idempotency.js";
import { translateSdkError } from "./sdk-errors.js";

const key = (id: string) => ({ pk: `APPROVAL#${id}`, sk: "APPROVAL" });
const translate = (err: unknown, op: string) => translateSdkError(err, "approval store", op);

function toRecord(item: Record<string, unknown>): ApprovalRecord {
  const { pk: _pk, sk: _sk, type: _type, response, ...fields } = item;
  return {
    ...(fields as Omit<ApprovalRecord, "response">),
    ...(response instanceof Uint8Array ? { response: JSON.parse(gunzipSync(response).toString("utf8")) as CallResponse } : {}),
  };
}

/** The answer as stored: gzipped, or left out when the item would be too large (a repeat then gets 409). */
function packed(response: CallResponse): Uint8Array | undefined {
  const bytes = gzipSync(JSON.stringify(response));
  return bytes.byteLength <= MAX_STORED_RESPONSE_BYTES ? bytes : undefined;
}

export class DynamoApprovalStore implements ApprovalStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async create(record: ApprovalRecord): Promise<void> {
    try {
      await this.client.send(
        new PutCommand({ TableName: this.table, Item: { ...key(record.id), type: "approval", ...record }, ConditionExpression: "attribute_not_exists(pk)" }),
      );
    } catch (err) {
      throw translate(err, "create");
    }
  }

  async get(id: string): Promise<ApprovalRecord | undefined> {
    try {
      const out = await this.client.send(new GetCommand({ TableName: this.table, Key: key(id), ConsistentRead: true }));
      return out.Item ? toRecord(out.Item) : undefined;
    } catch (err) {
      throw translate(err, "read");
    }
  }

  async update(id: string, change: ApprovalUpdate, now: number): Promise<boolean> {
    const { response, ...rest } = change.set;
    const stored = response ? packed(response) : undefined;
    const set: Record<string, unknown> = { ...rest, ...(stored ? { response: stored } : {}) };
    const names = Object.keys(set);
    const from = change.from.map((_, i) => `:from${i}`);
    // Live, in one of the states the change applies to (or running with its lock passed), held by the owner if named.
    let condition = `attribute_exists(pk) AND expires_at > :now_s AND (#status IN (${from.join(", ")})`;
    condition += change.stale !== undefined ? " OR (#status = :running AND locked_until <= :stale))" : ")";
    if (change.owner !== undefined) condition += " AND #owner = :owner";
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.table,
          Key: key(id),
          UpdateExpression: `SET ${names.map((n) => `#${n} = :${n}`).join(", ")}`,
          ConditionExpression: condition,
          ExpressionAttributeNames: {
            "#status": "status",
            ...(change.owner !== undefined ? { "#owner": "owner" } : {}),
            ...Object.fromEntries(names.map((n) => [`#${n}`, n])),
          },
          ExpressionAttributeValues: {
            ":now_s": now / 1000,
            ...Object.fromEntries(change.from.map((s, i) => [`:from${i}`, s])),
            ...(change.stale !== undefined ? { ":running": "running", ":stale": change.stale } : {}),
            ...(change.owner !== undefined ? { ":owner": change.owner } : {}),
            ...Object.fromEntries(names.map((n) => [`:${n}`, set[n]])),
          },
        }),
      );
      return true;
    } catch (err) {
      if (err instanceof ConditionalCheckFailedException) return false;
      throw translate(err, "update");
    }
  }
}
