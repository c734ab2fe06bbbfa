// PLACEHOLDER find until the find issue lands: naive word overlap over name and description.
import type { Artifact } from "../../artifact.js";
import { globMatcher } from "../globs.js";
import type { FindRequest, FindResult, Finder, GrantFilter } from "./types.js";

export type FinderOptions = { alwaysLoaded?: string[] };

const words = (s: string) => s.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);

export function createFinder(artifact: Artifact, options: FinderOptions = {}): Finder {
  const isAlways = globMatcher(options.alwaysLoaded ?? artifact.manifest.always_loaded);
  const docs = artifact.tools.map((t) => ({ tool: t, words: new Set(words(`${t.name} ${t.description}`)) }));
  const alwaysLoaded = (granted: GrantFilter = () => true) =>
    artifact.tools.filter((t) => isAlways(t.name) && granted(t.name)).map((t) => t.name);
  return {
    alwaysLoaded,
    async find(req: FindRequest, granted: GrantFilter = () => true): Promise<FindResult> {
      const q = words(req.query);
      const minScore = req.min_score ?? 0.2;
      const schemas = req.schemas ?? true;
      const scored = docs
        .filter((d) => granted(d.tool.name) && !isAlways(d.tool.name) && (!req.family || d.tool.family === req.family))
        .map((d) => ({ d, score: q.length ? q.filter((w) => d.words.has(w)).length / q.length : 0 }))
        .filter((s) => s.score >= minScore)
        .sort((a, b) => b.score - a.score || (a.d.tool.name < b.d.tool.name ? -1 : 1))
        .slice(0, req.limit ?? 10);
      const shape = (t: Artifact["tools"][number]) => ({
        name: t.name,
        family: t.family,
        description: t.description,
        ...(schemas ? { input_schema: t.input_schema, ...(t.output_schema ? { output_schema: t.output_schema } : {}) } : {}),
      });
      return {
        mode: "keyword",
        verdict: scored.length ? "match" : "none",
        tools: scored.map((s) => ({ ...shape(s.d.tool), score: s.score })),
        always: alwaysLoaded(granted).map((n) => shape(artifact.byName.get(n)!)),
      };
    },
  };
}
