// The find core, used unchanged by REST, MCP and the builtin meta-tool: ranks the caller's granted
// tools over the imported artifact index (never rebuilt at runtime) in five stages, one file each:
// analyse (analyse.ts) → retrieve (retrieve.ts) → rerank (rerank.ts) → judge (judge.ts) → present
// (present.ts, schemas.ts). This file wires them: eligibility, the grant filter and exact names.
import { deprecationOf } from "../deprecated.js";
import type { CatalogTool } from "../../../registry/contract/artifact.js";
import { isCallable } from "../../../registry/contract/callable.js";
import { MAX_MODEL_NAME, META_TOOLS, canonicalName } from "../../../registry/contract/names.js";
import type { FieldName, SearchIndexData } from "../../../registry/contract/search-options.js";
import type { Artifact, GrantFilter } from "../ports.js";
import { FIND_LIMITS, schemaPolicy } from "../../contract/find.js";
import { ToolbeltError } from "../errors.js";
import { globMatcher } from "../../../registry/contract/globs.js";
import type { AlwaysTool, FindOptions, FindRequest, FindResult, Finder, FoundTool } from "./types.js";
import { chooseSchemas } from "./schemas.js";
import { VERDICT_MODEL, hasHints, type VerdictModel } from "./verdict.js";
import type { CandidateSource } from "./decision.js";
import { SearchIndex } from "./postings.js";
import { Analyser, type Analysis } from "./analyse.js";
import { Retriever } from "./retrieve.js";
import { Reranker } from "./rerank.js";
import { Judge } from "./judge.js";
import { fieldTermCache, matchExplainer, shape } from "./present.js";
import { topK } from "./top-k.js";
import type { WorkUnits } from "./work.js";
import type { Lift } from "./rerank.js";
import type { Keep, Retrieval } from "./retrieve.js";
import type { Judgement } from "./judge.js";
import { toolRules, verdictReasons, type ToolTrace } from "./explain.js";
import { DEFAULT_MIN_SCORE, DEFAULT_QUERY_PARAMS, STAGE_LIMITS, type QueryParams } from "../../../registry/contract/find-tuning.js";

export { textInput } from "./judge.js";
export { DEFAULT_MIN_SCORE };

export type FinderOptions = {
  /** Always-loaded names or `*` globs; replaces the registry's list when given. */
  alwaysLoaded?: string[];
  /** Query-time knobs (the eval tunes them; tuning.ts's defaults otherwise). */
  query?: Partial<QueryParams>;
  /** Import the FlexSearch typo index now instead of at the first query with an unknown word. */
  eagerFuzzy?: boolean;
  /** The fit model (verdict.ts); false turns the judge off: scores by the lexical score alone (the eval's "before"). */
  verdict?: VerdictModel | false;
  /** A counter the stages add their work units to (work.ts); without it they count nothing. */
  work?: WorkUnits;
  /** Internal, for the work-unit test only: rerank passes per ranking (1; 2 is the deliberate regression it must catch). */
  rerankPasses?: number;
  /** Internal, for the retrieve A/B only (test/bench/retrieve-ab.ts): a reference Retriever to compare answers with. */
  retriever?: typeof Retriever;
};

export const DEFAULT_LIMIT = FIND_LIMITS.defaultResults;
export const MAX_LIMIT = FIND_LIMITS.maxResults;

export function createFinder(artifact: Artifact, options: FinderOptions = {}): Finder & CandidateSource {
  const data = artifact.index as SearchIndexData;
  if (!data || typeof data !== "object" || data.docs !== artifact.tools.length) {
    throw new ToolbeltError("INTERNAL", "the artifact's search index does not match its catalog: rebuild it with npm run build:artifact");
  }
  const queryParams = { ...DEFAULT_QUERY_PARAMS, ...options.query };
  const tools = artifact.tools;
  const familyId = new Map<string, number>();
  for (const t of tools) if (!familyId.has(t.family)) familyId.set(t.family, familyId.size);
  const index = new SearchIndex(data);
  const work = options.work;
  const analyser = new Analyser(index, queryParams, work);
  const family = Uint32Array.from(tools, (t) => familyId.get(t.family)!);
  const retriever = new (options.retriever ?? Retriever)(index, queryParams, work, family);
  const reranker = new Reranker(retriever, family, work, data.actions ? { table: data.actions, tools } : undefined);
  const rerankPasses = options.rerankPasses ?? 1;
  if (options.eagerFuzzy) analyser.loadFuzzy();
  const hintedCatalog = tools.filter(hasHints).length * 2 >= tools.length;
  const judge = options.verdict === false ? undefined : new Judge(index, queryParams, options.verdict ?? VERDICT_MODEL, hintedCatalog, tools);

  /** Stages 1–3: the request's scores over the tools it touched (valid until the next ranking); a find analyses its request once. */
  const rank = (query: string, minScore: number, lifted?: Lift[], keep?: Pick<Keep, "k" | "counts">, analysis = analyser.analyse(query)) => {
    const plan = reranker.plan(analysis, minScore);
    const retrieval = retriever.retrieve(
      analysis,
      minScore,
      plan.reach,
      plan.lifts,
      keep && { k: keep.k, counts: keep.counts, fall: reranker.fall(analysis), rise: plan.rise },
    );
    for (let i = 0; i < rerankPasses; i++) reranker.rerank(retrieval, plan, lifted);
    reranker.actionRule(retrieval, analysis, lifted);
    return retrieval;
  };

  const isAlways = globMatcher(options.alwaysLoaded ?? artifact.manifest.always_loaded);
  const always = tools.map((t) => isAlways(t.name));
  const alwaysIdx = tools.flatMap((_, i) => (always[i] ? [i] : []));
  // Not ranked: the always-loaded tools and find and call, which every surface shows already
  // ("a file called invoice" answered toolbelt.call, "find my notes" toolbelt.find).
  const unranked = tools.map((t, i) => always[i]! || META_TOOLS.includes(t.name));
  // Retired tools are found only by their exact name (the caller then learns what replaces them).
  const retired = tools.map((t) => deprecationOf(t) !== undefined);
  // Uncallable tools (imported catalog entries) rank below every callable one: an agent taking the
  // first result never gets a 501. A catalog where none is callable (eval, benches) ranks as before.
  const callable = Uint8Array.from(tools, (t) => (isCallable(t) ? 1 : 0));
  const byCallable = (d: number) => callable[d]!;
  const anyCallable = callable.includes(1);
  // Retrieve's top-k threshold (Keep): the k best of the best tier are all a top-k selection can show
  // (`fall` and `rise` are set per request in rank).
  const bestTier = (d: number) => callable[d] === (anyCallable ? 1 : 0);
  // Exact name lookup: an agent that already knows the name (full or verb, any separators) gets it first.
  // A key holds its one tool as a number (an array only where names collide): no Set or array per
  // tool at import.
  const byName = new Map<string, number | number[]>();
  let longestKey = 0;
  const addName = (key: string, i: number) => {
    longestKey = Math.max(longestKey, key.length);
    const hit = byName.get(key);
    if (hit === undefined) byName.set(key, i);
    else if (typeof hit === "number") {
      if (hit !== i) byName.set(key, [hit, i]);
    } else if (!hit.includes(i)) hit.push(i);
  };
  for (let i = 0; i < tools.length; i++) {
    const name = tools[i]!.name;
    addName(canonicalName(name), i);
    addName(canonicalName(name.slice(tools[i]!.family.length + 1)), i);
    // A shortened model-safe name is a name of its own (a shorter one is the full name's separator variant).
    const model = tools[i]!.model_name;
    if (model !== undefined && model.length === MAX_MODEL_NAME) addName(canonicalName(model), i);
  }
  // A name key keeps each ASCII letter and digit of a request as one character: a request holding more
  // of them than the longest key is no name, and skips the canonical form (two passes over a long request).
  const exactHit = (query: string): number[] | undefined => {
    let alnum = 0;
    for (let i = 0; i < query.length && alnum <= longestKey; i++) {
      const c = query.charCodeAt(i);
      if ((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122)) alnum++;
    }
    if (alnum > longestKey) return undefined;
    const hit = byName.get(canonicalName(query.trim().replace(/\s+/g, "_")));
    return hit === undefined ? undefined : typeof hit === "number" ? [hit] : hit;
  };

  const alwaysLoaded = (granted: GrantFilter = () => true) => alwaysIdx.filter((i) => granted(tools[i]!.name)).map((i) => tools[i]!.name);

  const famDesc = new Map(artifact.families.map((f) => [f.name, f.description]));
  const fieldTerms = fieldTermCache((family) => famDesc.get(family) ?? "");
  const full = (t: CatalogTool, examples: boolean) => shape(t, true, examples);
  const onBeltOf = (opts?: FindOptions) => (opts?.onBelt ? { onBelt: opts.onBelt } : {});

  /** explain: what retrieve and rerank did to a shown tool (read before anything ranks again). */
  const traceOf = (d: number, r: Retrieval, lifted: readonly Lift[], exact: boolean): Omit<ToolTrace, "final"> => {
    const touched = retriever.passStamp[d] === r.stamp;
    const { raw: evidence, nameShare } = touched ? retriever.evidence(d, r.stamp, r.steps) : { raw: 0, nameShare: 0 };
    return {
      exact,
      evidence,
      nameShare,
      nameBoost: queryParams.nameBoost,
      steps: r.steps,
      segmentWeight: retriever.segmentWeight(r.steps),
      lifts: lifted.filter((l) => l.doc === d).map((l) => (l.rule === "action" ? l : { ...l, headName: tools[l.head]!.name, headScore: r.score[l.head]! })),
      ranked: r.score[d]!,
      lastAsUncallable: callable[d] === 0 && anyCallable,
    };
  };
  /** explain: the best tool the caller may see, before the judge (ranked again without the bar when none reached it). */
  const bestOf = (query: string, analysis: Analysis, foundDocs: number[], raw: number[], eligible: (d: number) => boolean, granted: GrantFilter) => {
    if (foundDocs.length) return { best: { name: tools[foundDocs[0]!]!.name, score: raw[0]! } };
    const again = rank(query, 0, undefined, { k: 1, counts: (x) => bestTier(x) && eligible(x) && granted(tools[x]!.name) }, analysis);
    const [d] = topK(again.docs, again.score, byCallable, 1, (x) => again.score[x]! > 0 && eligible(x) && granted(tools[x]!.name));
    return d === undefined ? {} : { best: { name: tools[d]!.name, score: again.score[d]! } };
  };

  // A find's own functions come from these factories, not from named arrows inside find: a bundle that
  // keeps names (Lambda's, tsx's) names each function made per call, about 2% of a find over HTTP (profile).
  const eligibleFor =
    (exact: number[] | undefined, family: string | undefined) =>
    (d: number): boolean =>
      !unranked[d] && (!retired[d] || exact?.includes(d) === true) && (family === undefined || tools[d]!.family === family);
  /** explain's matched words of a request, computed at the first look, and only when asked for or needed. */
  const matchesFor = (query: string, analysis: Analysis) => {
    let explain: ReturnType<typeof matchExplainer> | undefined;
    return (t: CatalogTool, only?: readonly FieldName[]) =>
      (explain ??= matchExplainer(analyser, fieldTerms, query, analysis.steps === 1 ? analysis.groups : undefined))(t, only);
  };
  /** The judge's runners-up: ranked afresh without the bar, the tools just behind the top. */
  const runnersUpOf = (query: string, analysis: Analysis, eligible: (d: number) => boolean, granted: GrantFilter, topDoc: number) => () => {
    const again = rank(
      query,
      0,
      undefined,
      { k: STAGE_LIMITS.judgeRunnersUp + 1, counts: (d) => bestTier(d) && eligible(d) && granted(tools[d]!.name) },
      analysis,
    );
    const next = topK(
      again.docs,
      again.score,
      byCallable,
      STAGE_LIMITS.judgeRunnersUp,
      (d) => d !== topDoc && again.score[d]! > 0 && eligible(d) && granted(tools[d]!.name),
    );
    return next.map((d) => tools[d]!);
  };

  return {
    alwaysLoaded,
    entry: (t, score) => ({ ...shape(t, false), score }),
    schemas: (found, policy, opts) => chooseSchemas(found, artifact.byName, full, { policy, bar: DEFAULT_MIN_SCORE, ...onBeltOf(opts) }),
    candidates(req, k, granted) {
      const eligible = (d: number) => !unranked[d] && !retired[d] && (req.family === undefined || tools[d]!.family === req.family) && granted(tools[d]!.name);
      const { docs, score } = rank(req.query, 0, undefined, { k, counts: (d) => bestTier(d) && eligible(d) });
      const ranked = topK(docs, score, byCallable, k, (d) => score[d]! > 0 && eligible(d));
      // A catalog that fits is asked whole (the keyword-ranked tools first); a larger one only its k best matches.
      const rest: number[] = [];
      const taken = new Set(ranked);
      for (let d = 0; d < tools.length && ranked.length + rest.length <= k; d++) if (!taken.has(d) && eligible(d)) rest.push(d);
      return (ranked.length + rest.length <= k ? [...ranked, ...rest] : ranked).map((d) => tools[d]!);
    },
    async find(req: FindRequest, granted: GrantFilter = () => true, opts?: FindOptions): Promise<FindResult> {
      const limit = Math.max(0, Math.min(MAX_LIMIT, Math.floor(req.limit ?? DEFAULT_LIMIT)));
      // Compared as shown (4 decimals): a score read off a result and sent back as min_score keeps that tool.
      const minScore = Math.max(0, (req.min_score ?? DEFAULT_MIN_SCORE) - 5e-5);
      const policy = schemaPolicy(req.schemas);
      const exact = exactHit(req.query);
      const eligible = eligibleFor(exact, req.family);

      const lifted: Lift[] | undefined = req.explain ? [] : undefined;
      const analysis = analyser.analyse(req.query);
      const retrieval = rank(req.query, minScore, lifted, { k: limit, counts: (d) => bestTier(d) && eligible(d) && granted(tools[d]!.name) }, analysis);
      const { docs, score } = retrieval;
      // A tool asked for by its name comes first, callable or not.
      const tier = exact ? (d: number) => (exact.includes(d) ? 2 : callable[d]!) : byCallable;
      if (exact) {
        for (const d of exact) {
          if (!docs.includes(d)) docs.push(d);
          score[d] = 1;
        }
      }
      const foundDocs: number[] = [];
      const raw: number[] = [];
      const taken = new Set<number>();
      // Top-k by a bounded selection, not a sort of every touched tool; the grant filter (the
      // caller's authority) is checked on each tool before it is shown. Each round that the filter
      // thins out asks for twice as many, so a narrow grant costs a few rounds, not one per refusal.
      for (let batch = limit; foundDocs.length < limit; batch *= 2) {
        const picked = topK(docs, score, tier, batch, (d) => score[d]! >= minScore && score[d]! > 0 && eligible(d) && !taken.has(d));
        if (!picked.length) break;
        for (const d of picked) {
          if (foundDocs.length >= limit) break;
          taken.add(d);
          if (granted(tools[d]!.name)) {
            foundDocs.push(d);
            raw.push(score[d]!);
          }
        }
      }
      // explain's record of retrieve and rerank, taken before the judge may rank again.
      const traces = req.explain ? foundDocs.map((d) => traceOf(d, retrieval, lifted!, exact?.includes(d) === true)) : undefined;
      const matches = matchesFor(req.query, analysis);

      // Stage 4: one fit factor per request (order kept) from the top tool shown; an exact name is not judged.
      let judged: Judgement | undefined;
      if (judge && foundDocs.length && !exact) {
        const topDoc = foundDocs[0]!;
        if (work) work.judged++;
        judged = judge.judge({
          query: req.query,
          top: tools[topDoc]!,
          topDoc,
          topScore: raw[0]!,
          matches,
          request: analysis,
          runnersUp: runnersUpOf(req.query, analysis, eligible, granted, topDoc),
        });
      }
      const factor = judged?.factor ?? 1;
      // Stage 5: the answer. One factor for all keeps the order; a tool stays while its judged score reaches min_score.
      const found: FoundTool[] = [];
      for (let i = 0; i < foundDocs.length; i++) {
        const s = raw[i]! * factor;
        if (factor < 1 && !(s >= minScore && s > 0)) continue;
        const d = foundDocs[i]!;
        const t = tools[d]!;
        // The light shape and the score (in this key order); explain's keys follow when asked for.
        const entry: FoundTool = { ...shape(t, false), score: Math.round(s * 1e4) / 1e4 };
        if (traces) {
          Object.assign(entry, {
            explain: exact?.includes(d) ? [{ word: req.query.trim(), fields: ["name" as const] }] : matches(t),
            ...toolRules({ ...traces[i]!, final: s }, judged),
          });
        }
        found.push(entry);
      }
      const reasons = traces
        ? verdictReasons({
            exact: exact !== undefined && found.length > 0,
            request: analysis,
            minScore: req.min_score ?? DEFAULT_MIN_SCORE,
            before: foundDocs.length,
            after: found.length,
            ...(judged ? { judged } : {}),
            ...bestOf(req.query, analysis, foundDocs, raw, eligible, granted),
          })
        : undefined;
      // Schemas once the scores are final: every result's, none, or (by default) the best few above the bar, within the budget.
      const chosen = chooseSchemas(found, artifact.byName, full, {
        policy,
        bar: DEFAULT_MIN_SCORE,
        lightResults: !traces,
        ...(exact ? { exact: new Set(exact.map((d) => tools[d]!.name)) } : {}),
        ...onBeltOf(opts),
      });
      return {
        mode: "keyword",
        verdict: found.length ? "match" : "none",
        tools: chosen.tools,
        ...(reasons ? { verdict_reasons: reasons } : {}),
        ...(chosen.note ? { note: chosen.note } : {}),
        // The always-loaded tools are on every belt (the surface, MCP's tools/list): listed only when everything is asked for.
        ...(policy === "all" ? { always: alwaysIdx.filter((i) => granted(tools[i]!.name)).map((i) => ({ ...shape(tools[i]!, true) })) } : {}),
      };
    },
  };
}

export type { AlwaysTool };
