// Who may do what: principals, their API key digests and their grants (allow/deny tool globs).
import * as z from "zod";
import { FORMAT_VERSION } from "./tool.js";

export const Principal = z.strictObject({
  id: z.string().regex(/^[A-Za-z0-9_.:@-]{1,128}$/),
  description: z.string().optional(),
  /** SHA-256 hex digests of the bearer keys; the keys themselves are never stored. */
  keys: z
    .array(z.string().regex(/^[0-9a-f]{64}$/, 'the SHA-256 digest of a key (64 lower-case hex characters), never the key itself: printf %s "$key" | sha256sum'))
    .default([]),
  allow: z.array(z.string()).default([]).describe("Tool globs this principal may find and call"),
  deny: z
    .array(z.string())
    .default([])
    .describe("Tool globs refused even when allowed (the meta-tools toolbelt.find and toolbelt.call are always granted: they reach only granted tools)"),
  admin: z.boolean().default(false).describe("May read operator data such as the name-miss log"),
});
export type Principal = z.infer<typeof Principal>;

export const PolicyFile = z.strictObject({
  version: z.number().int().positive().default(FORMAT_VERSION),
  principals: z.array(Principal).min(1),
});
export type PolicyFile = z.infer<typeof PolicyFile>;
