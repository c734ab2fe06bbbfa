// Find's decision mode (seed 000): a choice question with every candidate tool as an option plus
// "No tool in this list fits the task"; the options' probabilities rank the tools. Candidates come
// from the keyword ranking (a pre-filter that keeps the question affordable). A catalog larger than
// `chunk_size` is asked in chunks at once, and the tools that reach `min_probability` in their own
// chunk meet in a final choice that sets the ranking. Any failure answers with the keyword ranking
// and a `fallback_reason`, within the decider's timeout.
import type { CatalogTool } from "../../../registry/contract/artifact.js";
import { DECIDER_ROLE } from "../../../registry/contract/model-roles.js";
import { FIND_LIMITS, schemaPolicy } from "../../contract/find.js";
import { ToolbeltError } from "../errors.js";
import type { ChatMessage, GrantFilter, ModelPort, Models } from "../ports.js";
import type { FindOptions, FindRequest, FindResult, Finder, FoundTool } from "./types.js";

export const DECISION_DEFAULTS = { minProbability: 0.1, chunkSize: 250, maxChunkSize: 255, candidates: 100, cacheEntries: 256, maxModelRequests: 4 } as const;

/** What the keyword finder offers decision mode: candidates in keyword order, and result entries. */
export type CandidateSource = {
  /** Up to `k` tools the caller may call, keyword-ranked; every eligible tool when there are no more than `k`. */
  candidates(request: Pick<FindRequest, "query" | "family">, k: number, granted: GrantFilter): CatalogTool[];
  /** A tool as a find result lists it: a name and one line. */
  entry(tool: CatalogTool, score: number): FoundTool;
  /** The schemas the results carry, chosen as keyword mode chooses them (schemas.ts). */
  schemas(found: FoundTool[], policy: "top" | "all" | "none", options?: FindOptions): { tools: FoundTool[]; note?: string };
};

export type DecisionOptions = {
  models: Models;
  /** Keyword candidates put to the decider (DECISION_DEFAULTS.candidates). */
  candidates?: number;
  cacheEntries?: number;
  /**
   * Most model requests one find sends, every round counted (DECISION_DEFAULTS.maxModelRequests;
   * TOOLBELT_FIND_MAX_MODEL_REQUESTS): a small `chunk_size` is raised to fit, so the caller cannot
   * choose the fan-out.
   */
  maxModelRequests?: number;
};

/** The option that says no tool fits; tools are options 1 … n. */
export const NONE_OPTION = "No tool in this list fits the task.";
export const DECISION_SYSTEM = "You pick the tool that would best accomplish a task. Answer with the number of one option and nothing else.";

/** The question for one choice: the task, then numbered options (0 is "none"). */
export function decisionQuestion(query: string, tools: readonly Pick<CatalogTool, "name" | "description">[]): ChatMessage[] {
  const options = [`0. ${NONE_OPTION}`, ...tools.map((t, i) => `${i + 1}. ${t.name}: ${t.description}`)];
  return [
    { role: "system", content: DECISION_SYSTEM },
    {
      role: "user",
      content: `Which tool would best accomplish this task?\n\nTask: ${query}\n\nOptions:\n${options.join("\n")}\n\nAnswer with the option's number.`,
    },
  ];
}

type Ranked = { tool: CatalogTool; p: number };
type Decision = { ranked: Ranked[]; noneWins: boolean; model: string; source: "logprobs" | "stated"; questions: number };

/** The reason a decision failed, as `fallback_reason` says it: `<code>: <what happened>`. */
function reasonOf(e: unknown): string {
  if (e instanceof ToolbeltError && typeof e.details.reason === "string") return `${e.details.reason}: ${e.message}`;
  if (e instanceof ToolbeltError) return `error: ${e.message}`;
  return "error: the decision failed unexpectedly";
}

export function withDecisions(keyword: Finder, source: CandidateSource, options: DecisionOptions): Finder {
  const models = options.models;
  const k = options.candidates ?? DECISION_DEFAULTS.candidates;
  const maxEntries = options.cacheEntries ?? DECISION_DEFAULTS.cacheEntries;
  const maxRequests = Math.max(1, options.maxModelRequests ?? DECISION_DEFAULTS.maxModelRequests);
  // Per warm Lambda: (model, query, candidates, chunking, bar) → decision; least recently used leaves first.
  const cache = new Map<string, Decision>();
  const remember = (key: string, d: Decision) => {
    cache.set(key, d);
    if (cache.size > maxEntries) cache.delete(cache.keys().next().value!);
  };

  /** One choice: each tool's probability, and whether "none" is the most likely answer. */
  const ask = async (port: ModelPort, query: string, tools: CatalogTool[], signal: AbortSignal) => {
    const labels = Array.from({ length: tools.length + 1 }, (_, i) => String(i));
    const choice = await port.choose({ messages: decisionQuestion(query, tools), labels, signal });
    const [none = 0, ...ps] = choice.probabilities;
    return { ps, noneWins: ps.every((p) => none > p), model: choice.model, source: choice.source };
  };

  /** The chunk size of a round: the caller's, raised so this round and the final one fit in the requests left. */
  const sizeFor = (tools: number, chunk: number, left: number): number => {
    if (tools <= chunk) return chunk;
    // Several chunks need a final question after them; with fewer than 3 requests left, one question asks all.
    const most = left - 1;
    return most < 2 ? tools : Math.max(chunk, Math.ceil(tools / most));
  };

  const decide = async (port: ModelPort, query: string, tools: CatalogTool[], chunk: number, bar: number, signal: AbortSignal): Promise<Decision> => {
    let round = tools;
    let questions = 0;
    for (;;) {
      const size = sizeFor(round.length, chunk, maxRequests - questions);
      const chunks: CatalogTool[][] = [];
      for (let i = 0; i < round.length; i += size) chunks.push(round.slice(i, i + size));
      // Chunks are sent together; one failure fails the decision (the caller falls back).
      const answers = await Promise.all(chunks.map((c) => ask(port, query, c, signal)));
      questions += chunks.length;
      const first = answers[0]!;
      if (chunks.length === 1) {
        const ranked = round.map((tool, i) => ({ tool, p: first.ps[i] ?? 0 }));
        return { ranked, noneWins: first.noneWins, model: first.model, source: first.source, questions };
      }
      // The tools that reach the bar in their own chunk meet in the final choice, which sets the ranking.
      const finalists = chunks.flatMap((c, j) => c.map((tool, i) => ({ tool, p: answers[j]!.ps[i] ?? 0 }))).filter((r) => r.p > 0 && r.p >= bar);
      if (finalists.length === 0) return { ranked: [], noneWins: true, model: first.model, source: first.source, questions };
      finalists.sort((a, b) => b.p - a.p);
      // Each round must shrink (a bar of 0 lets every tool with any mass through): keep at most one chunk's worth then.
      round = (finalists.length < round.length ? finalists : finalists.slice(0, size)).map((r) => r.tool);
    }
  };

  return {
    alwaysLoaded: (granted) => keyword.alwaysLoaded(granted),
    async find(req: FindRequest, granted: GrantFilter = () => true, options?: FindOptions): Promise<FindResult> {
      const role = req.model ?? DECIDER_ROLE;
      if (req.model !== undefined && !models.roles().includes(req.model)) {
        const configured = models.roles();
        throw new ToolbeltError(
          "INVALID_REQUEST",
          `model ${JSON.stringify(req.model)} is not a model role of this gateway; ${configured.length ? `configured: ${configured.join(", ")}` : "it configures none (TOOLBELT_MODELS)"}`,
          { model: req.model, configured },
        );
      }
      const mode = req.mode ?? "auto";
      const keywordResult = await keyword.find(req, granted, options);
      if (mode === "keyword") return keywordResult;
      const port = models.get(role);
      if (!port) {
        // auto without a decider is keyword mode by definition, not a failure.
        if (mode === "auto" && req.model === undefined && models.unavailable(role) === undefined) return keywordResult;
        const why = models.unavailable(role) ?? `no model is configured for the role "${role}" (TOOLBELT_MODELS)`;
        return { ...keywordResult, fallback_reason: `no_decider: ${why}` };
      }

      const bar = req.min_probability ?? DECISION_DEFAULTS.minProbability;
      const chunk = req.chunk_size ?? DECISION_DEFAULTS.chunkSize;
      const limit = req.limit ?? FIND_LIMITS.defaultResults;
      const tools = source.candidates(req, k, granted);
      const key = JSON.stringify([role, port.model, req.query, chunk, bar, tools.map((t) => t.name)]);
      let decision = cache.get(key);
      const cached = decision !== undefined;
      if (decision) {
        cache.delete(key);
        cache.set(key, decision);
      } else if (tools.length > 0) {
        // One budget for every round: the answer (keyword, if it comes to that) is due within the decider's timeout.
        const signal = AbortSignal.timeout(port.timeoutMs);
        try {
          decision = await decide(port, req.query, tools, chunk, bar, signal);
        } catch (e) {
          return { ...keywordResult, fallback_reason: reasonOf(e) };
        }
        remember(key, decision);
      }
      const found = decision && !decision.noneWins ? decision.ranked.filter((r) => r.p > 0 && r.p >= bar).sort((a, b) => b.p - a.p) : [];
      // The same schema policy as keyword ranking: by default the best few carry schemas, within the answer's budget.
      const { note: _keywordNote, ...keywordRest } = keywordResult;
      const chosen = source.schemas(
        found.slice(0, limit).map((r) => source.entry(r.tool, Math.round(r.p * 1e4) / 1e4)),
        schemaPolicy(req.schemas),
        options,
      );
      return {
        ...keywordRest,
        mode: "decision",
        verdict: found.length ? "match" : "none",
        tools: chosen.tools,
        ...(chosen.note ? { note: chosen.note } : {}),
        decision: {
          role,
          model: decision?.model ?? port.model,
          probabilities: decision?.source ?? (port.provider === "openai" ? "logprobs" : "stated"),
          candidates: tools.length,
          questions: cached ? 0 : (decision?.questions ?? 0),
        },
      };
    },
  };
}
