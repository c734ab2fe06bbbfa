// The one edit distance of the project: Damerau-Levenshtein (optimal string alignment), banded and
// bounded so that scanning a large catalog for near-misses stays cheap: only cells within `max` of
// the diagonal are computed. Call resolution, find's typo tolerance and the build's "did you mean"
// hints all use it.
let rows: Int32Array[] = [new Int32Array(64), new Int32Array(64), new Int32Array(64)];

/** Edit distance with adjacent transpositions; returns `max + 1` as soon as the distance must exceed `max`. */
export function editDistance(a: string, b: string, max: number): number {
  const n = a.length;
  const m = b.length;
  if (Math.abs(n - m) > max) return max + 1;
  if (a === b) return 0;
  if (m + 2 > rows[0]!.length) rows = [0, 1, 2].map(() => new Int32Array(2 * (m + 2)));
  const BIG = max + 1;
  let [prev2, prev, cur] = rows as [Int32Array, Int32Array, Int32Array];
  for (let j = 0; j <= m; j++) prev[j] = j <= max ? j : BIG;
  for (let i = 1; i <= n; i++) {
    const lo = Math.max(1, i - max);
    const hi = Math.min(m, i + max);
    cur[0] = i <= max ? i : BIG;
    if (lo > 1) cur[lo - 1] = BIG;
    let rowMin = cur[0]!;
    const ai = a.charCodeAt(i - 1);
    for (let j = lo; j <= hi; j++) {
      const bj = b.charCodeAt(j - 1);
      let d = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (ai === bj ? 0 : 1));
      if (i > 1 && j > 1 && ai === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === bj) d = Math.min(d, prev2[j - 2]! + 1);
      cur[j] = d > BIG ? BIG : d;
      if (d < rowMin) rowMin = d;
    }
    if (hi < m) cur[hi + 1] = BIG;
    if (rowMin > max) return BIG;
    [prev2, prev, cur] = [prev, cur, prev2];
  }
  const d = prev[m]!;
  return d > max ? BIG : d;
}
