// Find's `family` filter, checked before the search: a family the caller may use no tool of is a
// 404 naming those it may use. A misspelt family answered `verdict: "none"`, which tells an agent
// that no tool fits and it should answer itself.
import type { CatalogTool } from "../../registry/contract/artifact.js";
import { editDistance } from "../../registry/contract/edit-distance.js";
import { MAX_LISTED_PROBLEMS, ToolbeltError } from "./errors.js";
import type { Finder } from "./find/types.js";
import type { GrantFilter } from "./ports.js";

/** `finder` with its requests' `family` checked against the families of the caller's granted tools. */
export function withFamilyCheck(finder: Finder, tools: readonly CatalogTool[]): Finder {
  const byFamily = new Map<string, string[]>();
  for (const t of tools) {
    const names = byFamily.get(t.family);
    if (names) names.push(t.name);
    else byFamily.set(t.family, [t.name]);
  }
  const usable = (family: string, granted: GrantFilter) => (byFamily.get(family) ?? []).some(granted);
  return {
    alwaysLoaded: (granted) => finder.alwaysLoaded(granted),
    find(request, granted = () => true, options) {
      const { family } = request;
      if (family !== undefined && !usable(family, granted)) {
        // The nearest names first, at most 20 of them: a principal may use a thousand families.
        const usableFamilies = [...byFamily.keys()].filter((f) => usable(f, granted));
        const available = usableFamilies
          .map((f) => ({ f, d: editDistance(family.toLowerCase(), f.toLowerCase(), 64) }))
          .sort((a, b) => a.d - b.d || a.f.localeCompare(b.f))
          .slice(0, MAX_LISTED_PROBLEMS)
          .map(({ f }) => f);
        throw new ToolbeltError(
          "NOT_FOUND",
          `no family named ${JSON.stringify(family)} has a tool you may use; omit \`family\` or use one of the listed names`,
          {
            family,
            available,
            ...(usableFamilies.length > available.length ? { more_families: usableFamilies.length - available.length } : {}),
          },
        );
      }
      return finder.find(request, granted, options);
    },
  };
}
