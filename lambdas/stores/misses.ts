// The tool-name miss log: every near-miss or unknown name a caller sent, for the operator.
// DynamoDB layout (same table as sessions, own key prefixes):
//   pk "MISSES", sk <canonical name>      one counter per canonical name (Query lists them all, no Scan)
//   pk "MISS#<canonical name>", sk <time>#<random>   one event per miss, expiring after EVENT_TTL_SECS
import { randomBytes } from "node:crypto";
import { PutCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { canonicalName } from "../../registry/contract/names.js";
import type { Miss, MissOutcome, MissStore, MissSummary } from "../core/ports.js";
import { translateSdkError } from "./sdk-errors.js";

export const MISSES_PK = "MISSES";
export const missEventPk = (name: string) => `MISS#${canonicalName(name)}`;
export const EVENT_TTL_SECS = 30 * 24 * 3600;
/** Callers choose the names: keep what is stored bounded. */
const MAX_NAME = 256;
const MAX_SPELLINGS = 20;

// Throttling is UNAVAILABLE (503, retry) here too, not a 500.
const translate = (err: unknown, op: string) => translateSdkError(err, "miss log", op);

export function summaryFromItem(item: Record<string, unknown>): MissSummary {
  const names = item.names instanceof Set ? [...(item.names as Set<string>)] : Array.isArray(item.names) ? (item.names as string[]) : [];
  return {
    canonical: String(item.sk),
    count: Number(item.count ?? 0),
    names: names.sort().slice(0, MAX_SPELLINGS),
    last_at: String(item.last_at ?? ""),
    last_principal: String(item.last_principal ?? ""),
    last_outcome: String(item.last_outcome ?? "not_found") as MissOutcome,
    ...(typeof item.resolved_to === "string" ? { resolved_to: item.resolved_to } : {}),
  };
}

export const byCount = (a: MissSummary, b: MissSummary) => b.count - a.count || (a.canonical < b.canonical ? -1 : a.canonical > b.canonical ? 1 : 0);

export class DynamoMissStore implements MissStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async record(miss: Miss): Promise<void> {
    const name = miss.name.slice(0, MAX_NAME);
    const canonical = canonicalName(name);
    const epoch = Math.floor(Date.parse(miss.at) / 1000);
    try {
      await Promise.all([
        this.client.send(
          new UpdateCommand({
            TableName: this.table,
            Key: { pk: MISSES_PK, sk: canonical },
            // ADD keeps concurrent writers from losing counts; the spelling set is a DynamoDB string set.
            UpdateExpression:
              "ADD #count :one, #names :name SET #type = :type, last_at = :at, last_principal = :principal, last_outcome = :outcome" +
              (miss.resolved_to ? ", resolved_to = :resolved" : " REMOVE resolved_to"),
            ExpressionAttributeNames: { "#count": "count", "#names": "names", "#type": "type" },
            ExpressionAttributeValues: {
              ":one": 1,
              ":name": new Set([name]),
              ":type": "miss_summary",
              ":at": miss.at,
              ":principal": miss.principal,
              ":outcome": miss.outcome,
              ...(miss.resolved_to ? { ":resolved": miss.resolved_to } : {}),
            },
          }),
        ),
        this.client.send(
          new PutCommand({
            TableName: this.table,
            Item: {
              pk: `MISS#${canonical}`,
              sk: `${miss.at}#${randomBytes(4).toString("hex")}`,
              type: "miss",
              ...miss,
              name,
              expires_at: epoch + EVENT_TTL_SECS,
            },
          }),
        ),
      ]);
    } catch (err) {
      throw translate(err, "record");
    }
  }

  async top(limit: number): Promise<MissSummary[]> {
    const all: MissSummary[] = [];
    try {
      let start: Record<string, unknown> | undefined;
      do {
        const out = await this.client.send(
          new QueryCommand({
            TableName: this.table,
            KeyConditionExpression: "pk = :pk",
            ExpressionAttributeValues: { ":pk": MISSES_PK },
            ...(start ? { ExclusiveStartKey: start } : {}),
          }),
        );
        for (const item of out.Items ?? []) all.push(summaryFromItem(item));
        start = out.LastEvaluatedKey;
      } while (start);
    } catch (err) {
      throw translate(err, "top");
    }
    return all.sort(byCount).slice(0, limit);
  }

  async recent(name: string, limit: number): Promise<Miss[]> {
    try {
      const out = await this.client.send(
        new QueryCommand({
          TableName: this.table,
          KeyConditionExpression: "pk = :pk",
          // TTL is not enforced by every store: expired events are filtered here.
          FilterExpression: "expires_at > :now",
          ExpressionAttributeValues: { ":pk": missEventPk(name), ":now": Math.floor(Date.now() / 1000) },
          ScanIndexForward: false,
          Limit: Math.max(1, limit) * 2,
        }),
      );
      return (out.Items ?? []).slice(0, limit).map((i) => ({
        name: String(i.name),
        principal: String(i.principal),
        at: String(i.at),
        outcome: String(i.outcome) as MissOutcome,
        ...(typeof i.resolved_to === "string" ? { resolved_to: i.resolved_to } : {}),
      }));
    } catch (err) {
      throw translate(err, "recent");
    }
  }
}
