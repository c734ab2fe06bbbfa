// The tool-name miss log: every near-miss or unknown name a caller sent, for the operator.
// DynamoDB layout (same table as sessions, own key prefixes):
//   pk "MISSES", sk <canonical name>      one counter per canonical name (Query lists them all, no Scan),
//                                         at most MAX_SPELLINGS spellings, expiring SUMMARY_TTL_SECS after its last miss
//   pk "MISS#<canonical name>", sk <time>#<random>   one event per miss, expiring after EVENT_TTL_SECS
import { randomBytes } from "node:crypto";
import { ConditionalCheckFailedException } from "@aws-sdk/client-dynamodb";
import { PutCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { ToolbeltError } from "../core/errors.js";
import { canonicalName } from "../../registry/contract/names.js";
import type { Miss, MissOutcome, MissStore, MissSummary } from "../core/ports.js";
import { translateSdkError } from "./sdk-errors.js";

export const MISSES_PK = "MISSES";
export const missEventPk = (name: string) => `MISS#${canonicalName(name)}`;
export const EVENT_TTL_SECS = 30 * 24 * 3600;
/** A name's summary is forgotten this long after its last miss (bogus names do not pile up forever). */
export const SUMMARY_TTL_SECS = EVENT_TTL_SECS;
/** Callers choose the names: keep what is stored bounded (a summary item stays under ~6 KB of spellings). */
export const MAX_NAME = 256;
export const MAX_SPELLINGS = 20;

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
        this.count(canonical, { ...miss, name }, epoch),
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

  /**
   * One more miss on the name's summary, the stored item bounded: at most MAX_SPELLINGS spellings (a
   * string set cannot be capped by ADD alone, so the cap is a condition), and a summary whose last miss
   * is older than SUMMARY_TTL_SECS starts over. Usually one write; a new name or a full set takes two
   * or three, and a concurrent creator one more round.
   */
  private async count(canonical: string, miss: Miss, epoch: number): Promise<void> {
    const last = {
      ":type": "miss_summary",
      ":at": miss.at,
      ":principal": miss.principal,
      ":outcome": miss.outcome,
      ":expires": epoch + SUMMARY_TTL_SECS,
      ...(miss.resolved_to ? { ":resolved": miss.resolved_to } : {}),
    };
    const set = `SET #type = :type, last_at = :at, last_principal = :principal, last_outcome = :outcome, expires_at = :expires${miss.resolved_to ? ", resolved_to = :resolved" : " REMOVE resolved_to"}`;
    const key = { pk: MISSES_PK, sk: canonical };
    const names = { "#count": "count", "#names": "names", "#type": "type" };
    const live = "attribute_exists(pk) AND expires_at > :now";
    const conditional = async (send: () => Promise<unknown>) => {
      try {
        await send();
        return true;
      } catch (err) {
        if (err instanceof ConditionalCheckFailedException) return false;
        throw err;
      }
    };
    for (let round = 0; round < 2; round++) {
      // The usual case: a live summary that has this spelling or room for it.
      const added = await conditional(() =>
        this.client.send(
          new UpdateCommand({
            TableName: this.table,
            Key: key,
            // ADD keeps concurrent writers from losing counts; the spelling set is a DynamoDB string set.
            UpdateExpression: `ADD #count :one, #names :name ${set}`,
            ConditionExpression: `${live} AND (contains(#names, :spelling) OR size(#names) < :max)`,
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: { ...last, ":one": 1, ":name": new Set([miss.name]), ":spelling": miss.name, ":max": MAX_SPELLINGS, ":now": epoch },
          }),
        ),
      );
      if (added) return;
      // A live summary whose spelling set is full: count, keep the set.
      const counted = await conditional(() =>
        this.client.send(
          new UpdateCommand({
            TableName: this.table,
            Key: key,
            UpdateExpression: `ADD #count :one ${set}`,
            ConditionExpression: live,
            ExpressionAttributeNames: { "#count": "count", "#type": "type" },
            ExpressionAttributeValues: { ...last, ":one": 1, ":now": epoch },
          }),
        ),
      );
      if (counted) return;
      // No summary, an expired one, or one written before summaries expired (replaced: it may be unbounded).
      const created = await conditional(() =>
        this.client.send(
          new PutCommand({
            TableName: this.table,
            Item: {
              ...key,
              type: "miss_summary",
              count: 1,
              names: new Set([miss.name]),
              last_at: miss.at,
              last_principal: miss.principal,
              last_outcome: miss.outcome,
              expires_at: epoch + SUMMARY_TTL_SECS,
              ...(miss.resolved_to ? { resolved_to: miss.resolved_to } : {}),
            },
            ConditionExpression: "attribute_not_exists(pk) OR attribute_not_exists(expires_at) OR expires_at <= :now",
            ExpressionAttributeValues: { ":now": epoch },
          }),
        ),
      );
      if (created) return;
      // Another writer created it between our reads: one more round finds it live.
    }
    throw new ToolbeltError("UNAVAILABLE", "miss log summary kept changing concurrently", { operation: "record" });
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
            // Expired summaries are filtered here (TTL deletes them late, dynalite never); older ones without the attribute still show.
            FilterExpression: "attribute_not_exists(expires_at) OR expires_at > :now",
            ExpressionAttributeValues: { ":pk": MISSES_PK, ":now": Math.floor(Date.now() / 1000) },
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
