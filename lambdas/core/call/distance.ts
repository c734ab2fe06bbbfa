// Near-miss screening for call resolution: how many typos a name may have, and a cheap character-count
// filter run before the edit distance (registry/contract/edit-distance.ts).

/** Typo budget: none for tiny names (too little signal), 1 for short names, 2 for longer ones. */
export function typoBudget(canonical: string): number {
  if (canonical.length < 3) return 0;
  return canonical.length <= 7 ? 1 : 2;
}

const SIG = 38;
/** Character counts (a-z, 0-9, `_`, anything else): one edit changes them by at most 2 in total. */
export function signature(s: string): Uint8Array {
  const sig = new Uint8Array(SIG);
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const k = c >= 97 && c <= 122 ? c - 97 : c >= 48 && c <= 57 ? 26 + c - 48 : c === 95 ? 36 : 37;
    if (sig[k]! < 255) sig[k]!++;
  }
  return sig;
}

/** A cheap necessary condition for `editDistance(a, b) <= max`, checked before the real thing. */
export function mayBeWithin(a: Uint8Array, b: Uint8Array, max: number): boolean {
  let diff = 0;
  for (let i = 0; i < SIG; i++) {
    diff += Math.abs(a[i]! - b[i]!);
    if (diff > 2 * max) return false;
  }
  return true;
}
