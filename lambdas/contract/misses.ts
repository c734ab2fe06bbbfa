// GET /v1/admin/misses: the miss logs, for operators: tool names callers sent that were not a tool
// they may call (kind call), and find queries no tool answered well (kind find).
import * as z from "../core/zod-mini.js";
import { described, int } from "./schema.js";

export const MISSES_LIMITS = { max: 1000, default: 20 } as const;

export const MissKind = z.enum(["call", "find"]);
export type MissKind = z.infer<typeof MissKind>;

/** Query parameters (strings on the wire, numbers after parsing). */
export const MissesQuery = z.object({
  limit: described(z._default(z.coerce.number().check(z.int(), z.minimum(1), z.maximum(MISSES_LIMITS.max)), MISSES_LIMITS.default), "Most entries to return"),
  name: described(z.optional(z.string()), "List the latest events for this name or query (any spelling) instead"),
  kind: described(
    z._default(MissKind, "call"),
    "call: tool names callers sent that were not a tool they may call; find: find queries answered none, or whose best tool scored below the default min_score",
  ),
});

/** Call misses: resolved, ambiguous, not_found. Find misses: none (verdict none), low_score (the best tool scored below the default min_score). */
export const MissOutcome = z.enum(["resolved", "ambiguous", "not_found", "none", "low_score"]);
export type MissOutcome = z.infer<typeof MissOutcome>;

/** One tool name a caller sent that was not an exact name it may call, or one find query no tool answered well. */
export const Miss = z.object({
  name: described(z.string(), "The name (or find query) as the caller sent it, control characters removed and bounded"),
  principal: z.string(),
  at: described(z.string(), "ISO 8601 time"),
  outcome: MissOutcome,
  resolved_to: z.optional(z.string()),
  best_tool: described(z.optional(z.string()), "Find misses: the best-scoring tool the caller may call, if any word matched one"),
  best_score: described(z.optional(z.number()), "Find misses: that tool's score, 0..1"),
});
export type Miss = z.infer<typeof Miss>;

export const MissSummary = z.object({
  canonical: described(z.string(), "The form the misses share: case and separators folded (names), or lowercase with whitespace collapsed (queries)"),
  count: int(),
  names: described(z.array(z.string()), "The spellings callers sent (at most 20)"),
  last_at: z.string(),
  last_principal: z.string(),
  last_outcome: MissOutcome,
  resolved_to: described(z.optional(z.string()), "What the last miss resolved to, when it resolved"),
  best_tool: described(z.optional(z.string()), "Find misses: the best tool for the last miss, if any"),
  best_score: described(z.optional(z.number()), "Find misses: its score"),
});
export type MissSummary = z.infer<typeof MissSummary>;

export const MissesResponse = z.union([
  described(z.object({ misses: z.array(MissSummary) }), "The most frequent misses, most frequent first"),
  described(z.object({ name: z.string(), events: z.array(Miss) }), "With `name`: its latest events, newest first"),
]);
export type MissesResponse = z.infer<typeof MissesResponse>;
