// Request shapes shared by REST (parsed with these), the OpenAPI document (generated from these)
// and the meta-tools' input schemas on the surface (the same shapes, so every entry point agrees).
import * as z from "./zod-mini.js";

export const SESSION_ID_RE = /^[A-Za-z0-9_-]{16,64}$/;
export const SessionId = z.string().check(z.regex(SESSION_ID_RE, "a session id as returned by POST /v1/sessions"));

/** `description` as the JSON Schema and the OpenAPI document show it. */
export const described = <T extends z.ZodMiniType>(schema: T, description: string): T => schema.check(z.describe(description));

export const FindInput = z.strictObject({
  query: described(z.string().check(z.trim(), z.minLength(1), z.maxLength(1000)), "One capability, in words, e.g. `list recent commits`"),
  limit: described(z.optional(z.number().check(z.int(), z.minimum(1), z.maximum(50))), "Most results to return (default 10)"),
  min_score: described(z.optional(z.number().check(z.minimum(0), z.maximum(1))), "Drop results scoring below this (0..1)"),
  family: described(z.optional(z.string().check(z.minLength(1), z.maxLength(64))), "Search one family only (the box)"),
  schemas: described(z.optional(z.boolean()), "Include each tool's input and output schema (default true)"),
});
export type FindInput = z.infer<typeof FindInput>;

export const FindBody = z.extend(FindInput, {
  session: described(z.optional(SessionId), "Session the search belongs to (must be yours)"),
});
export type FindBody = z.infer<typeof FindBody>;

export const OpenSessionBody = z.strictObject({
  brief: described(z.optional(z.string().check(z.minLength(1), z.maxLength(64))), "Name of a brief whose declared tools are pre-loaded"),
});
export type OpenSessionBody = z.infer<typeof OpenSessionBody>;

/** Input of the `toolbelt.call` meta-tool; the call route may extend it. */
export const CallInput = z.strictObject({
  tool: described(z.string().check(z.minLength(1), z.maxLength(256)), "Full tool name `family.verb` (near misses are resolved when unambiguous)"),
  args: described(z._default(z.record(z.string(), z.unknown()), {}), "Arguments, checked against the tool's input schema"),
});
export type CallInput = z.infer<typeof CallInput>;
