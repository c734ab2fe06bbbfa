// One glob matcher for grants, briefs and always-loaded lists, so the build and the Lambdas agree on what `*` means.
import picomatch from "picomatch";

/** `*` matches any run of characters including dots (tool names are `family.verb`). */
export function globMatcher(patterns: readonly string[]): (name: string) => boolean {
  if (patterns.length === 0) return () => false;
  const matchers = patterns.map((p) => picomatch(p, { dot: true, nocase: false, bash: true }));
  return (name) => matchers.some((m) => m(name));
}
