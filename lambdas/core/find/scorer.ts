// The keyword scorer: BM25F impacts precomputed at build time, summed per query in one pass over
// the postings of the query's terms. Typos and prefixes go through the imported FlexSearch
// vocabulary index; synonyms through the build-time expansion table. Nothing is rebuilt here.
import { Document } from "flexsearch";
import {
  encodeQuery,
  IMPACT_SCALE,
  SEARCH_INDEX_VERSION,
  vocabIndexOptions,
  type SearchIndexData,
  type VocabRecord,
} from "../../../registry/contract/search-options.js";

/** Query-time knobs (no rebuild needed). */
export type QueryParams = {
  /** Weight of a vocabulary term reached by typo/prefix tolerance instead of the word itself. */
  fuzzyWeight: number;
  /** Share of a fully unknown word's weight kept in the normalizer: unknown words lower the score this much. */
  unknownWeight: number;
  /** A word repeated in the query counts once (1) or per occurrence (0). */
  uniqueTerms: number;
  /** Boost for the share of a tool's name words the query contains: raw × (1 + nameBoost·coverage). */
  nameBoost: number;
  /** Calibration: score = 1 − exp(−raw / (scale · idfMax)), raw in units of one fully matched rarest word. */
  scale: number;
  /** For a multi-step query, the weight of each tool's best single-step score against the whole query's. */
  segmentWeight: number;
};
export const DEFAULT_QUERY_PARAMS: QueryParams = { fuzzyWeight: 0.7, unknownWeight: 0.5, uniqueTerms: 1, nameBoost: 0.5, scale: 1, segmentWeight: 0.5 };

type Member = { term: number; w: number };
type Group = { qw: number; den: number; members: Member[] };

export type Scored = { doc: number; score: number };

function osa(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const m = a.length;
  const n = b.length;
  let prev2 = new Array<number>(n + 1).fill(0);
  let prev = Array.from({ length: n + 1 }, (_, j) => j);
  for (let i = 1; i <= m; i++) {
    const cur = new Array<number>(n + 1);
    cur[0] = i;
    let rowMin = i;
    for (let j = 1; j <= n; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, prev2[j - 2]! + 1);
      cur[j] = v;
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > max) return max + 1;
    prev2 = prev;
    prev = cur;
  }
  return prev[n]!;
}

export class Scorer {
  readonly docs: number;
  private readonly termId: Map<string, number>;
  private readonly terms: string[];
  private readonly start: Uint32Array;
  private readonly idf: Float64Array;
  private readonly ids: Uint16Array | Uint32Array;
  private readonly imp: Uint16Array;
  private readonly expand: Record<string, number[]>;
  private readonly synonymWeight: number;
  private readonly idfMax: number;
  private readonly nameTerms: number[][];
  private readonly nameMass: Float64Array;
  private readonly flexData: [string, string][];
  private flex: Document<VocabRecord> | undefined;
  // Scratch space reused across queries: stamps avoid clearing arrays per query.
  private readonly acc: Float64Array;
  private readonly best: Float64Array;
  private readonly groupStamp: Uint32Array;
  private readonly queryStamp: Uint32Array;
  private stamp = 0;
  /** Per document, what a query made of all its terms would score (for the verdict's document coverage). */
  readonly docMass: Float64Array;
  /** The normalizer of the last query (diagnostics for the eval). */
  lastDen = 0;
  lastGroups = 0;

  constructor(data: SearchIndexData, readonly params: QueryParams = DEFAULT_QUERY_PARAMS) {
    if (data.version !== SEARCH_INDEX_VERSION) {
      throw new Error(`search index version ${data.version}, this runtime reads ${SEARCH_INDEX_VERSION}: rebuild the artifact`);
    }
    const n = data.docs;
    this.docs = n;
    this.terms = data.terms;
    this.termId = new Map(data.terms.map((t, i) => [t, i]));
    this.start = new Uint32Array(data.terms.length + 1);
    data.df.forEach((df, i) => (this.start[i + 1] = this.start[i]! + df));
    const N = Math.max(1, n);
    this.idf = Float64Array.from(data.df, (df) => Math.log((N - df + 0.5) / (df + 0.5) + 1));
    this.idfMax = Math.log((N - 1 + 0.5) / 1.5 + 1);
    const raw = Buffer.from(data.postings, "base64");
    const copy = new Uint8Array(raw); // aligned copy for the typed views
    this.ids = n < 65536 ? new Uint16Array(copy.buffer, 0, copy.byteLength / 2) : new Uint32Array(copy.buffer, 0, copy.byteLength / 4);
    const rawImp = new Uint8Array(Buffer.from(data.impacts, "base64"));
    this.imp = new Uint16Array(rawImp.buffer, 0, rawImp.byteLength / 2);
    this.expand = data.expand;
    this.synonymWeight = data.params.synonymWeight;
    this.flexData = data.flex;
    this.nameTerms = data.nameTerms;
    this.nameMass = Float64Array.from(data.nameTerms, (ts) => ts.reduce((s, t) => s + this.idf[t]!, 0));
    this.acc = new Float64Array(n);
    this.best = new Float64Array(n);
    this.groupStamp = new Uint32Array(n);
    this.queryStamp = new Uint32Array(n);
    this.docMass = new Float64Array(n);
    for (let t = 0; t < data.terms.length; t++) {
      for (let p = this.start[t]!, end = this.start[t + 1]!; p < end; p++) {
        const d = this.ids[p]!;
        this.docMass[d] = this.docMass[d]! + (this.idf[t]! * this.imp[p]!) / IMPACT_SCALE;
      }
    }
  }

  /** Import the FlexSearch vocabulary index (once; only queries with unknown words need it). */
  loadFuzzy(): Document<VocabRecord> {
    if (!this.flex) {
      const doc = new Document<VocabRecord>(vocabIndexOptions());
      for (const [k, v] of this.flexData) doc.import(k, v);
      this.flex = doc;
    }
    return this.flex;
  }

  /** Vocabulary terms a word the catalog does not contain most likely meant. */
  private fuzzy(word: string): Member[] {
    if (!/^[a-z][a-z0-9]{3,}$/.test(word)) return [];
    const res = this.loadFuzzy().search(word, { limit: 100, suggest: true }) as unknown as { result: number[] }[];
    const maxEd = word.length >= 8 ? 2 : 1;
    const found: Member[] = [];
    for (const id of new Set(res.flatMap((r) => r.result))) {
      const t = this.terms[id]!;
      const ed = osa(word, t, maxEd);
      if (ed <= maxEd) found.push({ term: id, w: this.params.fuzzyWeight * (ed <= 1 ? 1 : 0.8) });
      else if (t.startsWith(word) && word.length >= 4) found.push({ term: id, w: this.params.fuzzyWeight * 0.8 });
    }
    return found.sort((a, b) => b.w - a.w || this.idf[b.term]! - this.idf[a.term]!).slice(0, 3);
  }

  private groups(query: string): Group[] {
    const qtf = new Map<string, number>();
    for (const t of encodeQuery(query)) qtf.set(t, (qtf.get(t) ?? 0) + 1);
    const groups: Group[] = [];
    for (const [t, count] of qtf) {
      const qw = this.params.uniqueTerms ? 1 : count;
      const exact = this.termId.get(t);
      const members: Member[] = exact !== undefined ? [{ term: exact, w: 1 }] : this.fuzzy(t);
      if (this.synonymWeight > 0) {
        for (const id of this.expand[t] ?? []) {
          if (id !== exact) members.push({ term: id, w: this.synonymWeight });
        }
      }
      let den: number;
      if (exact !== undefined) den = this.idf[exact]!;
      else if (members.length) den = Math.max(...members.map((m) => this.idf[m.term]!), this.idfMax * this.params.unknownWeight);
      else den = this.idfMax * this.params.unknownWeight;
      groups.push({ qw, den, members });
    }
    return groups;
  }

  /**
   * Score every document that shares a term with the query. A query word contributes the best of
   * its members (the word, a typo match, a synonym) so expansions never count twice; the sum is
   * divided by what a document matching every word fully would get, so scores lie in [0,1] and
   * mean the same across queries.
   */
  score(query: string): Scored[] {
    const groups = this.groups(query);
    const den = groups.reduce((s, g) => s + g.qw * g.den, 0);
    this.lastDen = den;
    this.lastGroups = groups.length;
    if (den <= 0) return [];
    const q = ++this.stamp;
    const touched: number[] = [];
    const { acc, best, groupStamp, queryStamp, ids, imp, start, idf } = this;
    for (const g of groups) {
      const gs = ++this.stamp;
      for (const m of g.members) {
        const f = (g.qw * m.w * idf[m.term]!) / IMPACT_SCALE;
        for (let p = start[m.term]!, end = start[m.term + 1]!; p < end; p++) {
          const d = ids[p]!;
          const v = f * imp[p]!;
          if (queryStamp[d] !== q) {
            queryStamp[d] = q;
            acc[d] = 0;
            touched.push(d);
          }
          if (groupStamp[d] !== gs) {
            groupStamp[d] = gs;
            best[d] = v;
            acc[d] = acc[d]! + v;
          } else if (v > best[d]!) {
            acc[d] = acc[d]! + v - best[d]!;
            best[d] = v;
          }
        }
      }
    }
    // Name coverage: "water quality" in the query says more about getWaterQuality than about a tool
    // whose description mentions water once.
    const qset = new Set<number>();
    for (const g of groups) for (const m of g.members) if (m.w >= this.params.fuzzyWeight * 0.8) qset.add(m.term);
    const unit = this.params.scale * this.idfMax;
    const out: Scored[] = new Array(touched.length);
    for (let i = 0; i < touched.length; i++) {
      const d = touched[i]!;
      let raw = acc[d]!;
      const nm = this.nameMass[d]!;
      if (this.params.nameBoost && nm > 0) {
        let hit = 0;
        for (const t of this.nameTerms[d]!) if (qset.has(t)) hit += idf[t]!;
        raw *= 1 + (this.params.nameBoost * hit) / nm;
      }
      out[i] = { doc: d, score: 1 - Math.exp(-raw / unit) };
    }
    return out;
  }
}
