// Tolerant name resolution: a near-miss resolves only when exactly one GRANTED tool matches.
// Ungranted tools are invisible here (never resolved to, never suggested), except that the exact
// name (or its case/separator variant) of an ungranted tool is never resolved to a *different* tool.
import { canonicalName, verbOf } from "../../../registry/contract/names.js";
import type { GrantFilter } from "../find/types.js";
import { editDistance, typoBudget } from "./distance.js";

export type ResolutionRule = "case" | "separators" | "family_prefix" | "typo";

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

type Entry = { name: string; canon: string; verb: string };

export function createNameResolver(names: readonly string[]): NameResolver {
  const entries: Entry[] = names.map((name) => ({ name, canon: canonicalName(name), verb: canonicalName(verbOf(name)) }));
  const exact = new Set(names);
  const byCanon = new Map(entries.map((e) => [e.canon, e]));
  const byVerb = new Map<string, Entry[]>();
  for (const e of entries) byVerb.set(e.verb, [...(byVerb.get(e.verb) ?? []), e]);

  const suggest = (q: string, grantedEntries: Entry[], first: string[] = []): string[] => {
    const loose = Math.max(2, Math.floor(q.length / 3));
    const qTokens = new Set(q.split("_").filter((t) => t.length >= 3));
    const ranked: { name: string; rank: number }[] = [];
    for (const e of grantedEntries) {
      if (first.includes(e.name)) continue;
      const d = Math.min(editDistance(q, e.canon, loose), editDistance(q, e.verb, loose));
      let rank = d <= loose ? d : Infinity;
      if (rank === Infinity && q.length >= 3 && (e.canon.includes(q) || (e.verb.length >= 3 && q.includes(e.verb)))) rank = loose + 1;
      if (rank === Infinity && e.canon.split("_").some((t) => qTokens.has(t))) rank = loose + 2;
      if (rank !== Infinity) ranked.push({ name: e.name, rank });
    }
    ranked.sort((a, b) => a.rank - b.rank || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return [...first, ...ranked.map((r) => r.name)].slice(0, MAX_SUGGESTIONS);
  };

  return {
    resolve(name, granted) {
      if (exact.has(name)) return granted(name) ? { status: "exact", name } : { status: "not_granted", name };
      const grantedEntries = entries.filter((e) => granted(e.name));
      if (name.length > MAX_RESOLVABLE) return { status: "not_found", suggestions: [] };
      const q = canonicalName(name);

      // Case and separators: canonical names are unique in the catalog (a build rule).
      const same = byCanon.get(q);
      if (same) {
        // The caller meant that very tool; never redirect to another one, and say nothing about it.
        if (!granted(same.name)) return { status: "not_found", suggestions: suggest(q, grantedEntries.filter((e) => e !== same)) };
        const rule: ResolutionRule = name.toLowerCase() === same.name.toLowerCase() ? "case" : "separators";
        return { status: "resolved", name: same.name, rule };
      }

      // Missing family prefix: the verb alone.
      const verbMatches = (byVerb.get(q) ?? []).filter((e) => granted(e.name));
      if (verbMatches.length === 1) return { status: "resolved", name: verbMatches[0]!.name, rule: "family_prefix" };
      if (verbMatches.length > 1) {
        const first = verbMatches.map((e) => e.name).sort();
        return { status: "ambiguous", suggestions: suggest(q, grantedEntries, first) };
      }

      // A small typo in the full name or in the verb.
      const budget = typoBudget(q);
      if (budget > 0) {
        const hits = grantedEntries.filter(
          (e) => editDistance(q, e.canon, budget) <= budget || editDistance(q, e.verb, budget) <= budget,
        );
        if (hits.length === 1) return { status: "resolved", name: hits[0]!.name, rule: "typo" };
        if (hits.length > 1) {
          const first = hits.map((e) => e.name).sort();
          return { status: "ambiguous", suggestions: suggest(q, grantedEntries, first) };
        }
      }
      return { status: "not_found", suggestions: suggest(q, grantedEntries) };
    },
  };
}
