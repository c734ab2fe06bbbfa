// POST /v1/sessions and GET /v1/sessions/{id}/surface: a session and the surface it advertises.
import * as z from "../core/zod-mini.js";
import { anyObject, callableField, described, int, modelNameField } from "./schema.js";

export const SESSION_ID_RE = /^[A-Za-z0-9_-]{16,64}$/;
export const SessionId = z.string().check(z.regex(SESSION_ID_RE, "a session id as returned by POST /v1/sessions"));

export const OpenSessionBody = z.strictObject({
  brief: described(z.optional(z.string().check(z.minLength(1), z.maxLength(64))), "Name of a brief whose declared tools are pre-loaded"),
});
export type OpenSessionBody = z.infer<typeof OpenSessionBody>;

export const BeltReason = z.enum(["meta", "always", "declared", "pinned", "granted"]);
export type BeltReason = z.infer<typeof BeltReason>;

export const SurfaceTool = z.object({
  name: z.string(),
  model_name: modelNameField(),
  description: z.string(),
  input_schema: anyObject(),
  output_schema: z.optional(anyObject()),
  callable: callableField(),
  on_belt: described(BeltReason, "Why the tool is on the belt (the first reason that applies, in this order)"),
});
export type SurfaceTool = z.infer<typeof SurfaceTool>;

export const ManifestFamily = z.object({
  name: z.string(),
  description: described(z.string(), "The family's first sentence, shortened"),
  tool_count: described(int(), "Tools of the family you may call"),
  examples: described(z.array(z.string()), "A few of its verbs"),
});
export type ManifestFamily = z.infer<typeof ManifestFamily>;

export const Manifest = z.object({
  families: described(
    z.array(ManifestFamily),
    "The families that fit the manifest's token budget, most relevant first: the brief's, then the session's pins, then the largest",
  ),
  omitted: described(z.object({ families: int(), tools: int() }), "Granted families (and their tools) left out to stay within the budget"),
  note: described(z.string(), "The closing line: how many more families exist, and that toolbelt.find reaches every granted tool"),
});
export type Manifest = z.infer<typeof Manifest>;

export const SizeFigure = z.object({
  tools: int(),
  bytes: int(),
  approx_tokens: described(int(), "bytes / 4, rounded up: a rough estimate"),
  o200k_tokens: described(
    z.optional(int()),
    "o200k_base tokens of the surface's parts, added up from the build's counts: each tool entry without its on_belt field, each manifest family entry (counted with all the family's tools granted), and the closing line (omitted and note) at bytes / 3.5. The JSON around and between the parts and the on_belt fields are not counted (about 7 tokens a tool). Absent when the artifact has no counts; a Claude figure would only be an approximation",
  ),
  approx_error_pct: described(
    z.optional(z.number()),
    "How far approx_tokens is from o200k_tokens, in percent of o200k_tokens (positive: bytes / 4 overstates)",
  ),
});
export type SizeFigure = z.infer<typeof SizeFigure>;

export const Pin = z.object({
  name: z.string(),
  /** Serialized schema bytes the pin costs on the surface. */
  bytes: int(),
  /** Epoch milliseconds of the last use (pins are kept oldest-first; this is for readers). */
  last_used: z.number(),
});
export type Pin = z.infer<typeof Pin>;

export const Surface = z.object({
  narrowed: z.boolean(),
  reason: described(z.string(), "Which bound decided, in words"),
  bounds: z.object({
    max_tools: int(),
    max_schema_bytes: int(),
    pin_budget_bytes: int(),
    max_tokens: described(int(), "Token budget of the whole surface: the manifest gets what the tools leave, up to manifest_max_tokens"),
    manifest_max_tokens: int(),
  }),
  tools: z.array(SurfaceTool),
  manifest: Manifest,
  pins: z.object({ used_bytes: int(), budget_bytes: int(), tools: z.array(Pin) }),
  size: described(z.object({ surface: SizeFigure, catalog: SizeFigure }), "The surface as served vs. the full granted catalog advertised in the same shape"),
});
export type Surface = z.infer<typeof Surface>;

/** What a client sees of a session: declared tools only as far as they are granted. */
export const SessionView = z.object({
  id: z.string(),
  brief: z.nullable(z.string()),
  declared: z.array(z.string()),
  created_at: z.string(),
  expires_at: z.string(),
});
export type SessionView = z.infer<typeof SessionView>;

export const SessionResponse = z.object({ session: SessionView, surface: Surface });
export type SessionResponse = z.infer<typeof SessionResponse>;
