// The find core, used unchanged by REST, MCP and the builtin meta-tool: ranks the caller's granted
// tools with our scorer over the imported artifact index (never rebuilt at runtime).
import type { CatalogTool } from "../../../registry/contract/artifact.js";
import { canonicalName } from "../../../registry/contract/names.js";
import type { SearchIndexData } from "../../../registry/contract/search-options.js";
import type { Artifact } from "../../artifact.js";
import { globMatcher } from "../globs.js";
import { segments } from "./segment.js";
import { DEFAULT_QUERY_PARAMS, Scorer, type QueryParams, type Scored } from "./scorer.js";
import type { AlwaysTool, FindRequest, FindResult, Finder, FoundTool, GrantFilter } from "./types.js";

export type FinderOptions = {
  /** Always-loaded names or `*` globs; replaces the registry's list when given. */
  alwaysLoaded?: string[];
  /** Query-time scorer knobs (the eval tunes them; defaults otherwise). */
  query?: Partial<QueryParams>;
  /** Import the FlexSearch typo index now instead of at the first query with an unknown word. */
  eagerFuzzy?: boolean;
};

/**
 * Default `min_score`: the share of a query's weight a tool must match. Chosen on metatool
 * (no_tool none-rate against single false-none) and seal-tools dev; see test/eval/README.md.
 */
export const DEFAULT_MIN_SCORE = 0.3;
export const DEFAULT_LIMIT = 10;
export const MAX_LIMIT = 100;

export function createFinder(artifact: Artifact, options: FinderOptions = {}): Finder {
  const data = artifact.index as SearchIndexData;
  if (!data || typeof data !== "object" || data.docs !== artifact.tools.length) {
    throw new Error("the artifact's search index does not match its catalog: rebuild it with npm run build:artifact");
  }
  const scorer = new Scorer(data, { ...DEFAULT_QUERY_PARAMS, ...options.query });
  if (options.eagerFuzzy) scorer.loadFuzzy();
  const tools = artifact.tools;
  const isAlways = globMatcher(options.alwaysLoaded ?? artifact.manifest.always_loaded);
  const always = tools.map((t) => isAlways(t.name));
  const alwaysIdx = tools.flatMap((t, i) => (always[i] ? [i] : []));
  // Exact name lookup: an agent that already knows the name (full or verb, any separators) gets it first.
  const byName = new Map<string, number[]>();
  tools.forEach((t, i) => {
    for (const key of new Set([canonicalName(t.name), canonicalName(t.name.slice(t.family.length + 1))])) {
      byName.set(key, [...(byName.get(key) ?? []), i]);
    }
  });

  const segWeight = options.query?.segmentWeight ?? DEFAULT_QUERY_PARAMS.segmentWeight;
  /** A multi-step query: each doc keeps its best step score, blended with the whole query's. */
  const scoreQuery = (query: string): Scored[] => {
    const whole = scorer.score(query);
    const segs = segWeight > 0 ? segments(query) : [];
    if (segs.length < 2) return whole;
    const best = new Map<number, number>();
    for (const seg of segs) {
      for (const s of scorer.score(seg)) if (s.score > (best.get(s.doc) ?? 0)) best.set(s.doc, s.score);
    }
    return whole.map((s) => ({ doc: s.doc, score: segWeight * (best.get(s.doc) ?? 0) + (1 - segWeight) * s.score }));
  };

  const alwaysLoaded = (granted: GrantFilter = () => true) => alwaysIdx.filter((i) => granted(tools[i]!.name)).map((i) => tools[i]!.name);

  const shape = (t: CatalogTool, schemas: boolean): AlwaysTool => ({
    name: t.name,
    family: t.family,
    description: t.description,
    ...(schemas ? { input_schema: t.input_schema, ...(t.output_schema ? { output_schema: t.output_schema } : {}) } : {}),
  });

  return {
    alwaysLoaded,
    async find(req: FindRequest, granted: GrantFilter = () => true): Promise<FindResult> {
      const limit = Math.max(0, Math.min(MAX_LIMIT, Math.floor(req.limit ?? DEFAULT_LIMIT)));
      const minScore = req.min_score ?? DEFAULT_MIN_SCORE;
      const schemas = req.schemas ?? true;
      const eligible = (d: number) => !always[d] && (req.family === undefined || tools[d]!.family === req.family);

      const scored = scoreQuery(req.query);
      const exact = byName.get(canonicalName(req.query.trim().replace(/\s+/g, "_")));
      if (exact) {
        for (const d of exact) scored.push({ doc: d, score: 1 });
      }
      const cands: Scored[] = [];
      const seen = new Set<number>();
      for (const s of scored) {
        if (s.score < minScore || s.score <= 0 || !eligible(s.doc)) continue;
        cands.push(s);
      }
      cands.sort((a, b) => b.score - a.score || a.doc - b.doc);
      const found: FoundTool[] = [];
      for (const s of cands) {
        if (found.length >= limit) break;
        if (seen.has(s.doc)) continue;
        seen.add(s.doc);
        const t = tools[s.doc]!;
        // The grant filter is the caller's authority: checked on every tool before it is shown.
        if (!granted(t.name)) continue;
        found.push({ ...shape(t, schemas), score: Math.round(s.score * 1e4) / 1e4 });
      }
      return {
        mode: "keyword",
        verdict: found.length ? "match" : "none",
        tools: found,
        always: alwaysIdx.filter((i) => granted(tools[i]!.name)).map((i) => shape(tools[i]!, schemas)),
      };
    },
  };
}
