// The keyword scorer: BM25F impacts precomputed at build time, summed per query in one pass over
// the postings of the query's terms. Typos and prefixes go through the imported FlexSearch
// vocabulary index; synonyms through the build-time expansion table. Nothing is rebuilt here.
import { Document } from "flexsearch";
import { ToolbeltError } from "../errors.js";
import { COMMON_WORDS } from "./common-words.js";
import { sortedIndexOf } from "./sorted.js";
import { editDistance } from "../../../registry/contract/edit-distance.js";
import {
  encodeQuery,
  IMPACT_SCALE,
  pairs,
  SEARCH_INDEX_VERSION,
  vocabIndexOptions,
  QUOTED_TEXT,
  withoutLabelledInput,
  type SearchIndexData,
  type VocabRecord,
} from "../../../registry/contract/search-options.js";

/** Query-time knobs (no rebuild needed). */
export type QueryParams = {
  /** Weight of a vocabulary term reached by typo/prefix tolerance instead of the word itself. */
  fuzzyWeight: number;
  /** Boost for the share of a tool's name words the query contains: raw × (1 + nameBoost·coverage). */
  nameBoost: number;
  /** Calibration: score = 1 − exp(−raw / (scale · idfMax)), raw in units of one fully matched rarest word. */
  scale: number;
  /** For a multi-step query, the weight of each tool's best single-step score against the whole query's. */
  segmentWeight: number;
  /**
   * Multiplier of fuzzyWeight for a word the catalog lacks that is a real word: the build bridged it
   * (WordNet, lexicon or paraphrase entries) or lists it in `realWords`. Its typo matches are strays
   * ("summer" → summarize, "seat" → stat). 1 keeps them; 0 was measured and not adopted
   * (test/eval/README.md, "Fourth round").
   */
  bridgedFuzzy: number;
  /**
   * Factor on a query's scores when its top tool has search hints and the query hit none of the
   * tool's authored words itself (verdict.ts, `strayMatch`): 0.6 chosen on dev splits
   * (test/eval/README.md, "Fourth round", section 6); 1 turns the rule off.
   */
  hintStray: number;
  /**
   * Factor on a query's scores when its top tool has search hints, the query met the tool in one
   * word only, and another of its words is foreign to the catalog (no term, no expansion), or, when
   * that one word is not in the tool's name or aliases, another specific word (not everyday filler, not
   * data) is one the tool did not match: 0.8 chosen on dev splits (test/eval/README.md, "Fifth round",
   * "Sixth round: small catalogs"); 1 turns the rule off.
   */
  hintOneHit: number;
  /**
   * Factor on a query's scores when its top tool has search hints and the request meets the catalog in
   * everyday words only (no direct match on a specific word by the top tool or the two after it) while,
   * before its first preposition, it names something the catalog lacks ("get me the latest bitcoin price"
   * → kv.get, "list the restaurants open near me" → notes.get): 0.6 chosen on dev splits
   * (test/eval/README.md, "Sixth round: requests no tool serves"); 1 turns the rule off.
   */
  hintEveryday: number;
  /**
   * Task lifts (`liftTask`, on queries of several steps or many words; 0 turns each off). stepLift:
   * each step's clear best tool moves this share of the way to the top tool's score. familyLift: the
   * siblings of the top tool and of those step tools move this share of the way to their score.
   * 0.3 / 0.3: every public set rose (livemcpbench 39.4 -> 41.0, seal +0.5 to +0.7, MetaTool multi +2.0),
   * two own held-out sets fell by one rank each (test/eval/README.md, "Fifth round: ranking"). stepLift
   * 0.4 with the lexicon's capability weight: seal +0.1 to +0.15 more, livemcpbench 42.3 -> 42.5 ("Sixth round").
   */
  stepLift: number;
  familyLift: number;
};
export const DEFAULT_QUERY_PARAMS: QueryParams = {
  fuzzyWeight: 0.7,
  nameBoost: 0.5,
  scale: 1,
  segmentWeight: 0.5,
  bridgedFuzzy: 1,
  hintStray: 0.6,
  hintOneHit: 0.8,
  hintEveryday: 0.6,
  stepLift: 0.4,
  familyLift: 0.3,
};

/** The task lifts apply from this many query terms (a one-capability request keeps its ranking). */
const TASK_MIN_TERMS = 6;
/** A family holding more than this share of the catalog is not lifted (a mixed bag says nothing about a task). */
const FAMILY_MAX_SHARE = 0.25;
/**
 * A step whose best tool reaches this step score has a clear answer: that tool and its family are
 * lifted, and no lifted sibling passes it. The default min_score: such a tool is never under the floor.
 */
const CLEAR_STEP = 0.4;

type Member = { term: number; w: number };
type Group = { word: string; mask: number; members: Member[] };

/** Data a request brings rather than words: quoted text, and tokens holding a dot, slash, @ or digit between word characters. */
const DATA_TOKEN = new RegExp(String.raw`${QUOTED_TEXT.source}|\S*\w[./\\@]\w\S*|\S*[A-Za-z]\d\S*|\S*\d[A-Za-z]\S*`, "g");

/** Where a request's object ends: its first preposition ("flights | to rome", "the time | in Lima"). */
const PREPOSITION = /\b(?:in|on|at|for|of|from|to|until|till|since|about|into|with|by|near|after|before|during|between|under|over)\b/i;
/** A capitalized word after the first one: a name the request brings ("Lima", "Christmas"), not a word for what it asks. */
const INNER_NAME = /(?<=\S\s+)\p{Lu}[\p{L}'’]*/gu;

/** Steps of a task-shaped query scored separately (bits of a mask). */
const MAX_STEPS = 12;

/** Documents a query touched and their scores in [0,1] (valid only at those documents, until the next query). */
export type Ranked = { docs: number[]; score: Float64Array };

/**
 * A table's entry for a query word, own keys only: the tables are plain objects from JSON and a
 * word like "constructor" or "toString" must not answer with Object.prototype's function.
 * (A guard, not a Map: it keeps the artifact format and costs nothing at import.)
 */
export function ownList(table: Record<string, number[]>, key: string): readonly number[] {
  return Object.hasOwn(table, key) ? table[key]! : [];
}

export class Scorer {
  readonly docs: number;
  private readonly terms: string[];
  private readonly start: Uint32Array;
  private readonly idf: Float64Array;
  private readonly ids: Uint16Array | Uint32Array;
  private readonly imp: Uint16Array;
  private readonly expand: Record<string, number[]>;
  private readonly synonymWeight: number;
  private readonly related: Record<string, number[]>;
  private readonly lexiconWeight: number;
  private readonly capability: Record<string, number[]>;
  private readonly capabilityWeight: number;
  private readonly similar: Record<string, number[]>;
  private readonly realWords: readonly string[] | undefined;
  private readonly paraphraseWeight: number;
  private readonly idfMax: number;
  private readonly termWeight: Float64Array | undefined;
  private readonly nameTerms: number[][];
  private readonly nameMass: Float64Array;
  private readonly flexData: [string, string][];
  private flex: Document<VocabRecord> | undefined;
  private readonly fuzzyCache = new Map<string, Member[]>();
  // Scratch space reused across queries; stamps stand in for clearing arrays.
  private readonly acc: Float64Array;
  private readonly best: Float64Array;
  private readonly stepAcc: Float64Array;
  private readonly out: Float64Array;
  private readonly groupStamp: Uint32Array;
  private readonly passStamp: Uint32Array;
  private readonly termStamp: Uint32Array;
  private readonly termMask: Uint32Array;
  private readonly stepRaw = new Float64Array(MAX_STEPS);
  private stamp = 0;
  /** Per tool, its family's number; per family, its tools (famDocs[famStart[f]…famStart[f+1]]). */
  private readonly family: Uint32Array | undefined;
  private readonly famStart: Uint32Array;
  private readonly famDocs: Uint32Array;

  constructor(
    data: SearchIndexData,
    readonly params: QueryParams = DEFAULT_QUERY_PARAMS,
    /** Per tool, its family's number (0…families−1); without it there is no family lift. */
    family?: Uint32Array,
  ) {
    if (data.version !== SEARCH_INDEX_VERSION) {
      throw new ToolbeltError("INTERNAL", `search index version ${data.version}, this runtime reads ${SEARCH_INDEX_VERSION}: rebuild the artifact`);
    }
    const n = data.docs;
    this.docs = n;
    this.terms = data.terms;
    this.start = new Uint32Array(data.terms.length + 1);
    data.df.forEach((df, i) => (this.start[i + 1] = this.start[i]! + df));
    const N = Math.max(1, n);
    this.idf = Float64Array.from(data.df, (df) => Math.log((N - df + 0.5) / (df + 0.5) + 1));
    this.idfMax = Math.log((N - 1 + 0.5) / 1.5 + 1);
    const ids = new Uint8Array(Buffer.from(data.postings, "base64")); // aligned copy for the typed views
    this.ids = n < 65536 ? new Uint16Array(ids.buffer, 0, ids.byteLength / 2) : new Uint32Array(ids.buffer, 0, ids.byteLength / 4);
    const imp = new Uint8Array(Buffer.from(data.impacts, "base64"));
    this.imp = new Uint16Array(imp.buffer, 0, imp.byteLength / 2);
    this.expand = data.expand;
    this.synonymWeight = data.params.synonymWeight;
    this.related = data.related;
    this.lexiconWeight = data.params.lexiconWeight ?? 0;
    this.capability = data.capability ?? {};
    this.capabilityWeight = data.params.capabilityWeight ?? 0;
    this.similar = data.similar ?? {};
    this.realWords = data.realWords;
    this.paraphraseWeight = data.params.paraphraseWeight ?? 0;
    this.nameTerms = data.nameTerms;
    this.termWeight = data.termWeight.length ? Float64Array.from(data.termWeight, (w) => w / 100) : undefined;
    this.nameMass = Float64Array.from(data.nameTerms, (ts) => ts.reduce((s, t) => s + this.idf[t]!, 0));
    this.flexData = data.flex;
    this.acc = new Float64Array(n);
    this.best = new Float64Array(n);
    this.stepAcc = new Float64Array(n * MAX_STEPS);
    this.out = new Float64Array(n);
    this.groupStamp = new Uint32Array(n);
    this.passStamp = new Uint32Array(n);
    this.termStamp = new Uint32Array(data.terms.length);
    this.termMask = new Uint32Array(data.terms.length);
    this.family = family;
    const families = family ? family.reduce((m, f) => Math.max(m, f + 1), 0) : 0;
    this.famStart = new Uint32Array(families + 1);
    for (const f of family ?? []) this.famStart[f + 1]!++;
    for (let f = 0; f < families; f++) this.famStart[f + 1]! += this.famStart[f]!;
    this.famDocs = new Uint32Array(family?.length ?? 0);
    const fill = this.famStart.slice(0, families);
    family?.forEach((f, d) => (this.famDocs[fill[f]!++] = d));
  }

  /** Id of a vocabulary term: the build sorts the terms, so a binary search (no map to build at import). */
  private termOf(t: string): number | undefined {
    return sortedIndexOf(this.terms, t);
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

  /** Vocabulary terms a word the catalog does not contain most likely meant (FlexSearch candidates within a small edit distance). */
  private fuzzy(word: string): Member[] {
    if (!/^[a-z][a-z0-9]{3,}$/.test(word)) return [];
    const cached = this.fuzzyCache.get(word);
    if (cached) return cached;
    const res = this.loadFuzzy().search(word, { limit: 100, suggest: true }) as unknown as { result: number[] }[];
    const maxEd = word.length >= 8 ? 2 : 1;
    const found: Member[] = [];
    for (const id of new Set(res.flatMap((r) => r.result))) {
      const t = this.terms[id]!;
      const ed = editDistance(word, t, maxEd);
      if (ed <= maxEd) found.push({ term: id, w: this.params.fuzzyWeight * (ed <= 1 ? 1 : 0.8) });
      else if (t.startsWith(word)) found.push({ term: id, w: this.params.fuzzyWeight * 0.8 });
    }
    const top = found.sort((a, b) => b.w - a.w || this.idf[b.term]! - this.idf[a.term]! || a.term - b.term).slice(0, 3);
    if (this.fuzzyCache.size < 20_000) this.fuzzyCache.set(word, top);
    return top;
  }

  /** Query words (encoded, each once) with the steps they occur in, as a bit mask. */
  private groups(steps: string[]): Group[] {
    const mask = new Map<string, number>();
    steps.forEach((step, i) => {
      const terms = encodeQuery(step);
      for (const t of terms) mask.set(t, (mask.get(t) ?? 0) | (1 << i));
      for (const t of pairs(terms)) if (this.termOf(t) !== undefined) mask.set(t, (mask.get(t) ?? 0) | (1 << i));
    });
    const groups: Group[] = [];
    for (const [t, m] of mask) {
      const exact = this.termOf(t);
      const members: Member[] = exact !== undefined ? [{ term: exact, w: 1 }] : this.typoMembers(t);
      if (this.synonymWeight > 0) {
        for (const id of ownList(this.expand, t)) if (id !== exact) members.push({ term: id, w: this.synonymWeight });
      }
      if (this.lexiconWeight > 0) this.addRelated(members, ownList(this.related, t), exact, this.lexiconWeight);
      if (this.capabilityWeight > 0) this.addRelated(members, ownList(this.capability, t), exact, this.capabilityWeight);
      if (this.paraphraseWeight > 0) this.addRelated(members, ownList(this.similar, t), exact, this.paraphraseWeight);
      if (members.length) groups.push({ word: t, mask: m, members });
    }
    return groups;
  }

  /** Typo candidates of a word the catalog lacks, weighed down (bridgedFuzzy) when the build bridged the word as a real one. */
  private typoMembers(t: string): Member[] {
    const k = this.params.bridgedFuzzy;
    // At the default (1) every unknown word keeps its typo matches: no look-ups on the hot path.
    if (k === 1 || !this.isRealWord(t)) return [...this.fuzzy(t)];
    return k > 0 ? this.fuzzy(t).map((m) => ({ term: m.term, w: m.w * k })) : [];
  }

  /** A word the catalog lacks that the build bridged (WordNet, lexicon, paraphrase table) or lists in `realWords`. */
  private isRealWord(t: string): boolean {
    return (
      ownList(this.expand, t).length > 0 ||
      ownList(this.related, t).length > 0 ||
      ownList(this.capability, t).length > 0 ||
      ownList(this.similar, t).length > 0 ||
      (this.realWords !== undefined && sortedIndexOf(this.realWords, t) !== undefined)
    );
  }

  /**
   * Whether a query has two or more words and one of them is foreign: the catalog cannot reach it (no
   * term, no expansion; typo matches aside) and it is not everyday filler ("much", "left"). Data the
   * request brings (a file name, path, version or address: a token with a dot, slash, @ or digit;
   * quoted text; the input after a label, "hash: hello world") is the input, not a word for something
   * outside the catalog ("setup.py" is no foreign "py").
   */
  oneOfManyWithForeign(query: string): boolean {
    return this.otherWords(query).some((t) => this.termOf(t) === undefined && !this.isRealWord(t));
  }

  /** Whether a query has two or more words and another of them, not data and not everyday filler, is one the top tool did not match (`matched`: encoded words). */
  oneOfManyWithUnmatched(query: string, matched: ReadonlySet<string>): boolean {
    return this.otherWords(query).some((t) => !matched.has(t));
  }

  /**
   * Whether a request names, before its first preposition (what it asks for, not where or when: "show me
   * flights | to rome"), a specific word the catalog lacks (no term) and the top tool did not match
   * (`matched`: encoded words, expansions included). A capitalized word inside the request is a name it
   * brings ("in Lima"), data like a file name.
   */
  unknownObject(query: string, matched: ReadonlySet<string>): boolean {
    const head = query.split(PREPOSITION)[0]!;
    return this.otherWords(head, true).some((t) => !matched.has(t) && this.termOf(t) === undefined);
  }

  /** A query's own words that are not everyday filler (data and, with `names`, capitalized names left out), when it has two or more words; else none. */
  private otherWords(query: string, names = false): string[] {
    if (new Set(encodeQuery(query)).size < 2) return [];
    const text = withoutLabelledInput(query).replace(DATA_TOKEN, " ");
    return [...new Set(encodeQuery(names ? text.replace(INNER_NAME, " ") : text))].filter((t) => !COMMON_WORDS.has(t));
  }

  /** Add expansion terms at weight `w`; a term already a member keeps the better of the two weights. */
  private addRelated(members: Member[], ids: readonly number[], exact: number | undefined, w: number): void {
    for (const id of ids) {
      if (id === exact) continue;
      const had = members.find((m) => m.term === id);
      if (had) had.w = Math.max(had.w, w);
      else members.push({ term: id, w });
    }
  }

  /**
   * For explain: each encoded query word (phrase pairs left out) with the vocabulary terms it can
   * match, the word itself first, then its expansions (typo, synonym, lexicon, paraphrase), strongest first.
   */
  matchable(query: string): { term: string; reach: string[] }[] {
    return this.groups([query])
      .filter((g) => !g.word.includes(" "))
      .map((g) => ({ term: g.word, reach: [...g.members].sort((a, b) => b.w - a.w || a.term - b.term).map((m) => this.terms[m.term]!) }));
  }

  /**
   * Score a query in one pass over the postings of its words. A word contributes the best of its
   * members (the word, a typo match, a synonym), so expansions never count twice. A task-shaped
   * query (several steps) also gets each step's score, and a tool keeps its best step, blended with
   * the whole query's score, so one step's words cannot drown another's.
   * The raw evidence is calibrated to [0,1] against the catalog's rarest word (1 − exp(−raw / idfMax)),
   * so one `min_score` means the same for every query and catalog size. Tools that cannot reach
   * `minScore` get 0.
   */
  rank(query: string, stepTexts: string[] = [], minScore = 0): Ranked {
    // Steps beyond the mask width are merged into the last one.
    const steps = stepTexts.length > 1 ? stepTexts.slice(0, MAX_STEPS) : [query];
    if (stepTexts.length > MAX_STEPS) steps[MAX_STEPS - 1] = stepTexts.slice(MAX_STEPS - 1).join(". ");
    const S = steps.length;
    const groups = this.groups(steps);
    const docs: number[] = [];
    const out = this.out;
    if (!groups.length) return { docs, score: out };
    const ps = ++this.stamp;
    const { acc, best, stepAcc, groupStamp, passStamp, ids, imp, start, termStamp, termMask } = this;
    const unit = this.params.scale * this.idfMax;
    const boost = this.params.nameBoost;
    const task = groups.length >= TASK_MIN_TERMS;
    const familyLift = task && this.family ? this.params.familyLift : 0;
    const stepLift = task && S > 1 ? this.params.stepLift : 0;
    const lifts = familyLift > 0 || stepLift > 0;
    // A tool whose whole-query evidence, fully boosted, stays under min_score cannot reach it. With a
    // task lift, not above the clear-step score (so every step's clear best tool is scored exactly).
    const reach = lifts ? Math.min(minScore, CLEAR_STEP) : minScore;
    const floor = reach > 0 && reach < 1 ? (-Math.log(1 - reach) * unit) / (1 + boost) : 0;
    // MaxScore: the weakest words, whose summed upper bounds stay under the floor, cannot lift a
    // tool there on their own; they only add to tools the stronger words found (exact scores for
    // every tool that can reach min_score, and far fewer tools touched for common words).
    const bound = groups.map((g) => Math.max(...g.members.map((m) => this.weight(m))));
    const order = groups.map((_, i) => i).sort((a, b) => bound[a]! - bound[b]! || a - b);
    let weak = 0;
    let weakSum = 0;
    for (; weak < order.length && weakSum + bound[order[weak]!]! < floor; weak++) weakSum += bound[order[weak]!]!;
    const sequence = [...order.slice(weak).reverse(), ...order.slice(0, weak)];
    for (let k = 0; k < sequence.length; k++) {
      const g = groups[sequence[k]!]!;
      const onlyKnown = k >= sequence.length - weak;
      const gs = ++this.stamp;
      const gm = g.mask;
      // The hot loop: a word of one member and one step (most words of most queries) skips the
      // best-of-members bookkeeping and the walk over the step bits.
      const single = g.members.length === 1;
      const oneStep = S > 1 && (gm & (gm - 1)) === 0 ? 31 - Math.clz32(gm) : -1;
      for (const m of g.members) {
        if (m.w >= this.params.fuzzyWeight * 0.8) {
          termMask[m.term] = termStamp[m.term] === ps ? termMask[m.term]! | gm : gm;
          termStamp[m.term] = ps;
        }
        const f = this.weight(m) / IMPACT_SCALE;
        for (let p = start[m.term]!, end = start[m.term + 1]!; p < end; p++) {
          const d = ids[p]!;
          let v = f * imp[p]!;
          if (passStamp[d] !== ps) {
            if (onlyKnown) continue;
            passStamp[d] = ps;
            acc[d] = 0;
            if (S > 1) for (let s = d * MAX_STEPS, e = s + S; s < e; s++) stepAcc[s] = 0;
            docs.push(d);
          }
          if (!single) {
            if (groupStamp[d] !== gs) {
              groupStamp[d] = gs;
              best[d] = v;
            } else if (v > best[d]!) {
              const gain = v - best[d]!;
              best[d] = v;
              v = gain;
            } else continue;
          }
          acc[d] = acc[d]! + v;
          if (oneStep >= 0) stepAcc[d * MAX_STEPS + oneStep] = stepAcc[d * MAX_STEPS + oneStep]! + v;
          else if (S > 1) {
            for (let s = 0, bits = gm; bits; s++, bits >>>= 1) {
              if (bits & 1) stepAcc[d * MAX_STEPS + s] = stepAcc[d * MAX_STEPS + s]! + v;
            }
          }
        }
      }
    }
    const w = S > 1 ? this.params.segmentWeight : 0;
    // Each step's best tool by its step's evidence (for the task lifts only).
    const stepTop = new Int32Array(lifts && w > 0 ? S : 0).fill(-1);
    const stepTopRaw = new Float64Array(stepTop.length);
    let top = -1;
    for (const d of docs) {
      // Steps score at most the whole, so under the floor there is no finishing work to do.
      if (acc[d]! < floor) {
        out[d] = 0;
        continue;
      }
      out[d] = this.finish(d, S, w, ps);
      if (lifts && out[d]! > 0 && (top < 0 || out[d]! > out[top]!)) top = d;
      for (let s = 0; s < stepTop.length; s++) {
        if (this.stepRaw[s]! > stepTopRaw[s]!) {
          stepTopRaw[s] = this.stepRaw[s]!;
          stepTop[s] = d;
        }
      }
    }
    // A top under min_score shows nothing, lifted or not (and may not be the true top: the floor pruned).
    if (lifts && top >= 0 && out[top]! >= minScore) {
      const weakGroups = order.slice(0, weak).map((i) => groups[i]!);
      const clearRaw = -Math.log(1 - CLEAR_STEP) * unit;
      const clear = [...new Set(stepTop.filter((d, s) => d >= 0 && stepTopRaw[s]! >= clearRaw))];
      this.liftTask({ docs, top, familyLift, stepLift, minScore, floor, weakGroups, weakSum, S, w, ps, clear });
    }
    return { docs, score: out };
  }

  /**
   * A tool's score from its accumulated evidence, with the name-coverage boost; a task-shaped query
   * blends in the tool's best step. Leaves each step's boosted evidence in `stepRaw`.
   */
  private finish(d: number, S: number, w: number, ps: number): number {
    const { acc, stepAcc, idf, termStamp, termMask, stepRaw } = this;
    const unit = this.params.scale * this.idfMax;
    const boost = this.params.nameBoost;
    // Name coverage: "water quality" in the query says more about getWaterQuality than about a
    // tool whose description mentions water once.
    const mass = this.nameMass[d]!;
    let hit = 0;
    for (let s = 0; s < S; s++) stepRaw[s] = 0;
    if (boost && mass > 0) {
      for (const t of this.nameTerms[d]!) {
        if (termStamp[t] !== ps) continue;
        hit += idf[t]!;
        if (S > 1) for (let s = 0, bits = termMask[t]!; bits; s++, bits >>>= 1) if (bits & 1) stepRaw[s] = stepRaw[s]! + idf[t]!;
      }
    }
    const whole = 1 - Math.exp(-(acc[d]! * (1 + (boost * hit) / (mass || 1))) / unit);
    if (w === 0) return whole;
    let stepBest = 0;
    for (let s = 0; s < S; s++) {
      const raw = stepAcc[d * MAX_STEPS + s]! * (1 + (boost * stepRaw[s]!) / (mass || 1));
      stepRaw[s] = raw;
      if (raw > stepBest) stepBest = raw;
    }
    return w * (1 - Math.exp(-stepBest / unit)) + (1 - w) * whole;
  }

  /**
   * A task needs a tool per step, often several of one server (create a document, add a paragraph,
   * convert it to PDF), and a step's words seldom name all of them. Each step's clear best tool moves
   * `stepLift` of the way to the top tool's score (one step's words no longer drown another's), then
   * the siblings of the top tool and of those step tools (the heads) move `familyLift` of the way to
   * their head's score, never past a clear step's best tool (another step may need another family).
   * The top tool keeps its score, so the verdict's input does not change. Siblings the MaxScore
   * floor pruned are scored exactly here (a family is small), so the tools shown at a min_score are
   * the unpruned ranking's above it, and the floor, the saving on common words, stays as it is.
   */
  private liftTask(q: {
    docs: number[];
    top: number;
    familyLift: number;
    stepLift: number;
    minScore: number;
    floor: number;
    weakGroups: Group[];
    /** The weak words' summed upper bounds: all the evidence a tool they alone touched can have. */
    weakSum: number;
    S: number;
    w: number;
    ps: number;
    clear: number[];
  }): void {
    const { out, acc, passStamp, famStart, famDocs } = this;
    const { docs, top, familyLift: lift, S, w, ps, clear } = q;
    for (const d of clear) if (d !== top) out[d] = out[d]! + q.stepLift * (out[top]! - out[d]!);
    if (lift === 0) return;
    const family = this.family!;
    // Weak words alone give a tool at most sMax: look up untouched siblings only when, lifted, that could reach min_score.
    const sMax = 1 - Math.exp(-(q.weakSum * (1 + this.params.nameBoost)) / (this.params.scale * this.idfMax));
    let cap = Infinity;
    for (const d of clear) cap = Math.min(cap, out[d]!);
    const heads = [top, ...clear];
    for (const f of new Set(heads.map((d) => family[d]!))) {
      const from = famStart[f]!;
      const to = famStart[f + 1]!;
      if (to - from > FAMILY_MAX_SHARE * this.docs) continue;
      const head = Math.max(...heads.filter((d) => family[d] === f).map((d) => out[d]!));
      const lookUp = q.weakGroups.length > 0 && sMax + lift * (head - sMax) >= q.minScore;
      for (let i = from; i < to; i++) {
        const d = famDocs[i]!;
        if (passStamp[d] === ps) {
          if (acc[d]! < q.floor) out[d] = this.finish(d, S, w, ps);
        } else if (lookUp && this.accumulate(d, q.weakGroups, S)) {
          passStamp[d] = ps;
          docs.push(d);
          out[d] = this.finish(d, S, w, ps);
        }
        const s = out[d]!;
        if (passStamp[d] !== ps || s <= 0 || s >= head) continue;
        const lifted = s + lift * (head - s);
        out[d] = lifted < cap || clear.includes(d) ? lifted : Math.max(s, cap * (1 - 1e-9));
      }
    }
  }

  /** A query word's weight through one member (the word, a typo match, an expansion). */
  private weight(m: Member): number {
    return m.w * (this.termWeight?.[m.term] ?? 1) * this.idf[m.term]!;
  }

  /**
   * Evidence for one tool from the given words, by binary search in their postings (sorted by tool):
   * the exact sum the main pass would have made. Returns whether any word touched the tool.
   */
  private accumulate(d: number, groups: Group[], S: number): boolean {
    const { acc, stepAcc, ids, imp, start } = this;
    acc[d] = 0;
    if (S > 1) stepAcc.fill(0, d * MAX_STEPS, d * MAX_STEPS + S);
    let touched = false;
    for (const g of groups) {
      let v = 0;
      for (const m of g.members) {
        const p = sortedIndexOf(ids, d, start[m.term]!, start[m.term + 1]!);
        if (p !== undefined) v = Math.max(v, (this.weight(m) / IMPACT_SCALE) * imp[p]!);
      }
      if (v === 0) continue;
      touched = true;
      acc[d] = acc[d]! + v;
      if (S > 1) for (let s = 0, bits = g.mask; bits; s++, bits >>>= 1) if (bits & 1) stepAcc[d * MAX_STEPS + s] = stepAcc[d * MAX_STEPS + s]! + v;
    }
    return touched;
  }
}
