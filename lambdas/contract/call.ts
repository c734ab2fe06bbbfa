// POST /v1/call and the toolbelt.call and toolbelt.reshape meta-tools.
import * as z from "../core/zod-mini.js";
import { anyObject, described } from "./schema.js";
import { SessionId } from "./sessions.js";

export const CALL_LIMITS = { toolChars: 256, idempotencyKeyChars: 255 } as const;

/** Tokens a tool's answer may take unless its registry entry says otherwise (Cloudflare caps tool results near 6,000). */
export const DEFAULT_RESULT_BUDGET_TOKENS = 8000;
/** How long the rest of a cut answer can be fetched. */
export const DEFAULT_CONTINUATION_TTL_SECS = 3600;

/** `Idempotency-Key` (REST header) and `idempotency_key` (MCP call_tool): 1 to 255 printable ASCII characters. */
export const IdempotencyKey = described(
  z.string().check(z.minLength(1), z.maxLength(CALL_LIMITS.idempotencyKeyChars), z.regex(/^[\x20-\x7E]+$/)),
  "Makes a retry safe: the same key and arguments within 24 h return the first result without running the tool again. A UUID will do",
  ["7c9e6679-7425-40de-944b-e07fc1f90ae7"],
);

/** A cut answer's `continuation.token` (REST body, MCP call_tool and `_meta["toolbelt/continuation"]`). */
export const ContinuationToken = z.string().check(z.minLength(1), z.maxLength(64));

/** The input of toolbelt.call, and POST /v1/call's body without `session`. */
export const CallInput = z.strictObject({
  tool: described(z.string().check(z.minLength(1), z.maxLength(CALL_LIMITS.toolChars)), "The name find shows (git.log or git_log).", ["time.now"]),
  args: described(z._default(anyObject(), {}), "Arguments per the tool's input schema.", [{ zone: "Asia/Tokyo" }]),
});
export type CallInput = z.infer<typeof CallInput>;

export const CallBody = z.extend(CallInput, {
  session: described(z.optional(SessionId), "Your session: the tool is pinned on its surface after a successful call"),
  continuation: described(
    z.optional(ContinuationToken),
    "The token of a cut answer's `continuation`: returns its next part (send the same tool; args are ignored)",
  ),
});
export type CallBody = z.infer<typeof CallBody>;

export const ResolutionRule = z.enum(["case", "separators", "family_prefix", "typo"]);
export type ResolutionRule = z.infer<typeof ResolutionRule>;

/** What a prompt tool's answer carries beside its result (the audit line reads it too). */
export const CallMetadata = z.object({
  model: described(z.string(), "The model id that answered"),
  role: described(z.string(), "The model role the tool asked (TOOLBELT_MODELS)"),
  usage: z.object({ input_tokens: z.number(), output_tokens: z.number() }),
  attempts: described(z.number(), "Model calls made: 2 when the first answer failed the output schema and was retried"),
});
export type CallMetadata = z.infer<typeof CallMetadata>;

/** A cut answer's part: join the parts' `result` strings in order to get the whole back. */
export const ResultPart = z.object({
  format: described(z.enum(["json", "text"]), "text: the parts join into the tool's string result; json: into the JSON text of its result"),
  from: described(z.number(), "Offset (UTF-16 code units) of this part in the whole text"),
  to: described(z.number(), "Offset just past this part"),
  total_chars: described(z.number(), "Length of the whole text"),
  token: described(z.optional(z.string()), "Send it as `continuation` with the same tool for the next part; absent on the last part"),
});

export const CallResponse = z.object({
  tool: described(z.string(), "Full name of the tool that ran"),
  resolved_from: described(z.optional(z.string()), "The name you sent, when it was a near-miss that resolved"),
  resolution: described(z.optional(ResolutionRule), "Which tolerance rule resolved it"),
  result: described(z.unknown(), "What the tool returned"),
  metadata: described(z.optional(CallMetadata), "Prompt tools: the model that answered and the tokens it used"),
  continuation: described(
    z.optional(ResultPart),
    "Present when the answer was over the tool's token budget: `result` is then one part (a string) of the whole",
  ),
  deprecated: described(
    z.optional(z.object({ replaced_by: z.optional(z.string()), reason: z.string(), since: z.string() })),
    "The tool is retired and ran only because this gateway warns instead of refusing (TOOLBELT_DEPRECATED_CALLS=warn): move to replaced_by",
  ),
});
export type CallResponse = z.infer<typeof CallResponse>;

/** The input of toolbelt.reshape. */
export const ReshapeInput = z.strictObject({
  data: described(z.unknown(), "Any JSON value, typically the result of another tool.", [{ notes: [{ id: "n1", title: "Groceries" }], count: 1 }]),
  mapping: described(
    z.record(z.string(), z.string()).check(
      // JSON Schema's minProperties for the published schema, the refinement for parsing.
      z.meta({ minProperties: 1 }),
      z.refine((m) => Object.keys(m).length > 0, "give at least one output key"),
    ),
    "Output key to the path of the value to put under it; a path is dotted with optional indexes (notes[0].title), rooted ($.count) or a JSON Pointer (/notes/0/id), and a missing path gives null.",
    [{ first_title: "notes[0].title", total: "count" }],
  ),
});
export type ReshapeInput = z.infer<typeof ReshapeInput>;
