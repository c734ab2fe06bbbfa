// The rest of cut answers (core/call/result-budget.ts) in the sessions table. An item stops at 400 KB, so
// the text is gzipped and split over items of one partition, read back with one Query:
//   pk "CONTINUATION#<id>", sk "PART#<n>" (zero-padded), data (binary); PART#0000 also holds
//   principal, tool, format, parts and expires_at (s, the table's TTL; dynalite never expires: checked in code).
import { gunzipSync, gzipSync } from "node:zlib";
import { BatchWriteCommand, QueryCommand, type DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import type { ContinuationStore, CutFormat, StoredResult } from "../core/call/result-budget.js";
import { translateSdkError } from "./sdk-errors.js";

/** Bytes of gzipped text per item, well under DynamoDB's 400 KB. */
export const CONTINUATION_CHUNK_BYTES = 300 * 1024;
/** BatchWriteItem's limit. */
const BATCH = 25;

const pk = (id: string) => `CONTINUATION#${id}`;
const sk = (n: number) => `PART#${String(n).padStart(4, "0")}`;
const translate = (err: unknown, op: string) => translateSdkError(err, "continuation store", op);

export class DynamoContinuationStore implements ContinuationStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async put(id: string, record: StoredResult): Promise<void> {
    const packed = gzipSync(record.text);
    const chunks: Buffer[] = [];
    for (let at = 0; at < packed.byteLength || chunks.length === 0; at += CONTINUATION_CHUNK_BYTES)
      chunks.push(packed.subarray(at, at + CONTINUATION_CHUNK_BYTES));
    const items = chunks.map((data, n) => ({
      pk: pk(id),
      sk: sk(n),
      type: "continuation",
      data,
      expires_at: record.expires_at,
      ...(n === 0 ? { principal: record.principal, tool: record.tool, format: record.format, parts: chunks.length } : {}),
    }));
    try {
      for (let i = 0; i < items.length; i += BATCH) {
        let request: Record<string, { PutRequest: { Item: Record<string, unknown> } }[]> | undefined = {
          [this.table]: items.slice(i, i + BATCH).map((Item) => ({ PutRequest: { Item } })),
        };
        // Unprocessed items (throttling) are sent again until none is left.
        while (request && Object.keys(request).length > 0) {
          const out = await this.client.send(new BatchWriteCommand({ RequestItems: request }));
          request = out.UnprocessedItems as typeof request;
        }
      }
    } catch (err) {
      throw translate(err, "put");
    }
  }

  async get(id: string): Promise<StoredResult | undefined> {
    const items: Record<string, unknown>[] = [];
    try {
      let start: Record<string, unknown> | undefined;
      do {
        const out = await this.client.send(
          new QueryCommand({
            TableName: this.table,
            KeyConditionExpression: "pk = :pk",
            ExpressionAttributeValues: { ":pk": pk(id) },
            ConsistentRead: true,
            ...(start ? { ExclusiveStartKey: start } : {}),
          }),
        );
        items.push(...(out.Items ?? []));
        start = out.LastEvaluatedKey;
      } while (start);
    } catch (err) {
      throw translate(err, "get");
    }
    const head = items[0];
    // A record half written (or half expired) is no record.
    if (!head || head.sk !== sk(0) || items.length !== head.parts) return undefined;
    const text = gunzipSync(Buffer.concat(items.map((i) => i.data as Uint8Array))).toString("utf8");
    return { principal: String(head.principal), tool: String(head.tool), format: head.format as CutFormat, text, expires_at: Number(head.expires_at) };
  }
}
