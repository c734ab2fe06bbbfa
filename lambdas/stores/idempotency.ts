// Idempotency keys in the sessions table, with our own conditional writes (Powertools idempotency
// is not a dependency; these three writes are all it would do for us, and dynalite tests them).
//   pk "IDEMPOTENCY#<sha256(principal, key)>", sk "IDEMPOTENCY"
//   fingerprint, status (in_progress | done | released), owner, locked_until (ms), expires_at (s, TTL),
//   response (gzipped JSON, binary) or response_bytes when the answer was too large for an item.
import { gunzipSync, gzipSync } from "node:zlib";
import { ConditionalCheckFailedException } from "@aws-sdk/client-dynamodb";
import { GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import type { CallResponse } from "../core/call/types.js";
import { holdsKey, type IdempotencyClaim, type IdempotencyRecord, type IdempotencyStore } from "../core/call/idempotency.js";
import { translateSdkError } from "./sdk-errors.js";

/** DynamoDB items stop at 400 KB: a larger compressed answer is not kept (a repeat gets 409 saying so). */
export const MAX_STORED_RESPONSE_BYTES = 350 * 1024;

const key = (scope: string) => ({ pk: `IDEMPOTENCY#${scope}`, sk: "IDEMPOTENCY" });
const translate = (err: unknown, op: string) => translateSdkError(err, "idempotency store", op);

function toRecord(item: Record<string, unknown>): IdempotencyRecord {
  const status = item.status === "done" || item.status === "released" ? item.status : "in_progress";
  return {
    fingerprint: String(item.fingerprint),
    status,
    ...(item.response instanceof Uint8Array ? { response: JSON.parse(gunzipSync(item.response).toString("utf8")) as CallResponse } : {}),
    ...(typeof item.response_bytes === "number" ? { response_bytes: item.response_bytes } : {}),
    locked_until: Number(item.locked_until ?? 0),
    expires_at: Number(item.expires_at ?? 0),
  };
}

export class DynamoIdempotencyStore implements IdempotencyStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async claim(claim: IdempotencyClaim, now: number): Promise<{ claimed: true } | { claimed: false; existing?: IdempotencyRecord }> {
    const { scope, ...fields } = claim;
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.table,
          Item: { ...key(scope), type: "idempotency", status: "in_progress", ...fields },
          // The same rule as holdsKey: write over nothing, an expired or released key, or an abandoned claim.
          ConditionExpression: "attribute_not_exists(pk) OR expires_at <= :now_s OR #status = :released OR (#status = :in_progress AND locked_until <= :now)",
          ExpressionAttributeNames: { "#status": "status" },
          ExpressionAttributeValues: { ":now_s": now / 1000, ":now": now, ":released": "released", ":in_progress": "in_progress" },
        }),
      );
      return { claimed: true };
    } catch (err) {
      if (!(err instanceof ConditionalCheckFailedException)) throw translate(err, "claim");
    }
    try {
      const out = await this.client.send(new GetCommand({ TableName: this.table, Key: key(scope), ConsistentRead: true }));
      const existing = out.Item ? toRecord(out.Item) : undefined;
      // Freed between the write and the read: the caller tries to claim again.
      return existing && holdsKey(existing, now) ? { claimed: false, existing } : { claimed: false };
    } catch (err) {
      throw translate(err, "read");
    }
  }

  async complete(scope: string, owner: string, response: CallResponse): Promise<void> {
    const json = JSON.stringify(response);
    const packed = gzipSync(json);
    const kept = packed.byteLength <= MAX_STORED_RESPONSE_BYTES;
    await this.finish(scope, owner, "done", kept ? { response: packed } : { response_bytes: Buffer.byteLength(json, "utf8") });
  }

  async release(scope: string, owner: string): Promise<void> {
    await this.finish(scope, owner, "released", {});
  }

  /** Set the final status, only while `owner` holds the claim (one that took over an abandoned claim owns it now). */
  private async finish(scope: string, owner: string, status: "done" | "released", extra: Record<string, unknown>): Promise<void> {
    const names = Object.keys(extra);
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.table,
          Key: key(scope),
          UpdateExpression: `SET #status = :status${names.map((n) => `, #${n} = :${n}`).join("")}`,
          ConditionExpression: "#owner = :owner AND #status = :in_progress",
          ExpressionAttributeNames: { "#status": "status", "#owner": "owner", ...Object.fromEntries(names.map((n) => [`#${n}`, n])) },
          ExpressionAttributeValues: {
            ":status": status,
            ":owner": owner,
            ":in_progress": "in_progress",
            ...Object.fromEntries(names.map((n) => [`:${n}`, extra[n]])),
          },
        }),
      );
    } catch (err) {
      if (err instanceof ConditionalCheckFailedException) return;
      throw translate(err, status === "done" ? "complete" : "release");
    }
  }
}
