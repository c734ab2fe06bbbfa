// Tolerant name resolution: a near-miss resolves only when exactly one GRANTED tool matches.
// Ungranted tools are never resolved to nor suggested, but they still keep a name from being
// redirected: the name (or case/separator variant) of an ungranted tool, its bare verb, or a typo
// as near to it as to a granted tool is never resolved to a *different* tool. Only the exact full
// name (or its model-safe form) says "not granted" (403; the caller knows it); the rest answer 404
// without naming the ungranted tool, so probing verbs does not list what find hides.
import { canonicalName, modelName, verbOf } from "../../../registry/contract/names.js";
import type { ResolutionRule } from "../../contract/call.js";
import type { GrantFilter } from "../ports.js";
import { editDistance } from "../../../registry/contract/edit-distance.js";
import { mayBeWithin, signature, typoBudget } from "./distance.js";

export type { ResolutionRule };

export type Resolution =
  | { status: "exact"; name: string }
  | { status: "resolved"; name: string; rule: ResolutionRule }
  /** The exact catalog name of a tool the caller may not call (refused with 403). */
  | { status: "not_granted"; name: string }
  /** Several granted tools match equally well; `suggestions` lists them first. */
  | { status: "ambiguous"; suggestions: string[] }
  | { status: "not_found"; suggestions: string[] };

export type NameResolver = { resolve(name: string, granted: GrantFilter): Resolution };

export const MAX_SUGGESTIONS = 5;
/** Longer inputs are not names; skip the distance work. */
const MAX_RESOLVABLE = 256;

type Entry = { name: string; canon: string; verb: string; tokens: string[]; canonSig: Uint8Array; verbSig: Uint8Array };

/** How far a suggestion may be from the name sent (beyond a typo, still worth showing). */
const SUGGEST_DISTANCE = (q: string) => Math.max(2, Math.min(4, Math.floor(q.length / 4)));

/**
 * `modelNameAt(i)` is `names[i]`'s model-safe name (the artifact's names.json; the projection by
 * default): an exact second spelling of the tool, resolved without a miss.
 */
export function createNameResolver(names: readonly string[], modelNameAt: (i: number) => string = (i) => modelName(names[i]!)): NameResolver {
  const exact = new Set(names);
  // Built on the first name that is not a full name, like the index below.
  let models: Map<string, string> | undefined;
  // Built on the first near-miss: exact calls (the common case) and cold starts never pay for it.
  let index: { entries: Entry[]; byCanon: Map<string, Entry>; byVerb: Map<string, Entry[]> } | undefined;
  const build = () => {
    const entries: Entry[] = names.map((name) => {
      const canon = canonicalName(name);
      const verb = canonicalName(verbOf(name));
      return { name, canon, verb, tokens: canon.split("_").filter((t) => t.length >= 3), canonSig: signature(canon), verbSig: signature(verb) };
    });
    const byVerb = new Map<string, Entry[]>();
    for (const e of entries) {
      const same = byVerb.get(e.verb);
      if (same) same.push(e);
      else byVerb.set(e.verb, [e]);
    }
    return { entries, byCanon: new Map(entries.map((e) => [e.canon, e])), byVerb };
  };

  /** The smaller of the distances to the full name and to the verb, or `max + 1`. */
  const distance = (q: string, qSig: Uint8Array, e: Entry, max: number) =>
    Math.min(
      mayBeWithin(qSig, e.canonSig, max) ? editDistance(q, e.canon, max) : max + 1,
      mayBeWithin(qSig, e.verbSig, max) ? editDistance(q, e.verb, max) : max + 1,
    );

  const suggest = (q: string, granted: GrantFilter, first: string[] = [], exclude?: Entry): string[] => {
    const loose = SUGGEST_DISTANCE(q);
    const qSig = signature(q);
    const qTokens = new Set(q.split("_").filter((t) => t.length >= 3));
    const ranked: { name: string; rank: number }[] = [];
    for (const e of index!.entries) {
      if (e === exclude || first.includes(e.name)) continue;
      let rank = distance(q, qSig, e, loose);
      if (rank > loose) {
        if (q.length >= 3 && (e.canon.includes(q) || (e.verb.length >= 3 && q.includes(e.verb)))) rank = loose + 1;
        else if (e.tokens.some((t) => qTokens.has(t))) rank = loose + 2;
        else continue;
      }
      if (granted(e.name)) ranked.push({ name: e.name, rank });
    }
    ranked.sort((a, b) => a.rank - b.rank || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return [...first, ...ranked.map((r) => r.name)].slice(0, MAX_SUGGESTIONS);
  };

  return {
    resolve(name, granted) {
      if (exact.has(name)) return granted(name) ? { status: "exact", name } : { status: "not_granted", name };
      models ??= new Map(names.map((n, i) => [modelNameAt(i), n]));
      const full = models.get(name);
      if (full !== undefined) return granted(full) ? { status: "exact", name: full } : { status: "not_granted", name: full };
      if (name.length > MAX_RESOLVABLE) return { status: "not_found", suggestions: [] };
      const q = canonicalName(name);
      index ??= build();
      const { entries, byCanon, byVerb } = index;

      // Case and separators: canonical names are unique in the catalog (a build rule).
      const same = byCanon.get(q);
      if (same) {
        // The caller meant that very tool; never redirect to another one, and say nothing about it.
        if (!granted(same.name)) return { status: "not_found", suggestions: suggest(q, granted, [], same) };
        const rule: ResolutionRule = name.toLowerCase() === same.name.toLowerCase() ? "case" : "separators";
        return { status: "resolved", name: same.name, rule };
      }

      // Missing family prefix: the verb alone. Among the granted tools with that verb (another family's
      // ungranted tool with the same verb does the same thing, so this is no redirect).
      const sameVerb = byVerb.get(q) ?? [];
      const verbMatches = sameVerb.filter((e) => granted(e.name));
      if (verbMatches.length === 1) return { status: "resolved", name: verbMatches[0]!.name, rule: "family_prefix" };
      if (verbMatches.length > 1) return { status: "ambiguous", suggestions: suggest(q, granted, verbMatches.map((e) => e.name).sort()) };
      // Exactly the verb of ungranted tools only (`show`, git.show not granted): the caller meant one of
      // them, so no typo step may turn it into another tool (diagnostics.slow).
      if (sameVerb.length > 0) return { status: "not_found", suggestions: suggest(q, granted) };

      // A small typo in the full name or in the verb, when no ungranted tool is as plausible a target.
      const budget = typoBudget(q);
      if (budget > 0) {
        const qSig = signature(q);
        const hits = entries.filter((e) => distance(q, qSig, e, budget) <= budget);
        const grantedHits = hits
          .filter((e) => granted(e.name))
          .map((e) => e.name)
          .sort();
        if (grantedHits.length < hits.length) return { status: "not_found", suggestions: suggest(q, granted, grantedHits) };
        if (grantedHits.length === 1) return { status: "resolved", name: grantedHits[0]!, rule: "typo" };
        if (grantedHits.length > 1) return { status: "ambiguous", suggestions: suggest(q, granted, grantedHits) };
      }
      return { status: "not_found", suggestions: suggest(q, granted) };
    },
  };
}
