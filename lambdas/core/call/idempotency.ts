// Idempotent calls: the first call with a key claims it (a conditional write), runs, and stores its
// answer; a repeat within the window gets that answer without the tool running again. A failed call
// releases its key, so a retry runs (only a result is remembered, as in Powertools idempotency).
import { randomUUID } from "node:crypto";
import { canonicalName } from "../../../registry/contract/names.js";
import { ToolbeltError } from "../errors.js";
import { digestOf } from "./audit.js";
import type { CallResponse } from "./types.js";

/** A key's stored state, as the store reads it back. */
export type IdempotencyRecord = {
  /** Digest of what the first call asked for (tool, arguments, session). */
  fingerprint: string;
  status: "in_progress" | "done" | "released";
  /** The first call's answer (done), unless it was too large to keep. */
  response?: CallResponse;
  /** Bytes of the answer that was too large to keep. */
  response_bytes?: number;
  /** Epoch ms after which an in-progress claim is abandoned (its holder died) and may be taken over. */
  locked_until: number;
  /** Epoch seconds: the end of the window (the table's TTL attribute). */
  expires_at: number;
};

export type IdempotencyClaim = { scope: string; fingerprint: string; owner: string; locked_until: number; expires_at: number };

/** Idempotency persistence: the DynamoDB table on Lambda and `npm start`, an in-memory fake in unit tests. */
export interface IdempotencyStore {
  /**
   * Claim `scope` unless a live record holds it: one that has not expired, is not released and, if in
   * progress, whose lock has not passed (`now` in epoch ms). Returns the record in the way, if any.
   */
  claim(claim: IdempotencyClaim, now: number): Promise<{ claimed: true } | { claimed: false; existing?: IdempotencyRecord }>;
  /** Store the answer, if `owner` still holds the claim. */
  complete(scope: string, owner: string, response: CallResponse): Promise<void>;
  /** Give the key back after a failure, if `owner` still holds the claim. */
  release(scope: string, owner: string): Promise<void>;
}

export type IdempotencyOptions = {
  store: IdempotencyStore;
  windowSecs: number;
  /** A store write that failed after the tool ran: the caller still gets the answer (the tool ran once). */
  onStoreError?: (what: string, error: unknown) => void;
};

/** Whether a stored record still holds its key at `now` (epoch ms): stores claim over any record that does not. */
export function holdsKey(r: Pick<IdempotencyRecord, "status" | "locked_until" | "expires_at">, now: number): boolean {
  if (r.expires_at * 1000 <= now || r.status === "released") return false;
  return r.status === "done" || r.locked_until > now;
}

/** Time an in-progress claim is held beyond the tool's own timeout before another call may take it over. */
export const LOCK_MARGIN_MS = 10_000;
/** Bounded: a claim fails only when a record is in the way, and a record read back as free means it just freed. */
const MAX_CLAIM_ATTEMPTS = 3;

/** What a call asks for: a repeat with anything else is IDEMPOTENCY_KEY_REUSED. */
export type IdempotentRequest = {
  /** The tool, ideally the catalog name it resolved to: then a retry naming it another way (a typo, no family) is the same call. */
  tool: string;
  args: unknown;
  session: string | null;
};

/** The digest a key's first call is remembered by: the tool by its canonical name (case and separators are no other tool). */
export const requestFingerprint = (r: IdempotentRequest): string => digestOf({ tool: canonicalName(r.tool), args: r.args, session: r.session });

export type IdempotentRun = {
  principal: string;
  key: string;
  request: IdempotentRequest;
  timeoutMs: number;
  now: number;
};

/** Run `execute` once per key and principal within the window; `replayed` says the answer is the first call's. */
export async function idempotent(
  options: IdempotencyOptions,
  run: IdempotentRun,
  execute: () => Promise<CallResponse>,
): Promise<{ response: CallResponse; replayed: boolean }> {
  const { store } = options;
  // The key is the caller's text: only its digest, scoped to the principal, reaches the table.
  const scope = digestOf([run.principal, run.key]);
  const fingerprint = requestFingerprint(run.request);
  const owner = randomUUID();
  const claim: IdempotencyClaim = {
    scope,
    fingerprint,
    owner,
    locked_until: run.now + run.timeoutMs + LOCK_MARGIN_MS,
    expires_at: Math.floor(run.now / 1000) + options.windowSecs,
  };
  for (let attempt = 0; attempt < MAX_CLAIM_ATTEMPTS; attempt++) {
    const got = await store.claim(claim, run.now);
    if (got.claimed) {
      let response: CallResponse;
      try {
        response = await execute();
      } catch (e) {
        await store.release(scope, owner).catch((err: unknown) => options.onStoreError?.("release", err));
        throw e;
      }
      await store.complete(scope, owner, response).catch((err: unknown) => options.onStoreError?.("complete", err));
      return { response, replayed: false };
    }
    const existing = got.existing;
    if (!existing) continue;
    if (existing.fingerprint !== fingerprint) {
      throw new ToolbeltError(
        "IDEMPOTENCY_KEY_REUSED",
        "this Idempotency-Key was used for a call with other arguments (or another tool or session); send a new key for a new call",
        {},
      );
    }
    if (existing.status === "in_progress") {
      throw new ToolbeltError("IDEMPOTENCY_IN_PROGRESS", "the first call with this Idempotency-Key is still running; retry once it has answered", {
        retry_after_ms: Math.max(0, existing.locked_until - run.now),
      });
    }
    if (existing.status === "done") {
      if (existing.response) return { response: existing.response, replayed: true };
      throw new ToolbeltError(
        "CONFLICT",
        `the first call with this Idempotency-Key succeeded, but its result (${existing.response_bytes ?? "too many"} bytes) was too large to keep; the tool was not run again`,
        { result_bytes: existing.response_bytes },
      );
    }
  }
  throw new ToolbeltError("UNAVAILABLE", "could not claim the Idempotency-Key: it changed hands repeatedly; retry", {});
}
