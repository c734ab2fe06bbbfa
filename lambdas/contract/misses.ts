// GET /v1/admin/misses: the tool-name miss log, for operators.
import * as z from "../core/zod-mini.js";
import { described, int } from "./schema.js";

export const MISSES_LIMITS = { max: 1000, default: 20 } as const;

/** Query parameters (strings on the wire, numbers after parsing). */
export const MissesQuery = z.object({
  limit: described(z._default(z.coerce.number().check(z.int(), z.minimum(1), z.maximum(MISSES_LIMITS.max)), MISSES_LIMITS.default), "Most entries to return"),
  name: described(z.optional(z.string()), "List the latest events for this name (any spelling) instead"),
});

export const MissOutcome = z.enum(["resolved", "ambiguous", "not_found"]);
export type MissOutcome = z.infer<typeof MissOutcome>;

/** One tool name a caller sent that was not an exact name it may call. */
export const Miss = z.object({
  name: described(z.string(), "The name as the caller sent it"),
  principal: z.string(),
  at: described(z.string(), "ISO 8601 time"),
  outcome: MissOutcome,
  resolved_to: z.optional(z.string()),
});
export type Miss = z.infer<typeof Miss>;

export const MissSummary = z.object({
  canonical: described(z.string(), "The canonical form the misses share (case and separators folded)"),
  count: int(),
  names: described(z.array(z.string()), "The spellings callers sent"),
  last_at: z.string(),
  last_principal: z.string(),
  last_outcome: MissOutcome,
  resolved_to: described(z.optional(z.string()), "What the last miss resolved to, when it resolved"),
});
export type MissSummary = z.infer<typeof MissSummary>;

export const MissesResponse = z.union([
  described(z.object({ misses: z.array(MissSummary) }), "The most frequent misses, most frequent first"),
  described(z.object({ name: z.string(), events: z.array(Miss) }), "With `name`: its latest events, newest first"),
]);
export type MissesResponse = z.infer<typeof MissesResponse>;
