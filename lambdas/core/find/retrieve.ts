// Stage 2, retrieve: BM25F impacts precomputed at build time, summed per query in one pass over the
// postings of the query's words (MaxScore: the weakest words only add to tools the stronger ones
// found), then calibrated to [0,1] with the name-coverage boost and, for a task of several steps,
// each tool's best step blended in. Nothing is rebuilt here.
import { IMPACT_SCALE } from "../../../registry/contract/search-options.js";
import type { Analysis, Group, Member } from "./analyse.js";
import type { SearchIndex } from "./postings.js";
import type { WorkUnits } from "./work.js";
import { STAGE_LIMITS, type QueryParams } from "../../../registry/contract/find-tuning.js";

const MAX_STEPS = STAGE_LIMITS.maxSteps;

// A pass's state of a tool, one row of `rows` (width STEP + steps): its evidence, its word's best member
// so far and that word's stamp, then each step's evidence. One row, not five arrays: the pass updates a
// tool at every posting, and a row is one or two cache lines where the arrays were five (10k profile).
const ACC = 0;
const BEST = 1;
const GROUP = 2;
const STEP = 3;

/** The tools a ranking hands on (those it scored, see Retriever.addFamilies) and their scores in [0,1] (valid only at those tools, until the next query). */
export type Ranked = { docs: number[]; score: Float64Array };

/** What retrieve leaves for rerank: the ranking, and how it was pruned (the rerank scores pruned tools exactly). */
export type Retrieval = Ranked & {
  groups: Group[];
  steps: number;
  /** The request's min_score (tools that cannot reach it were given 0). */
  minScore: number;
  /** The evidence under which a tool was not finished (score 0). */
  floor: number;
  /** The words MaxScore only added to tools others found, and their summed upper bounds. */
  weakGroups: Group[];
  weakSum: number;
  /** The best tool (−1 without one) and, per step, its best tool by the step's evidence and that evidence. */
  top: number;
  stepTop: Int32Array;
  stepTopRaw: Float64Array;
  /** The pass's stamp: a tool was touched when its pass stamp equals it. */
  stamp: number;
};

/**
 * The tools a ranking must score exactly beyond those that can reach min_score: the `k` best that
 * `counts` lets through (the caller's eligible, granted tools of the best tier). Every other tool whose
 * score cannot reach `fall` × the k-th best of those is left unfinished (score 0), so a top-k selection
 * by tier and score over the tools `counts` accepts sees what it would see with every tool finished.
 * The rerank's lifts only raise scores; `fall` is the lowest factor a later stage may multiply a score
 * by before that selection (1 − the action rule's penalty; 1 when nothing lowers a score), and `rise`
 * how far one may move a score s toward 1 (the owner lift: s + rise·(1 − s); 0 or absent when nothing does): a tool
 * is finished while, so raised, it may reach `fall` × the k-th best.
 */
export type Keep = { k: number; counts: (d: number) => boolean; fall: number; rise?: number };

/** The raw evidence of a step's clear best tool (STAGE_LIMITS.clearStep, as the rerank reads it). */
const clearRaw = (unit: number) => -Math.log(1 - STAGE_LIMITS.clearStep) * unit;

/**
 * The evidence under which a tool's score cannot reach `score` (0: none): whole ≤ 1 − exp(−acc·(1 + boost) / unit)
 * and a step's evidence never exceeds the whole's; a relative margin keeps rounding from dropping a tie.
 */
function evidenceFor(score: number, unit: number, boost: number): number {
  return score > 0 && score < 1 ? ((-Math.log(1 - score) * unit) / (1 + boost)) * (1 - 1e-9) : 0;
}

/** Adds `v` to the ascending k best `kept[0…held)`, the weakest leaving when all k are held; returns the new count. */
function insertKept(kept: Float64Array, held: number, k: number, v: number): number {
  if (held < k) {
    let i = held;
    for (; i > 0 && kept[i - 1]! > v; i--) kept[i] = kept[i - 1]!;
    kept[i] = v;
    return held + 1;
  }
  let i = 0;
  for (; i + 1 < k && kept[i + 1]! < v; i++) kept[i] = kept[i + 1]!;
  kept[i] = v;
  return held;
}

/** Per family f, its tools: docs[start[f] … start[f+1]), in catalog order. */
export type FamilyTools = { start: Uint32Array; docs: Uint32Array };

/** The tools of each family, from each tool's family number (0…families−1). */
export function familyTools(family: Uint32Array): FamilyTools {
  const start = new Uint32Array(family.reduce((m, f) => Math.max(m, f + 1), 0) + 1);
  for (const f of family) start[f + 1]!++;
  for (let f = 1; f < start.length; f++) start[f]! += start[f - 1]!;
  const docs = new Uint32Array(family.length);
  const next = start.slice(0, -1);
  family.forEach((f, d) => (docs[next[f]!++] = d));
  return { start, docs };
}

export class Retriever {
  // Scratch space reused across queries; stamps stand in for clearing arrays.
  private readonly rows: Float64Array;
  readonly out: Float64Array;
  readonly passStamp: Uint32Array;
  private readonly termStamp: Uint32Array;
  private readonly termMask: Uint32Array;
  private readonly stepRaw = new Float64Array(MAX_STEPS);
  private kept = new Float64Array(0);
  /** Per step, the evidence a tool needs to become the step's clear best tool (Infinity: no step lift). */
  private readonly need = new Float64Array(MAX_STEPS);
  private stamp = 0;
  /** The tools a pass touched, in the order it touched them (touched[0…count)). */
  private readonly touched: Uint32Array;
  /** The touched tools the top-k threshold left unfinished at or above the floor, in the same order. */
  private readonly deferred: Uint32Array;
  /** Per family, its tools, and the stamp of the last ranking that added them as a family the rerank may lift. */
  private readonly families: FamilyTools;
  private readonly famMark: Uint32Array;
  private famStamp = 0;

  constructor(
    readonly index: SearchIndex,
    readonly params: QueryParams,
    private readonly work?: WorkUnits,
    /** Per tool, its family's number (the rerank lifts by family: its touched tools stay in the ranking for it; without it, every touched tool does). */
    private readonly family?: Uint32Array,
  ) {
    const n = index.docs;
    this.touched = new Uint32Array(n);
    this.deferred = new Uint32Array(n);
    this.families = familyTools(family ?? new Uint32Array(0));
    this.famMark = new Uint32Array(this.families.start.length - 1);
    this.rows = new Float64Array(n * (STEP + MAX_STEPS));
    this.out = new Float64Array(n);
    this.passStamp = new Uint32Array(n);
    this.termStamp = new Uint32Array(index.terms.length);
    this.termMask = new Uint32Array(index.terms.length);
  }

  /** One fully matched rarest word's raw evidence, the calibration unit. */
  get unit(): number {
    return this.params.scale * this.index.idfMax;
  }

  /**
   * Score a query in one pass over the postings of its words. A word contributes the best of its
   * members (the word, a typo match, a synonym), so expansions never count twice. A task-shaped
   * query (several steps) also gets each step's score, and a tool keeps its best step, blended with
   * the whole query's score, so one step's words cannot drown another's.
   * The raw evidence is calibrated to [0,1] against the catalog's rarest word (1 − exp(−raw / idfMax)),
   * so one `min_score` means the same for every query and catalog size. Tools that cannot reach
   * `reach` (the request's min_score, or lower when a rerank may lift tools) get 0. With `keep`, a tool
   * that cannot reach the k-th best score `keep` counts is not finished either (score 0; see Keep).
   */
  retrieve(q: Analysis, minScore: number, reach: number, lifts: boolean, keep?: Keep): Retrieval {
    const { groups, steps: S } = q;
    const docs: number[] = [];
    const { touched, deferred } = this;
    let nt = 0;
    let nd = 0;
    const out = this.out;
    const ps = ++this.stamp;
    if (this.work) this.work.rankings++;
    const empty = {
      groups,
      steps: S,
      minScore,
      floor: 0,
      weakGroups: [],
      weakSum: 0,
      top: -1,
      stepTop: new Int32Array(0),
      stepTopRaw: new Float64Array(0),
      stamp: ps,
    };
    if (!groups.length) return { docs, score: out, ...empty };
    const { rows, passStamp, termStamp, termMask, family } = this;
    const W = STEP + S;
    const { ids, imp, start } = this.index;
    const unit = this.unit;
    const boost = this.params.nameBoost;
    const floor = reach > 0 && reach < 1 ? (-Math.log(1 - reach) * unit) / (1 + boost) : 0;
    // MaxScore: the weakest words, whose summed upper bounds stay under the floor, cannot lift a
    // tool there on their own; they only add to tools the stronger words found (exact scores for
    // every tool that can reach min_score, and far fewer tools touched for common words).
    const bound = new Float64Array(groups.length).fill(-Infinity); // a word's upper bound: its best member's weight
    for (let i = 0; i < groups.length; i++) for (const m of groups[i]!.members) bound[i] = Math.max(bound[i]!, this.weight(m));
    const order = groups.map((_, i) => i).sort((a, b) => bound[a]! - bound[b]! || a - b);
    let weak = 0;
    let weakSum = 0;
    for (; weak < order.length && weakSum + bound[order[weak]!]! < floor; weak++) weakSum += bound[order[weak]!]!;
    const sequence = [...order.slice(weak).reverse(), ...order.slice(0, weak)];
    const strong = this.params.fuzzyWeight * STAGE_LIMITS.typoFarShare;
    let read = 0;
    for (let k = 0; k < sequence.length; k++) {
      const g = groups[sequence[k]!]!;
      const onlyKnown = k >= sequence.length - weak;
      const gs = ++this.stamp;
      const gm = g.mask;
      // The hot loop: a word of one member and one step (most words of most queries) skips the
      // best-of-members bookkeeping and the walk over the step bits.
      const single = g.members.length === 1;
      const oneStep = S > 1 && (gm & (gm - 1)) === 0 ? 31 - Math.clz32(gm) : -1;
      const last = g.members.length - 1;
      for (let mi = 0; mi <= last; mi++) {
        const m = g.members[mi]!;
        if (m.w >= strong) {
          termMask[m.term] = termStamp[m.term] === ps ? termMask[m.term]! | gm : gm;
          termStamp[m.term] = ps;
        }
        const f = this.weight(m) / IMPACT_SCALE;
        read += start[m.term + 1]! - start[m.term]!;
        // A word's best member so far: the first member meets each tool first, the last one needs no record.
        const first = single || mi === 0;
        for (let p = start[m.term]!, end = start[m.term + 1]!; p < end; p++) {
          const d = ids[p]!;
          let v = f * imp[p]!;
          const r = d * W;
          if (passStamp[d] !== ps) {
            // A tool's first posting: its sums start at v (0 + v, exactly); a row holds an older pass's
            // values (of any width), so its word stamp is set too (0: no word of this pass, as stamps start at 1).
            if (onlyKnown) continue;
            passStamp[d] = ps;
            touched[nt++] = d;
            const record = !single && mi < last;
            rows[r + GROUP] = record ? gs : 0;
            if (record) rows[r + BEST] = v;
            rows[r + ACC] = v;
            // v × the step's bit (v or exactly 0, v ≥ 0 and finite): no branch per step on a first posting.
            if (S > 1) for (let s = 0; s < S; s++) rows[r + STEP + s] = v * ((gm >>> s) & 1);
            continue;
          }
          if (!single) {
            if (first) {
              rows[r + GROUP] = gs;
              rows[r + BEST] = v;
            } else if (rows[r + GROUP] !== gs) {
              if (mi < last) {
                rows[r + GROUP] = gs;
                rows[r + BEST] = v;
              }
            } else if (v > rows[r + BEST]!) {
              const gain = v - rows[r + BEST]!;
              rows[r + BEST] = v;
              v = gain;
            } else continue;
          }
          rows[r + ACC] = rows[r + ACC]! + v;
          if (oneStep >= 0) rows[r + STEP + oneStep] = rows[r + STEP + oneStep]! + v;
          else if (S > 1) {
            for (let s = 0, bits = gm; bits; s++, bits >>>= 1) {
              if (bits & 1) rows[r + STEP + s] = rows[r + STEP + s]! + v;
            }
          }
        }
      }
    }
    const w = this.segmentWeight(S);
    // Each step's best tool by its step's evidence (for the rerank only).
    const stepTop = new Int32Array(lifts && w > 0 ? S : 0).fill(-1);
    const stepTopRaw = new Float64Array(stepTop.length);
    let top = -1;
    let scored = 0;
    // The top-k threshold: `kept` holds the k best scores `keep` counts (ascending); once full, a tool whose
    // score's upper bound, 1 − exp(−acc·(1 + boost) / unit), raised by `rise`, is under `fall` × the k-th of them is not finished.
    const k = keep ? Math.max(0, Math.floor(keep.k)) : 0;
    const rise = keep?.rise ?? 0;
    const kept = this.kept.length >= k ? this.kept : (this.kept = new Float64Array(k));
    let held = 0;
    let dyn = 0; // the evidence under which a tool cannot reach the k-th best score (0 until k are held)
    // With a step lift, a tool that may still become a step's clear best tool is finished whatever its whole
    // score: per step, the evidence it needs to pass both the clear level and the step's best so far.
    const need = this.need;
    const clear = stepTop.length ? (clearRaw(unit) / (1 + boost)) * (1 - 1e-9) : Infinity;
    for (let s = 0; s < S; s++) need[s] = clear;
    let needMin = clear; // the least of `need`: a step's evidence is at most the whole's, so under it no tool may lead
    for (let i = 0; i < nt; i++) {
      const d = touched[i]!;
      // Steps score at most the whole, so under the floor there is no finishing work to do.
      const a = rows[d * W + ACC]!;
      if (a < floor) {
        out[d] = 0;
        continue;
      }
      if (a < dyn && (a < needMin || !this.mayLead(d, S))) {
        out[d] = 0;
        deferred[nd++] = d; // the only tools the pass below may finish
        continue;
      }
      out[d] = this.finish(d, S, ps);
      scored++;
      if (family && out[d]! > 0) docs.push(d);
      if (k > 0 && (held < k || out[d]! > kept[0]!) && keep!.counts(d)) {
        held = insertKept(kept, held, k, out[d]!);
        if (held === k) dyn = evidenceFor((kept[0]! * keep!.fall - rise) / (1 - rise), unit, boost);
      }
      if (lifts && out[d]! > 0 && (top < 0 || out[d]! > out[top]!)) top = d;
      for (let s = 0; s < stepTop.length; s++) {
        if (this.stepRaw[s]! > stepTopRaw[s]!) {
          stepTopRaw[s] = this.stepRaw[s]!;
          stepTop[s] = d;
          need[s] = Math.max(clear, (stepTopRaw[s]! / (1 + boost)) * (1 - 1e-9));
          needMin = Infinity;
          for (let t = 0; t < S; t++) needMin = Math.min(needMin, need[t]!);
        }
      }
    }
    // The rerank finishes a family's tools under the returned floor, and a step's clear best tool it
    // lifted must not be finished again: tools between the lowest clear one and the threshold are finished here.
    let under = Math.max(floor, dyn);
    if (under > floor) {
      for (let s = 0; s < stepTop.length; s++) {
        const d = stepTop[s]!;
        if (d >= 0 && stepTopRaw[s]! >= clearRaw(unit) && rows[d * W + ACC]! < under) under = Math.max(floor, rows[d * W + ACC]!);
      }
      if (under < dyn) {
        for (let i = 0; i < nd; i++) {
          const d = deferred[i]!;
          const a = rows[d * W + ACC]!;
          if (out[d] === 0 && a >= under && a >= floor) {
            out[d] = this.finish(d, S, ps);
            scored++;
            if (family && out[d]! > 0) docs.push(d);
          }
        }
      }
    }
    if (!family) for (let i = 0; i < nt; i++) docs.push(touched[i]!);
    else if (lifts && top >= 0 && out[top]! >= minScore) this.addFamilies(docs, [top, ...stepTop], ps);
    const weakGroups = order.slice(0, weak).map((i) => groups[i]!);
    if (this.work) {
      this.work.postings += read;
      this.work.touched += nt;
      this.work.scored += scored;
      this.work.ranked += docs.length;
    }
    return { docs, score: out, groups, steps: S, minScore, floor: under, weakGroups, weakSum, top, stepTop, stepTopRaw, stamp: ps };
  }

  /**
   * The ranking's documents are the tools it scored (score above 0: no later stage reads a tool at 0) and
   * the tools it touched of a family the rerank may lift, the family of the top tool or of a step's best
   * (the rerank finishes and lifts those): added here. Without the families, every touched tool (the
   * reference test/unit/lambdas/core/find/ranked.test.ts compares with).
   */
  private addFamilies(docs: number[], heads: number[], ps: number): void {
    const { out, passStamp, famMark, families } = this;
    const fs = ++this.famStamp;
    for (const h of heads) {
      if (h < 0) continue;
      const f = this.family![h]!;
      if (famMark[f] === fs) continue;
      famMark[f] = fs;
      for (let i = families.start[f]!, end = families.start[f + 1]!; i < end; i++) {
        const d = families.docs[i]!;
        if (passStamp[d] === ps && !(out[d]! > 0)) docs.push(d);
      }
    }
  }

  /**
   * Whether a tool's evidence in some step may reach that step's `need` (a clear best tool, ahead of the
   * step's best so far: a step's evidence is at most its accumulated evidence × (1 + boost)), for the top-k threshold.
   */
  private mayLead(d: number, S: number): boolean {
    const { need, rows } = this;
    for (let s = 0, r = d * (STEP + S) + STEP; s < S; s++) if (rows[r + s]! >= need[s]!) return true;
    return false;
  }

  /** The weight of a tool's best step against the whole query's (0 for a single step). */
  segmentWeight(steps: number): number {
    return steps > 1 ? this.params.segmentWeight : 0;
  }

  /**
   * A tool's score from its accumulated evidence, with the name-coverage boost; a task-shaped query
   * blends in the tool's best step. Leaves each step's boosted evidence in `stepRaw`.
   */
  finish(d: number, S: number, ps: number): number {
    const { rows, termStamp, termMask, stepRaw } = this;
    const r = d * (STEP + S);
    const { idf } = this.index;
    const unit = this.unit;
    const boost = this.params.nameBoost;
    // Name coverage: "water quality" in the query says more about getWaterQuality than about a
    // tool whose description mentions water once.
    const mass = this.index.nameMass[d]!;
    let hit = 0;
    for (let s = 0; s < S; s++) stepRaw[s] = 0;
    if (boost && mass > 0) {
      const { nameStart, nameIds } = this.index;
      for (let i = nameStart[d]!, end = nameStart[d + 1]!; i < end; i++) {
        const t = nameIds[i]!;
        if (termStamp[t] !== ps) continue;
        hit += idf[t]!;
        if (S > 1) for (let s = 0, bits = termMask[t]!; bits; s++, bits >>>= 1) if (bits & 1) stepRaw[s] = stepRaw[s]! + idf[t]!;
      }
    }
    const whole = 1 - Math.exp(-(rows[r + ACC]! * (1 + (boost * hit) / (mass || 1))) / unit);
    const w = this.segmentWeight(S);
    if (w === 0) return whole;
    let stepBest = 0;
    for (let s = 0; s < S; s++) {
      const raw = rows[r + STEP + s]! * (1 + (boost * stepRaw[s]!) / (mass || 1));
      stepRaw[s] = raw;
      if (raw > stepBest) stepBest = raw;
    }
    return w * (1 - Math.exp(-stepBest / unit)) + (1 - w) * whole;
  }

  /** A touched tool's accumulated evidence in the last pass of `S` steps (valid until the next ranking). */
  accOf(d: number, S: number): number {
    return this.rows[d * (STEP + S) + ACC]!;
  }

  /** For explain, right after a retrieval of `S` steps: a tool's raw evidence and the share of its name's weight the request holds. */
  evidence(d: number, ps: number, S: number): { raw: number; nameShare: number } {
    const mass = this.index.nameMass[d]!;
    let hit = 0;
    for (const t of this.index.nameTerms[d]!) if (this.termStamp[t] === ps) hit += this.index.idf[t]!;
    return { raw: this.accOf(d, S) / this.unit, nameShare: mass > 0 ? hit / mass : 0 };
  }

  /** A query word's weight through one member (the word, a typo match, an expansion). */
  weight(m: Member): number {
    return m.w * this.index.idf[m.term]!;
  }

  /**
   * Evidence for one tool from the given words, by binary search in their postings (sorted by tool):
   * the exact sum the main pass would have made. Returns whether any word touched the tool.
   */
  accumulate(d: number, groups: Group[], S: number): boolean {
    const { rows } = this;
    const { imp } = this.index;
    const r = d * (STEP + S);
    rows[r + ACC] = 0;
    if (S > 1) rows.fill(0, r + STEP, r + STEP + S);
    let touched = false;
    for (const g of groups) {
      let v = 0;
      if (this.work) this.work.rerankProbes += g.members.length;
      for (const m of g.members) {
        const p = this.index.posting(m.term, d);
        if (p !== undefined) v = Math.max(v, (this.weight(m) / IMPACT_SCALE) * imp[p]!);
      }
      if (v === 0) continue;
      touched = true;
      rows[r + ACC] = rows[r + ACC]! + v;
      if (S > 1) for (let s = 0, bits = g.mask; bits; s++, bits >>>= 1) if (bits & 1) rows[r + STEP + s] = rows[r + STEP + s]! + v;
    }
    return touched;
  }
}
