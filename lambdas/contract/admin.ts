// The operator console's data routes (admin principals only): the catalog with who reaches each tool,
// find as a principal, a session's belt, and the audit store's records and per-minute figures.
import * as z from "../core/zod-mini.js";
import { FindInput } from "./find.js";
import { anyObject, described, int } from "./schema.js";

export const AUDIT_LIMITS = { max: 500, default: 50, maxHours: 7 * 24, maxMinutes: 1440, defaultMinutes: 60 } as const;

export const CatalogTool = z.object({
  name: z.string(),
  description: z.string(),
  kind: z.string(),
  callable: described(z.boolean(), "Whether this gateway can run it now"),
  not_callable_reason: described(z.optional(z.string()), "Why not, when it cannot"),
  input_schema: anyObject(),
  governance: described(anyObject(), "The registry's declarations: impact, consequential, destructive, affects, read_only, audit_args, ..."),
  deprecated: z.optional(anyObject()),
  reached_by: described(
    z.object({ principals: z.array(z.string()), briefs: z.array(z.string()) }),
    "The policy principals granted it, and the briefs that declare it",
  ),
});

export const CatalogSetting = z.object({
  name: z.string(),
  present: described(z.boolean(), "Set in this function's environment, or named in TOOLBELT_SECRETS (never the value)"),
  secret: z.boolean(),
});

export const CatalogFamily = z.object({
  name: z.string(),
  description: z.string(),
  kind: described(z.string(), "Its tools' kind, or `mixed`"),
  tools: z.array(CatalogTool),
  settings: z.array(CatalogSetting),
});

export const CatalogResponse = z.object({
  families: z.array(CatalogFamily),
  artifact: z.object({
    format_version: int(),
    registry_hash: z.string(),
    built_at: z.optional(z.string()),
    counts: z.object({ families: int(), tools: int() }),
  }),
});
export type CatalogResponse = z.infer<typeof CatalogResponse>;

export const AdminFindBody = z.extend(FindInput, {
  principal: described(z.optional(z.string().check(z.minLength(1), z.maxLength(255))), "Rank with this policy principal's grants (default: yours)"),
});
export type AdminFindBody = z.infer<typeof AdminFindBody>;

export const BeltEntry = z.object({
  name: z.string(),
  source: described(z.enum(["always", "packing", "pin"]), "always: meta or always-loaded; packing: declared by the brief; pin: pinned on use"),
  bytes: int(),
  share: described(z.number(), "bytes / the pin budget (0..1 for pins)"),
  last_used_at: z.optional(z.string()),
});

export const AdminSessionResponse = z.object({
  id: z.string(),
  principal: z.string(),
  brief: z.optional(z.string()),
  belt: z.array(BeltEntry),
  budget_bytes: int(),
  used_bytes: int(),
  surface_tokens: described(int(), "o200k tokens of the surface its agent is shown (the approximation bytes / 4 when the artifact has no counts)"),
  expires_at: z.string(),
});
export type AdminSessionResponse = z.infer<typeof AdminSessionResponse>;

const isoTime = (what: string) =>
  described(z.optional(z.string().check(z.refine((s) => !Number.isNaN(Date.parse(s)), "an ISO 8601 time such as 2026-12-07T01:00:00Z"))), what);

export const AuditQuery = z.strictObject({
  since: isoTime(
    `Oldest record to list (default: an hour ago; at most ${AUDIT_LIMITS.maxHours} hours ago, earlier is read as ${AUDIT_LIMITS.maxHours} hours back)`,
  ),
  principal: z.optional(z.string().check(z.maxLength(255))),
  tool: z.optional(z.string().check(z.maxLength(256))),
  family: z.optional(z.string().check(z.maxLength(64))),
  outcome: described(z.optional(z.string().check(z.maxLength(64))), "OK or an error code"),
  limit: described(z._default(z.coerce.number().check(z.int(), z.minimum(1), z.maximum(AUDIT_LIMITS.max)), AUDIT_LIMITS.default), "Most records to return"),
  cursor: described(z.optional(z.string().check(z.maxLength(1024))), "`next` of the previous page"),
});
export type AuditQuery = z.infer<typeof AuditQuery>;

export const AuditRecord = z.object({
  time: z.string(),
  principal: z.string(),
  tool: z.string(),
  family: z.optional(z.string()),
  outcome: z.string(),
  status: int(),
  latency_ms: z.number(),
  upstream_status: z.optional(int()),
  via: z.optional(z.string()),
  request_id: z.optional(z.string()),
  session: z.optional(z.string()),
  depth: z.optional(int()),
});
export type AuditRecord = z.infer<typeof AuditRecord>;

export const AuditListResponse = z.object({
  records: described(z.array(AuditRecord), "Newest first"),
  next: described(z.optional(z.string()), "Send as `cursor` for the next page; absent on the last"),
});
export type AuditListResponse = z.infer<typeof AuditListResponse>;

export const AuditStatsQuery = z.strictObject({
  minutes: described(
    z._default(z.coerce.number().check(z.int(), z.minimum(1), z.maximum(AUDIT_LIMITS.maxMinutes)), AUDIT_LIMITS.defaultMinutes),
    "The window: the last this many minutes",
  ),
});

export const StatsBucket = z.object({ t: described(z.string(), "The bucket's start"), calls: int(), errors: int(), p50_ms: z.number(), p95_ms: z.number() });
export const AuditStatsResponse = z.object({
  minutes: int(),
  bucket_secs: described(int(), "Seconds per bucket: 60 up to 60 minutes, 300 up to 360, 900 above"),
  families: described(
    z.array(z.object({ family: z.string(), buckets: z.array(StatsBucket) })),
    "One entry per family called in the window, every bucket listed, oldest first",
  ),
  truncated: described(z.optional(z.literal(true)), "More records than one answer reads were in the window: the figures cover the newest ones"),
});
export type AuditStatsResponse = z.infer<typeof AuditStatsResponse>;
