// The selection every stage shares: the k best of the touched tools, without sorting them all.

/** Whether document a ranks below b: lower tier, else lower score, else later in the catalog. */
function weaker(tier: (d: number) => number, score: Float64Array, a: number, b: number): boolean {
  const ta = tier(a);
  const tb = tier(b);
  return ta < tb || (ta === tb && (score[a]! < score[b]! || (score[a] === score[b] && a > b)));
}

/** Restores the min-heap below position i. (Module functions, not closures per call: a find calls topK several times.) */
function down(heap: number[], tier: (d: number) => number, score: Float64Array, i: number): void {
  for (;;) {
    const l = 2 * i + 1;
    const r = l + 1;
    let m = i;
    if (l < heap.length && weaker(tier, score, heap[l]!, heap[m]!)) m = l;
    if (r < heap.length && weaker(tier, score, heap[r]!, heap[m]!)) m = r;
    if (m === i) return;
    const t = heap[i]!;
    heap[i] = heap[m]!;
    heap[m] = t;
    i = m;
  }
}

/**
 * The k best documents among those `accept` lets through: by tier first (a callable tool before one
 * the gateway cannot run), then score, ties in catalog order.
 */
export function topK(docs: number[], score: Float64Array, tier: (d: number) => number, k: number, accept: (d: number) => boolean): number[] {
  const heap: number[] = []; // min-heap on (tier, score, -doc): the root is the weakest kept
  // The root (weakest kept) is read once per change, not once per document: most documents of a large
  // ranking are weaker than it, and each check then costs one tier and one score.
  let rootTier = -Infinity;
  let rootScore = -Infinity;
  for (const d of docs) {
    if (heap.length === k) {
      const t = tier(d);
      if (t < rootTier || (t === rootTier && (score[d]! < rootScore || (score[d] === rootScore && d > heap[0]!)))) continue;
      // NaN scores and equal documents fall through to the exact comparison.
      if (!weaker(tier, score, heap[0]!, d)) continue;
    }
    if (!accept(d)) continue;
    if (heap.length < k) {
      heap.push(d);
      for (let i = heap.length - 1; i > 0; ) {
        const p = (i - 1) >> 1;
        if (!weaker(tier, score, heap[i]!, heap[p]!)) break;
        const t = heap[i]!;
        heap[i] = heap[p]!;
        heap[p] = t;
        i = p;
      }
    } else {
      heap[0] = d;
      down(heap, tier, score, 0);
    }
    if (heap.length === k) {
      rootTier = tier(heap[0]!);
      rootScore = score[heap[0]!]!;
    }
  }
  return heap.sort((a, b) => (weaker(tier, score, a, b) ? 1 : weaker(tier, score, b, a) ? -1 : 0));
}
