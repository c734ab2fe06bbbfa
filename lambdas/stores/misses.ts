// The miss logs, for the operator: tool names callers sent that were not a tool they may call
// (call), and find queries no tool answered well (find). Same table as sessions, own partitions:
//   pk <summaries>, sk <key>                one counter per key (name folded, or query normalised), at most
//                                           MAX_SPELLINGS spellings, expiring SUMMARY_TTL_SECS after its last miss
//   pk <rank>, sk <inverted count>#<key>    a copy of the summary at each count: Query reads the top by count
//                                           without reading every summary (superseded copies are deleted)
//   pk <events><key>, sk <time>#<random>    one event per miss, expiring after EVENT_TTL_SECS
//   pk <summaries>METER, sk <window>        bytes written in one BUDGET_WINDOW_SECS window, against the budget
// Partitions: call "MISSES", "MISSRANK", "MISS#"; find "FINDMISSES", "FINDMISSRANK", "FINDMISS#".
import { randomBytes } from "node:crypto";
import { ConditionalCheckFailedException } from "@aws-sdk/client-dynamodb";
import { DeleteCommand, PutCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { ToolbeltError } from "../core/errors.js";
import { queryKey } from "../core/misses.js";
import { canonicalName } from "../../registry/contract/names.js";
import type { Miss, MissOutcome, MissStore, MissSummary } from "../core/ports.js";
import { translateSdkError } from "./sdk-errors.js";

/** Where one miss log lives and how it folds what callers sent into a key. */
export type MissLog = { summaries: string; rank: string; events: string; key: (name: string) => string; label: string };
export const CALL_MISSES: MissLog = { summaries: "MISSES", rank: "MISSRANK", events: "MISS#", key: canonicalName, label: "miss log" };
export const FIND_MISSES: MissLog = { summaries: "FINDMISSES", rank: "FINDMISSRANK", events: "FINDMISS#", key: queryKey, label: "find-miss log" };

export const MISSES_PK = CALL_MISSES.summaries;
export const EVENT_TTL_SECS = 30 * 24 * 3600;
/** A name's summary is forgotten this long after its last miss (bogus names do not pile up forever). */
export const SUMMARY_TTL_SECS = EVENT_TTL_SECS;
/** Callers choose the names: keep what is stored bounded (a summary item stays under ~6 KB of spellings). */
export const MAX_NAME = 256;
export const MAX_SPELLINGS = 20;
/** A key's bound in UTF-8 bytes: DynamoDB's sort keys hold 1,024, and the rank key adds 13 to it. */
export const MAX_KEY_BYTES = 512;
/** top(limit) reads at most this many rank entries beyond 2 × limit (stale copies and expired ones are skipped). */
export const TOP_READ_SLACK = 100;
/** Bytes of new items a miss log may write per window (maxBytes): any caller can send distinct names or queries. */
export const DEFAULT_MISS_LOG_MAX_BYTES = 8 * 1024 * 1024;
/**
 * The budget's window. Every write is charged in the window it happens, and an item expires at most this
 * long after its last write: what is stored was written in this window or the last, under twice the budget
 * (plus TTL's deletion lag).
 */
export const BUDGET_WINDOW_SECS = SUMMARY_TTL_SECS;
/** Once the budget is found spent, misses are dropped without asking the meter for this long. */
export const BUDGET_RECHECK_SECS = 60;
const RANK_DIGITS = 12;
const RANK_MAX = 10 ** RANK_DIGITS - 1;

/** `s` cut to at most `max` UTF-8 bytes, on a code point. */
export function clipUtf8(s: string, max: number): string {
  if (Buffer.byteLength(s) <= max) return s;
  let bytes = 0;
  let end = 0;
  for (const ch of s) {
    bytes += Buffer.byteLength(ch);
    if (bytes > max) break;
    end += ch.length;
  }
  return s.slice(0, end);
}

/** An item's size as DynamoDB counts it, rounded up: attribute names plus values (numbers at their 21-byte most). */
export function itemBytes(item: Record<string, unknown>): number {
  const size = (v: unknown): number =>
    typeof v === "string"
      ? Buffer.byteLength(v)
      : typeof v === "number"
        ? 21
        : typeof v === "boolean" || v === null || v === undefined
          ? 1
          : v instanceof Set
            ? [...v].reduce((n: number, m) => n + size(m), 0)
            : v instanceof Uint8Array
              ? v.byteLength
              : Buffer.byteLength(JSON.stringify(v));
  return Object.entries(item).reduce((n, [k, v]) => n + Buffer.byteLength(k) + size(v), 0);
}

/** Highest count first, ties by key: the rank partition's sort order. */
const rankKey = (count: number, key: string) => `${String(RANK_MAX - Math.min(Math.max(count, 0), RANK_MAX)).padStart(RANK_DIGITS, "0")}#${key}`;

export function summaryFromItem(item: Record<string, unknown>): MissSummary {
  const names = item.names instanceof Set ? [...(item.names as Set<string>)] : Array.isArray(item.names) ? (item.names as string[]) : [];
  return {
    canonical: String(item.key ?? item.sk),
    count: Number(item.count ?? 0),
    names: names.sort().slice(0, MAX_SPELLINGS),
    last_at: String(item.last_at ?? ""),
    last_principal: String(item.last_principal ?? ""),
    last_outcome: String(item.last_outcome ?? "not_found") as MissOutcome,
    ...(typeof item.resolved_to === "string" ? { resolved_to: item.resolved_to } : {}),
    ...(typeof item.best_tool === "string" ? { best_tool: item.best_tool } : {}),
    ...(typeof item.best_score === "number" ? { best_score: item.best_score } : {}),
  };
}

export const byCount = (a: MissSummary, b: MissSummary) => b.count - a.count || (a.canonical < b.canonical ? -1 : a.canonical > b.canonical ? 1 : 0);

/** The optional fields of the last miss a summary keeps: set when the miss has them, removed when not. */
const LAST_OPTIONAL = ["resolved_to", "best_tool", "best_score"] as const;

export class DynamoMissStore implements MissStore {
  private readonly translate: (err: unknown, op: string) => ToolbeltError;

  private readonly maxBytes: number;
  /** Misses dropped by this instance because the window's budget was spent. */
  overBudget = 0;
  /** Epoch seconds until which the budget is known spent (no meter write per miss meanwhile). */
  private spentUntil = 0;

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly log: MissLog = CALL_MISSES,
    options: { maxBytes?: number } = {},
  ) {
    this.maxBytes = options.maxBytes ?? DEFAULT_MISS_LOG_MAX_BYTES;
    // Throttling is UNAVAILABLE (503, retry) here too, not a 500.
    this.translate = (err, op) => translateSdkError(err, log.label, op);
  }

  /** The key a name (or query) is counted under, bounded for DynamoDB. */
  keyOf(name: string): string {
    return clipUtf8(this.log.key(name.slice(0, MAX_NAME)), MAX_KEY_BYTES);
  }

  /**
   * `times` misses of one key in one write (a burst folded by the caller): the count grows by `times`, one
   * event is kept. Once this window's budget of bytes is spent, misses are dropped (counted in `overBudget`).
   */
  async record(miss: Miss, times = 1): Promise<void> {
    const n = Math.max(1, Math.floor(times));
    // Lone surrogates are not text DynamoDB stores.
    const name = miss.name.slice(0, MAX_NAME).replace(/\p{Cs}/gu, "\uFFFD");
    const key = this.keyOf(name);
    const epoch = Math.floor(Date.parse(miss.at) / 1000);
    const event = {
      pk: this.log.events + key,
      sk: `${miss.at}#${randomBytes(4).toString("hex")}`,
      type: "miss",
      ...miss,
      name,
      expires_at: epoch + EVENT_TTL_SECS,
    };
    try {
      if (epoch < this.spentUntil || !(await this.charge(epoch, itemBytes(event), true))) {
        // Spent: a flood costs no write per miss while it lasts; the meter is read again a minute on (a new window may have begun).
        if (epoch >= this.spentUntil) this.spentUntil = epoch + BUDGET_RECHECK_SECS;
        this.overBudget++;
        return;
      }
      await Promise.all([
        // The summary and its rank copy are charged as rewritten: an item is charged in the window of its last write.
        this.count(key, { ...miss, name }, epoch, n).then((summary) =>
          Promise.all([this.rank(key, summary, n), this.charge(epoch, 2 * itemBytes(summary) + Buffer.byteLength(key), false)]),
        ),
        this.client.send(new PutCommand({ TableName: this.table, Item: event })),
      ]);
    } catch (err) {
      throw this.translate(err, "record");
    }
  }

  /**
   * Add `bytes` to the budget's meter for the window of `epoch`; `checked`: only while the meter is under
   * maxBytes (false when spent). The summary and its rank copy are charged after the fact, unchecked:
   * concurrent writers overshoot the budget by at most one record each.
   */
  private async charge(epoch: number, bytes: number, checked: boolean): Promise<boolean> {
    const window = Math.floor(epoch / BUDGET_WINDOW_SECS);
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: `${this.log.summaries}METER`, sk: String(window) },
          UpdateExpression: "ADD #bytes :bytes SET expires_at = :expires",
          ...(checked ? { ConditionExpression: "attribute_not_exists(#bytes) OR #bytes < :max" } : {}),
          ExpressionAttributeNames: { "#bytes": "bytes" },
          ExpressionAttributeValues: { ":bytes": bytes, ":expires": (window + 2) * BUDGET_WINDOW_SECS, ...(checked ? { ":max": this.maxBytes } : {}) },
        }),
      );
      return true;
    } catch (err) {
      if (err instanceof ConditionalCheckFailedException) return false;
      throw err;
    }
  }

  /**
   * One more miss on the key's summary, the stored item bounded: at most MAX_SPELLINGS spellings (a
   * string set cannot be capped by ADD alone, so the cap is a condition), and a summary whose last miss
   * is older than SUMMARY_TTL_SECS starts over. Usually one write; a new name or a full set takes two
   * or three, and a concurrent creator one more round. Returns the summary as written.
   */
  private async count(key: string, miss: Miss, epoch: number, n: number): Promise<Record<string, unknown>> {
    const optional = LAST_OPTIONAL.filter((f) => miss[f] !== undefined);
    const removed = LAST_OPTIONAL.filter((f) => miss[f] === undefined);
    const last: Record<string, unknown> = {
      ":type": "miss_summary",
      ":at": miss.at,
      ":principal": miss.principal,
      ":outcome": miss.outcome,
      ":expires": epoch + SUMMARY_TTL_SECS,
      ...Object.fromEntries(optional.map((f) => [`:${f}`, miss[f]])),
    };
    const set = `SET #type = :type, last_at = :at, last_principal = :principal, last_outcome = :outcome, expires_at = :expires${optional.map((f) => `, ${f} = :${f}`).join("")}${removed.length ? ` REMOVE ${removed.join(", ")}` : ""}`;
    const itemKey = { pk: this.log.summaries, sk: key };
    const names = { "#count": "count", "#names": "names", "#type": "type" };
    const live = "attribute_exists(pk) AND expires_at > :now";
    const conditional = async (send: () => Promise<{ Attributes?: Record<string, unknown> }>) => {
      try {
        return (await send()).Attributes ?? {};
      } catch (err) {
        if (err instanceof ConditionalCheckFailedException) return undefined;
        throw err;
      }
    };
    for (let round = 0; round < 2; round++) {
      // The usual case: a live summary that has this spelling or room for it.
      const added = await conditional(() =>
        this.client.send(
          new UpdateCommand({
            TableName: this.table,
            Key: itemKey,
            // ADD keeps concurrent writers from losing counts; the spelling set is a DynamoDB string set.
            UpdateExpression: `ADD #count :n, #names :name ${set}`,
            ConditionExpression: `${live} AND (contains(#names, :spelling) OR size(#names) < :max)`,
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: { ...last, ":n": n, ":name": new Set([miss.name]), ":spelling": miss.name, ":max": MAX_SPELLINGS, ":now": epoch },
            ReturnValues: "ALL_NEW",
          }),
        ),
      );
      if (added) return added;
      // A live summary whose spelling set is full: count, keep the set. (Conditioned on the full set: the
      // first update may have failed only because the summary did not exist yet, then this one would drop a spelling.)
      const counted = await conditional(() =>
        this.client.send(
          new UpdateCommand({
            TableName: this.table,
            Key: itemKey,
            UpdateExpression: `ADD #count :n ${set}`,
            ConditionExpression: `${live} AND size(#names) >= :max`,
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: { ...last, ":n": n, ":now": epoch, ":max": MAX_SPELLINGS },
            ReturnValues: "ALL_NEW",
          }),
        ),
      );
      if (counted) return counted;
      // No summary, an expired one, or one written before summaries expired (replaced: it may be unbounded).
      const item = {
        ...itemKey,
        type: "miss_summary",
        count: n,
        names: new Set([miss.name]),
        last_at: miss.at,
        last_principal: miss.principal,
        last_outcome: miss.outcome,
        expires_at: epoch + SUMMARY_TTL_SECS,
        ...Object.fromEntries(optional.map((f) => [f, miss[f]])),
      };
      const created = await conditional(() =>
        this.client.send(
          new PutCommand({
            TableName: this.table,
            Item: item,
            ConditionExpression: "attribute_not_exists(pk) OR attribute_not_exists(expires_at) OR expires_at <= :now",
            ExpressionAttributeValues: { ":now": epoch },
          }),
        ),
      );
      if (created) return item;
      // Another writer created it between our reads: one more round finds it live.
    }
    throw new ToolbeltError("UNAVAILABLE", `${this.log.label} summary kept changing concurrently`, { operation: "record" });
  }

  /**
   * The summary's copy in the rank partition at its new count, and the copy at the count before
   * (n fewer) deleted. Two concurrent writers may leave a superseded copy (its delete ran before its put):
   * top() skips it, and it expires no later than the summary it copies.
   */
  private async rank(key: string, summary: Record<string, unknown>, n: number): Promise<void> {
    const count = Number(summary.count ?? n);
    const { pk: _pk, sk: _sk, ...fields } = summary;
    await Promise.all([
      this.client.send(new PutCommand({ TableName: this.table, Item: { ...fields, pk: this.log.rank, sk: rankKey(count, key), key, type: "miss_rank" } })),
      count > n ? this.client.send(new DeleteCommand({ TableName: this.table, Key: { pk: this.log.rank, sk: rankKey(count - n, key) } })) : undefined,
    ]);
  }

  /**
   * The `limit` keys with the most misses among live summaries, most first (ties by key), read from the
   * rank partition in count order: at most 2 × limit + TOP_READ_SLACK entries, whatever the number of
   * keys. Superseded and expired copies are skipped; should more than limit + TOP_READ_SLACK of them sit
   * above the last key returned (TTL deletes expired items up to days late), fewer than `limit` come back.
   * A summary written before ranks existed shows again from its next miss.
   */
  async top(limit: number): Promise<MissSummary[]> {
    const now = Math.floor(Date.now() / 1000);
    const budget = 2 * limit + TOP_READ_SLACK;
    const found = new Map<string, MissSummary>();
    let read = 0;
    try {
      let start: Record<string, unknown> | undefined;
      do {
        const out = await this.client.send(
          new QueryCommand({
            TableName: this.table,
            KeyConditionExpression: "pk = :pk",
            ExpressionAttributeValues: { ":pk": this.log.rank },
            Limit: budget - read,
            ...(start ? { ExclusiveStartKey: start } : {}),
          }),
        );
        for (const item of out.Items ?? []) {
          read++;
          // TTL deletes expired items late (dynalite never): filtered here, in code, so Limit counts what was read.
          if (Number(item.expires_at ?? 0) <= now || found.has(String(item.key))) continue;
          found.set(String(item.key), summaryFromItem(item));
          if (found.size === limit) break;
        }
        start = out.LastEvaluatedKey;
      } while (start && found.size < limit && read < budget);
    } catch (err) {
      throw this.translate(err, "top");
    }
    return [...found.values()];
  }

  async recent(name: string, limit: number): Promise<Miss[]> {
    try {
      const out = await this.client.send(
        new QueryCommand({
          TableName: this.table,
          KeyConditionExpression: "pk = :pk",
          // TTL is not enforced by every store: expired events are filtered here.
          FilterExpression: "expires_at > :now",
          ExpressionAttributeValues: { ":pk": this.log.events + this.keyOf(name), ":now": Math.floor(Date.now() / 1000) },
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
        ...(typeof i.best_tool === "string" ? { best_tool: i.best_tool } : {}),
        ...(typeof i.best_score === "number" ? { best_score: i.best_score } : {}),
      }));
    } catch (err) {
      throw this.translate(err, "recent");
    }
  }
}

/** A call miss's event partition (tests and tools that read the table). */
export const missEventPk = (name: string) => CALL_MISSES.events + clipUtf8(canonicalName(name.slice(0, MAX_NAME)), MAX_KEY_BYTES);
