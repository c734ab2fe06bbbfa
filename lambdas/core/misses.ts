// Find misses: queries no tool answered well (verdict none, or a best tool below the default
// min_score), recorded for the operator without making the find wait or fail.
import type { FindRequest, FindResult } from "../contract/find.js";
import type { Caller, GrantFilter, Miss, MissOutcome, MissRecorder } from "./ports.js";

/** Longest query kept in the find-miss log, in characters (callers may send 1,000). */
export const MAX_QUERY_CHARS = 200;
/** Most distinct queries being recorded at once; a miss of another query beyond it is dropped (and counted in the log), never queued. */
export const MAX_FIND_MISSES_IN_FLIGHT = 32;
/** Most misses one principal may have recorded per minute (per process); beyond it they are dropped and counted. */
export const FIND_MISSES_PER_MINUTE = 30;

// Control characters (C0, DEL, C1) would garble an operator's terminal; format characters (bidi
// overrides, zero-width) can make one query look like another.
const CONTROL = /\p{Cc}+/gu;
const FORMAT = /\p{Cf}+/gu;
// Lone surrogates (JSON can carry them) are not text DynamoDB can store.
const LONE_SURROGATE = /\p{Cs}/gu;

/** A caller's query as the log keeps it: control characters as spaces, format characters dropped, valid UTF-16, trimmed, at most MAX_QUERY_CHARS. */
export function cleanQuery(query: string): string {
  const clean = query.replace(LONE_SURROGATE, "\uFFFD").replace(CONTROL, " ").replace(FORMAT, "").trim();
  if (clean.length <= MAX_QUERY_CHARS) return clean;
  // Cut on a code point, not inside a surrogate pair.
  const cut = clean.slice(0, MAX_QUERY_CHARS);
  return (/[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut).trimEnd();
}

/** The key find misses are counted under: the cleaned query, lowercase, whitespace collapsed. */
export function queryKey(query: string): string {
  // Lowercased before the cut: a lowercase form can be longer ("İ" is two code units).
  return cleanQuery(query.toLowerCase()).replace(/\s+/g, " ");
}

/** Whether a find answer is a miss: none, or a keyword ranking whose best tool scored below `floor` (the caller lowered min_score). */
export function findMissOutcome(result: FindResult, floor: number): Extract<MissOutcome, "none" | "low_score"> | undefined {
  if (result.verdict === "none") return "none";
  const best = result.tools[0];
  return result.mode === "keyword" && best && best.score < floor ? "low_score" : undefined;
}

export type FindMissLog = {
  /** Call after answering a find: records it in the background if it was a miss; never throws, never waits. */
  observe(request: FindRequest, result: FindResult, caller: Caller): void;
  /** Resolves once the misses being recorded are written (tests, shutdown). */
  idle(): Promise<void>;
};

export type FindMissLogPorts = {
  store: MissRecorder;
  /** Asked once more for a miss answered none, for the best tool below min_score (the answer left it out). */
  find: (request: FindRequest, granted?: GrantFilter) => Promise<FindResult>;
  /** The default min_score: a best tool below it is a miss even when the caller asked for less. */
  floor: number;
  log: (level: "warn" | "error", message: string, fields: Record<string, unknown>) => void;
  now?: () => Date;
  maxInFlight?: number;
  /** Misses recorded per principal per minute (FIND_MISSES_PER_MINUTE): any caller can send distinct queries, each one stored. */
  perMinute?: number;
};

/** One miss waiting to be written, with how many misses of the same key it stands for. */
type Pending = { request: FindRequest; result: FindResult; outcome: MissOutcome; caller: Caller; at: string; times: number };

export function createFindMissLog(ports: FindMissLogPorts): FindMissLog {
  const now = ports.now ?? (() => new Date());
  const max = ports.maxInFlight ?? MAX_FIND_MISSES_IN_FLIGHT;
  /** Keys being written, each with the write loop's promise. */
  const writing = new Map<string, Promise<void>>();
  /** Misses of a key that arrived while it was being written: folded into its next write (latest fields, all counted). */
  const waiting = new Map<string, Pending>();
  let dropped = 0;
  const perMinute = ports.perMinute ?? FIND_MISSES_PER_MINUTE;
  /** Misses taken this minute by principal: cleared when the minute turns, so it holds at most the principals of one minute. */
  let minute = -1;
  const taken = new Map<string, number>();
  let limited = 0;
  /** Whether `principal` may have one more miss recorded in the minute of `at`. */
  const allowed = (principal: string, at: Date): boolean => {
    const m = Math.floor(at.getTime() / 60_000);
    if (m !== minute) {
      minute = m;
      taken.clear();
    }
    const n = taken.get(principal) ?? 0;
    if (n >= perMinute) {
      if (Number.isInteger(Math.log10(++limited)))
        ports.log("warn", "find-miss log: a principal's misses over the per-minute limit dropped", { limited, principal, per_minute: perMinute });
      return false;
    }
    taken.set(principal, n + 1);
    return true;
  };

  const best = async ({ request, result, outcome, caller }: Pending): Promise<Pick<Miss, "best_tool" | "best_score">> => {
    const top =
      outcome === "none"
        ? (
            await ports.find(
              { query: request.query, ...(request.family ? { family: request.family } : {}), min_score: 0, limit: 1, schemas: "none", mode: "keyword" },
              caller.granted,
            )
          ).tools[0]
        : result.tools[0];
    return top ? { best_tool: top.name, best_score: top.score } : {};
  };

  const write = async (p: Pending): Promise<void> => {
    const name = cleanQuery(p.request.query);
    try {
      await ports.store.record({ name, principal: p.caller.principal, at: p.at, outcome: p.outcome, ...(await best(p)) }, p.times);
    } catch (e) {
      ports.log("error", "could not record a find miss", { query: name, times: p.times, error: e });
    }
  };

  // One write at a time per key: a burst of one query costs one write (and one look-up for its best tool) per round trip, not one per miss.
  const drain = async (key: string, first: Pending): Promise<void> => {
    // After the answer is on its way: the look-up for the best tool is CPU on the same event loop.
    await new Promise((r) => setImmediate(r));
    let next: Pending | undefined = first;
    while (next) {
      await write(next);
      next = waiting.get(key);
      waiting.delete(key);
    }
    writing.delete(key);
  };

  return {
    observe(request, result, caller) {
      const outcome = findMissOutcome(result, ports.floor);
      const key = outcome ? queryKey(request.query) : "";
      if (!outcome || !key) return;
      const at = now();
      const miss: Pending = { request, result, outcome, caller, at: at.toISOString(), times: 1 };
      const folded = waiting.get(key);
      // A miss folded into a write already waiting adds no stored item: only the count, not the limit.
      if (writing.has(key) && folded) {
        waiting.set(key, { ...miss, times: folded.times + 1 });
        return;
      }
      if (!allowed(caller.principal, at)) return;
      if (writing.has(key)) {
        waiting.set(key, miss);
        return;
      }
      if (writing.size >= max) {
        // Logged at 1, 10, 100, ... drops: a flood of misses must not become a flood of log lines.
        if (Number.isInteger(Math.log10(++dropped))) ports.log("warn", "find-miss log busy: misses dropped", { dropped, in_flight: writing.size });
        return;
      }
      writing.set(key, drain(key, miss));
    },
    async idle() {
      while (writing.size) await Promise.all(writing.values());
    },
  };
}
