// Bounded results: a tool's answer over its token budget is cut into parts, the first answered now and
// the rest kept (bound to the principal and the tool, with an expiry) behind a continuation token that
// every door accepts. The parts are slices of one text (the string result, or the JSON of any other
// result), so joining them gives it back byte for byte.
import { randomBytes } from "node:crypto";
import { ToolbeltError } from "../errors.js";

// The defaults live with the call contract, so config.ts reads them without pulling the call path into the api bundle.
export { DEFAULT_CONTINUATION_TTL_SECS, DEFAULT_RESULT_BUDGET_TOKENS } from "../../contract/call.js";
import { DEFAULT_CONTINUATION_TTL_SECS, DEFAULT_RESULT_BUDGET_TOKENS } from "../../contract/call.js";

/** Counts o200k_base tokens of a text; an estimate is fine as long as it is not under. */
export type TokenCounter = (text: string) => number;

/**
 * The count where no tokenizer is loaded (it costs ~250 ms of cold start and 2.4 MB of bundle): bytes / 2.
 * Measured with o200k_base: JSON rows 2.8 bytes a token, CJK prose 4.1, English prose ~4.5, random base64
 * 1.5 (the one case where this is under, by a third). A byte is never less than a token, so a text whose
 * bytes fit the budget is never counted at all.
 */
export const estimateTokens: TokenCounter = (text) => Math.ceil(Buffer.byteLength(text, "utf8") / 2);

export type CutFormat = "json" | "text";

/** What the answer says about the part it carries (REST `continuation`, MCP `_meta`). */
export type PartInfo = {
  /** Join the parts' `result` strings: `text` is the tool's string result, `json` the JSON text of its result. */
  format: CutFormat;
  /** Characters (UTF-16 code units) of the whole text this part starts and ends at. */
  from: number;
  to: number;
  total_chars: number;
  /** Send it as `continuation` (with the same tool) for the next part; absent on the last part. */
  token?: string;
};

/** The rest of a cut answer as the store keeps it. */
export type StoredResult = { principal: string; tool: string; format: CutFormat; text: string; expires_at: number };

export type ContinuationStore = {
  put(id: string, record: StoredResult): Promise<void>;
  /** The record as stored (expired or not: the caller checks), or undefined. */
  get(id: string): Promise<StoredResult | undefined>;
};

export type ResultBudgetOptions = {
  store: ContinuationStore;
  /** Seconds a continuation stays usable (TOOLBELT_CONTINUATION_TTL_SECS). */
  ttlSecs?: number;
  /** Tokens of an answer when the tool sets none (TOOLBELT_RESULT_BUDGET_TOKENS). */
  defaultBudget?: number;
  count?: TokenCounter;
};

/** A part of at most `budget` tokens starting at `from`: its end offset (never inside a surrogate pair). */
export function partEnd(text: string, from: number, budget: number, count: TokenCounter): number {
  const rest = text.length - from;
  // A byte is at least a token's worth of text, and a UTF-16 unit at most 3 bytes: this many units always fit.
  const floor = Math.max(1, Math.floor(budget / 3));
  let len = Math.min(rest, budget * 4);
  for (let i = 0; i < 8; i++) {
    const tokens = count(text.slice(from, from + len));
    if (tokens <= budget) break;
    // Shrink in proportion, a little more, until it fits (one or two rounds for ordinary text).
    len = Math.max(floor, Math.min(len - 1, Math.floor((len * budget * 0.97) / tokens)));
    if (len === floor) break;
  }
  let end = from + len;
  const code = text.charCodeAt(end - 1);
  if (end < text.length && code >= 0xd800 && code <= 0xdbff) end -= 1;
  return Math.max(end, from + 1);
}

const TOKEN_RE = /^([A-Za-z0-9_-]{24})\.(\d{1,10})$/;

const notFound = () =>
  new ToolbeltError("NOT_FOUND", "no such continuation: it expired, was for another tool or caller, or was never issued; call the tool again", {
    field: "continuation",
  });

export type Budgeted = { result: unknown; continuation?: PartInfo };

export type ResultBudget = {
  /** The answer as is when it fits the budget, else its first part (the rest stored). */
  cut(result: unknown, tool: string, budget: number | undefined, principal: string, now: Date): Promise<Budgeted>;
  /** The part a continuation token names, for the caller and tool it was issued to. */
  next(token: string, tool: string, budget: number | undefined, principal: string, now: Date): Promise<Budgeted & { continuation: PartInfo }>;
};

export function createResultBudget(options: ResultBudgetOptions): ResultBudget {
  const count = options.count ?? estimateTokens;
  const ttl = options.ttlSecs ?? DEFAULT_CONTINUATION_TTL_SECS;
  const budgetOf = (b: number | undefined) => b ?? options.defaultBudget ?? DEFAULT_RESULT_BUDGET_TOKENS;

  const part = (text: string, format: CutFormat, from: number, budget: number, id: string): Budgeted & { continuation: PartInfo } => {
    const to = partEnd(text, from, budget, count);
    return {
      result: text.slice(from, to),
      continuation: { format, from, to, total_chars: text.length, ...(to < text.length ? { token: `${id}.${to}` } : {}) },
    };
  };

  return {
    async cut(result, tool, b, principal, now) {
      const budget = budgetOf(b);
      const format: CutFormat = typeof result === "string" ? "text" : "json";
      const text = typeof result === "string" ? result : (JSON.stringify(result) ?? "null");
      const bytes = Buffer.byteLength(text, "utf8");
      // Most answers have fewer bytes than the budget has tokens: nothing is counted. Past 8 bytes a token
      // (prose is ~4.5) the answer is cut without counting it whole; only the part is counted.
      if (bytes <= budget || (bytes <= budget * 8 && count(text) <= budget)) return { result };
      const id = randomBytes(18).toString("base64url");
      await options.store.put(id, { principal, tool, format, text, expires_at: Math.floor(now.getTime() / 1000) + ttl });
      return part(text, format, 0, budget, id);
    },
    async next(token, tool, b, principal, now) {
      const m = TOKEN_RE.exec(token);
      if (!m) throw notFound();
      const record = await options.store.get(m[1]!);
      // One answer for unknown, expired, another caller's and another tool's: a token reveals nothing.
      if (!record || record.principal !== principal || record.tool !== tool || record.expires_at <= now.getTime() / 1000) throw notFound();
      const from = Number(m[2]);
      if (from <= 0 || from >= record.text.length) throw notFound();
      return part(record.text, record.format, from, budgetOf(b), m[1]!);
    },
  };
}
