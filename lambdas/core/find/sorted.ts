// One binary search for the find core's sorted arrays (the vocabulary, posting lists).

/** Index of `value` in `sorted[lo, hi)` (ascending), or undefined when it is not there. */
export function sortedIndexOf<T extends string | number>(sorted: ArrayLike<T>, value: T, lo = 0, hi = sorted.length): number | undefined {
  const end = hi;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo < end && sorted[lo] === value ? lo : undefined;
}
