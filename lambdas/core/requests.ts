// Request shapes shared by REST (parsed with these), the OpenAPI document (generated from these)
// and the meta-tools' input schemas on the surface (the same shapes, so every entry point agrees).
import * as z from "zod";

export const SESSION_ID_RE = /^[A-Za-z0-9_-]{16,64}$/;
export const SessionId = z.string().regex(SESSION_ID_RE, "a session id as returned by POST /v1/sessions");

export const FindInput = z.strictObject({
  query: z.string().trim().min(1).max(1000).describe("One capability, in words, e.g. `list recent commits`"),
  limit: z.number().int().min(1).max(50).optional().describe("Most results to return (default 10)"),
  min_score: z.number().min(0).max(1).optional().describe("Drop results scoring below this (0..1)"),
  family: z.string().min(1).max(64).optional().describe("Search one family only (the box)"),
  schemas: z.boolean().optional().describe("Include each tool's input and output schema (default true)"),
});
export type FindInput = z.infer<typeof FindInput>;

export const FindBody = FindInput.extend({
  session: SessionId.optional().describe("Session the search belongs to (must be yours)"),
});
export type FindBody = z.infer<typeof FindBody>;

export const OpenSessionBody = z.strictObject({
  brief: z.string().min(1).max(64).optional().describe("Name of a brief whose declared tools are pre-loaded"),
});
export type OpenSessionBody = z.infer<typeof OpenSessionBody>;

/** Input of the `toolbelt.call` meta-tool; the call route may extend it. */
export const CallInput = z.strictObject({
  tool: z.string().min(1).max(256).describe("Full tool name `family.verb` (near misses are resolved when unambiguous)"),
  args: z.record(z.string(), z.unknown()).default({}).describe("Arguments, checked against the tool's input schema"),
});
export type CallInput = z.infer<typeof CallInput>;
