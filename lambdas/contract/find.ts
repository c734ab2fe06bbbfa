// POST /v1/find and the toolbelt.find meta-tool: one request and one result shape for both.
import * as z from "../core/zod-mini.js";
import { anyObject, callableField, described, modelNameField } from "./schema.js";
import { SessionId } from "./sessions.js";

export const FIND_LIMITS = { queryChars: 1000, maxResults: 50, defaultResults: 10, maxChunkSize: 255 } as const;

/** How many of the best results carry schemas by default (those scoring at least the default min_score): measured, README "Token economy". */
export const FIND_SCHEMA_TOP = 3;
/** ...while the whole answer stays within this many o200k tokens (a tool asked for by its exact name always gets its schema). */
export const FIND_MAX_TOKENS = 1500;

/** The `schemas` choice as a policy (true and false are the older spellings of all and none). */
export const schemaPolicy = (v: boolean | "top" | "all" | "none" | undefined): "top" | "all" | "none" =>
  v === true ? "all" : v === false ? "none" : (v ?? "top");

/** The input of toolbelt.find, and POST /v1/find's body without `session`. */
export const FindInput = z.strictObject({
  query: described(z.string().check(z.trim(), z.minLength(1), z.maxLength(FIND_LIMITS.queryChars)), "One capability, in plain words.", [
    "show recent commits",
    "convert celsius to fahrenheit",
  ]),
  limit: described(z._default(z.number().check(z.int(), z.minimum(1), z.maximum(FIND_LIMITS.maxResults)), FIND_LIMITS.defaultResults), "Most tools to return."),
  min_score: described(z.optional(z.number().check(z.minimum(0), z.maximum(1))), "Leave out tools scoring below this."),
  family: described(z.optional(z.string().check(z.minLength(1), z.maxLength(64))), "Search only this family."),
  schemas: described(
    z._default(z.literal(["top", "all", "none", true, false]), "top"),
    `Results with input schemas: the top ${FIND_SCHEMA_TOP} (default), all or none.`,
  ),
  explain: described(z.optional(z.boolean()), "Show which query words matched."),
  mode: described(
    z.optional(z.enum(["keyword", "decision", "auto"])),
    "keyword; decision (a model chooses, keyword on failure); auto (default): decision if a decider is configured.",
  ),
  min_probability: described(z.optional(z.number().check(z.minimum(0), z.maximum(1))), "Decision mode: lowest probability kept (default 0.1)."),
  chunk_size: described(
    z.optional(z.number().check(z.int(), z.minimum(1), z.maximum(FIND_LIMITS.maxChunkSize))),
    "Decision mode: most tools per question (default 250).",
  ),
  model: described(z.optional(z.string().check(z.minLength(1), z.maxLength(64))), "Decision mode: model role (default decider)."),
});
/** What find takes: fields with defaults may be left out. */
export type FindRequest = z.input<typeof FindInput>;

export const FindBody = z.extend(FindInput, {
  session: described(z.optional(SessionId), "Session the search belongs to (must be yours): each result then says whether it is on the belt"),
});
export type FindBody = z.infer<typeof FindBody>;

export const AlwaysTool = z.object({
  name: z.string(),
  model_name: modelNameField(),
  family: z.string(),
  description: z.string(),
  input_schema: z.optional(anyObject()),
  output_schema: z.optional(anyObject()),
  callable: callableField(),
});
export type AlwaysTool = z.infer<typeof AlwaysTool>;

/** The tool fields explain names (the search index's fields, in the words a tool author knows). */
export const EXPLAIN_FIELDS = ["name", "description", "parameters", "family", "tags", "aliases", "examples", "details"] as const;

export const MatchedWord = z.object({
  word: described(z.string(), "A word of the query"),
  fields: described(z.array(z.enum(EXPLAIN_FIELDS)), "The tool's fields that contain it (or its expansion)"),
  expansion: described(
    z.optional(z.string()),
    "Present when the word matched through an expansion (synonym, related word, typo tolerance): the tool's word it reached",
  ),
});
export type MatchedWord = z.infer<typeof MatchedWord>;

/** The stages of find, in order (lambdas/core/find/: one file each). */
export const FIND_STAGES = ["analyse", "retrieve", "rerank", "judge", "present"] as const;

export const ExplainRule = z.object({
  stage: described(z.enum(FIND_STAGES), "The stage of find that applied the rule"),
  rule: described(z.string(), "The rule's name (docs/find.md lists them)"),
  effect: described(z.string(), "Its effect on the score: +0.12 added, ×0.80 multiplied, =0.52 the score it set, or the verdict it gave (match, none)"),
  detail: described(z.string(), "Why it fired, with its numbers"),
});
export type ExplainRule = z.infer<typeof ExplainRule>;

export const StageScore = z.object({
  stage: z.enum(FIND_STAGES),
  score: described(z.number(), "The tool's score after this stage, 0..1"),
});
export type StageScore = z.infer<typeof StageScore>;

export const FoundTool = z.extend(AlwaysTool, {
  description: described(z.string(), "The tool's description; its first sentence when the result carries no schema"),
  score: described(z.number(), "Fit to the query, 0..1"),
  explain: described(z.optional(z.array(MatchedWord)), "With explain: true, the query words that matched this tool and where"),
  rules: described(z.optional(z.array(ExplainRule)), "With explain: true, every rule that shaped this tool's score, stage by stage"),
  stages: described(z.optional(z.array(StageScore)), "With explain: true, the tool's score after each stage that scores"),
});
export type FoundTool = z.infer<typeof FoundTool>;

/**
 * The note of a `none` answer: an agent told only "none" keeps searching for a tool that does not exist;
 * told to go on without one, it stops (what users of peer gateways report).
 */
export const NONE_NOTE = "No tool you may call fits this request: do it without a tool, or search again for one capability in other words.";

/** What find answers (toolbelt.find's result). */
export const FindResult = z.object({
  mode: z.enum(["keyword", "decision"]),
  verdict: described(z.enum(["match", "none"]), "none: no tool you may call fits the query"),
  tools: z.array(FoundTool),
  always: described(
    z.optional(z.array(AlwaysTool)),
    "With schemas all: the always-loaded tools you may call. They are on every belt, so a client learns them once from the session's surface (MCP: tools/list)",
  ),
  verdict_reasons: described(z.optional(z.array(ExplainRule)), "With explain: true (keyword mode), the rules that decided the verdict, with their numbers"),
  note: described(
    z.optional(z.string()),
    "Which schemas were left out to keep the answer within its token budget, and how to get one (find the tool by its exact name); with verdict none, what to do instead",
  ),
  fallback_reason: described(
    z.optional(z.string()),
    "Why decision mode fell back to keyword ranking: no_decider, timeout, http_error, unparsable or no_logprobs, then what happened",
  ),
  decision: described(
    z.optional(
      z.object({
        role: z.string(),
        model: described(z.string(), "The model id that chose"),
        probabilities: described(z.enum(["logprobs", "stated"]), "logprobs: from the answer token's log-probabilities; stated: the model's own numbers"),
        candidates: described(z.number(), "Tools put to the model (the keyword ranking's best)"),
        questions: described(z.number(), "Choice questions asked: one per chunk, plus the final round; 0 when cached"),
      }),
    ),
    "Decision mode: who chose and how the probabilities were obtained",
  ),
});
export type FindResult = z.infer<typeof FindResult>;

/** POST /v1/find's answer: the result, and within a session which tools are already on its belt. */
export const FindResponse = z.extend(FindResult, {
  tools: z.array(z.extend(FoundTool, { on_belt: described(z.optional(z.boolean()), "With a session: the tool is already on its surface") })),
  session: z.optional(z.string()),
});
export type FindResponse = z.infer<typeof FindResponse>;
