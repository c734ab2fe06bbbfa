// Stage 3, rerank: the task lifts. A task needs a tool per step, often several of one server (create
// a document, add a paragraph, convert it to PDF), and a step's words seldom name all of them. Each
// step's clear best tool moves `stepLift` of the way to the top tool's score (one step's words no
// longer drown another's), then the siblings of the top tool and of those step tools (the heads)
// move `familyLift` of the way to their head's score, never past a clear step's best tool (another
// step may need another family). The top tool keeps its score, so the judge's input does not change.
// Then the action rule: on a short request that names an action, a candidate near the top whose own
// action conflicts ("put eggs on my todo list" → todo.list reads) takes a factor below 1. Last, the
// owner lift: in a catalog whose names say owners, a request naming one lifts that owner's tools.
import type { Analysis } from "./analyse.js";
import {
  actionFit,
  apiCatalog,
  Fit,
  lastSegmentWords,
  operationObject,
  Scope,
  scopeFit,
  toolActionOf,
  toolScopeOf,
  type ActionSource,
  type ActionTable,
} from "./actions.js";
import { encode, pairs } from "../../../registry/contract/search-options.js";
import type { Retrieval, Retriever } from "./retrieve.js";
import type { WorkUnits } from "./work.js";
import { STAGE_LIMITS } from "../../../registry/contract/find-tuning.js";

/** The scope bits that name an owner (the caller, an organisation), not a kind of thing. */
const OWNERS = Scope.own | Scope.org;

/** Which lifts a request gets (decided before retrieval: a lift lowers the floor retrieval prunes at). */
export type LiftPlan = {
  stepLift: number;
  familyLift: number;
  lifts: boolean;
  /** The score retrieval must score exactly from. */
  reach: number;
  /** The owner lift the request may get (0: none): how far after retrieval a score may rise toward 1. */
  rise: number;
};

/**
 * A change the rerank made, for explain: the tool, its score before and after, and why (a lift
 * towards `head`'s score, or the action rule: the request's action and the tool's).
 */
export type Lift =
  | { doc: number; rule: "step-lift" | "family-lift" | "scope-tie" | "question-tie" | "verb-tie"; before: number; after: number; head: number }
  | {
      doc: number;
      rule: "action";
      before: number;
      after: number;
      /** The request's action (undefined: it names none; only with `owner`). */
      request: string | undefined;
      tool: string | undefined;
      /** Set when the rule was the owner lift: the owners (`Scope` bits) the request names and this tool is scoped to. */
      owner?: number;
      /** Set when the factor came from the request's object this tool misses (the object word), not from a conflicting action. */
      object?: string;
      /** Set when the factor came from whose things the request and the tool are about (their `Scope` bits). */
      scope?: { request: number; tool: number };
    };

/** What the action rule reads of a tool: its name and description. */
export type ActionTool = ActionSource;

export class Reranker {
  /** Per family, its tools (famDocs[famStart[f]…famStart[f+1]]). */
  private readonly famStart: Uint32Array;
  private readonly famDocs: Uint32Array;
  /** Per tool, its action class, computed at its first use (undefined: not yet; null: none). */
  private readonly toolActs: (string | null | undefined)[];
  /** Per tool, its scope bits + 1, computed at its first use (0: not yet). */
  private readonly toolScopes: Uint8Array;
  /** Each tool's verb term for the verb tie (`verbTerm`), once per tool. */
  private readonly verbTerms: Int32Array;
  /** Each tool's object terms for the question tie (`namesAsked`), once per tool. */
  private readonly objectTerms = new Map<number, Set<number>>();

  constructor(
    private readonly retriever: Retriever,
    /** Per tool, its family's number (0…families−1); without it there is no family lift. */
    private readonly family: Uint32Array | undefined,
    private readonly work?: WorkUnits,
    /** The artifact's action table and the tools (the action rule); without a table there is no action rule. */
    private readonly actions?: { table: ActionTable; tools: readonly ActionTool[] },
  ) {
    this.toolActs = new Array<string | null | undefined>(actions?.tools.length ?? 0);
    this.toolScopes = new Uint8Array(actions?.tools.length ?? 0);
    this.verbTerms = new Int32Array(actions?.tools.length ?? 0).fill(NOT_YET);
    const families = family ? family.reduce((m, f) => Math.max(m, f + 1), 0) : 0;
    this.famStart = new Uint32Array(families + 1);
    for (const f of family ?? []) this.famStart[f + 1]!++;
    for (let f = 0; f < families; f++) this.famStart[f + 1]! += this.famStart[f]!;
    this.famDocs = new Uint32Array(family?.length ?? 0);
    const fill = this.famStart.slice(0, families);
    family?.forEach((f, d) => (this.famDocs[fill[f]!++] = d));
  }

  /** The lifts of a request: only a task (many words), a step lift only with several steps. */
  plan(q: Analysis, minScore: number): LiftPlan {
    const p = this.retriever.params;
    const task = q.groups.length >= STAGE_LIMITS.taskMinTerms;
    const familyLift = task && this.family ? p.familyLift : 0;
    const stepLift = task && q.steps > 1 ? p.stepLift : 0;
    const lifts = familyLift > 0 || stepLift > 0;
    // With a lift, tools are scored exactly from the clear-step score (every step's clear best tool is scored exactly).
    let reach = lifts ? Math.min(minScore, STAGE_LIMITS.clearStep) : minScore;
    // With the owner lift, from the score it lifts to min_score.
    const own = this.ownerLift(q);
    if (own > 0) reach = Math.min(reach, (minScore - own) / (1 - own));
    return { stepLift, familyLift, lifts, reach, rise: own };
  }

  /** The owner lift a request gets: `ownerLift` when it names an owner and the catalog's names say owners, else 0. */
  private ownerLift(q: Analysis): number {
    const lift = this.retriever.params.ownerLift;
    if (lift <= 0 || !this.actions || !((q.scope ?? 0) & OWNERS)) return 0;
    return apiCatalog(this.retriever.index) ? lift : 0;
  }

  /**
   * The owner lift, in place: each candidate scoped to an owner the request names ("show all my repos"
   * → repos/list-for-authenticated-user) moves `ownerLift` of the way to 1, as if the request's owner
   * word were one more word it meets, when the top candidate is that owner's. Only raises scores, the
   * order among the owner's tools kept.
   */
  liftOwners(r: Retrieval, q: Analysis, lifted?: Lift[]): void {
    const lift = this.ownerLift(q);
    if (lift === 0) return;
    const out = r.score;
    const top = topDoc(r);
    // Only when the best match is the owner's already: the lift confirms a match, it does not swap one
    // (a top of another owner is the scope rules' case, "track my package" → an organisation's packages).
    const owners = q.scope! & OWNERS & (top < 0 ? 0 : this.toolScope(top));
    if (owners === 0) return;
    for (const d of r.docs) {
      const before = out[d]!;
      const owner = owners & this.toolScope(d);
      if (before <= 0 || owner === 0) continue;
      out[d] = before + lift * (1 - before);
      lifted?.push({ doc: d, rule: "action", before, after: out[d]!, request: q.action, tool: this.toolAction(d), owner });
    }
  }

  /**
   * Apply the plan's lifts to the retrieval's scores in place. Siblings the MaxScore floor pruned are
   * scored exactly here (a family is small), so the tools shown at a min_score are the unpruned
   * ranking's above it, and the floor, the saving on common words, stays as it is. `lifted`, when
   * given (explain), receives each lift.
   */
  rerank(r: Retrieval, plan: LiftPlan, lifted?: Lift[]): void {
    // A top under min_score shows nothing, lifted or not (and may not be the true top: the floor pruned).
    if (!plan.lifts || r.top < 0 || r.score[r.top]! < r.minScore) return;
    const rt = this.retriever;
    if (this.work) this.work.rerankPasses++;
    const clearRaw = -Math.log(1 - STAGE_LIMITS.clearStep) * rt.unit;
    const clear = [...new Set(r.stepTop.filter((d, s) => d >= 0 && r.stepTopRaw[s]! >= clearRaw))];
    const out = r.score;
    const { top, steps: S, stamp: ps } = r;
    const { passStamp } = rt;
    const { famStart, famDocs } = this;
    if (this.work) this.work.rerankTools += clear.length;
    for (const d of clear) {
      if (d === top) continue;
      const before = out[d]!;
      out[d] = before + plan.stepLift * (out[top]! - before);
      lifted?.push({ doc: d, rule: "step-lift", before, after: out[d]!, head: top });
    }
    const lift = plan.familyLift;
    if (lift === 0) return;
    const family = this.family!;
    // Weak words alone give a tool at most sMax: look up untouched siblings only when, lifted, that could reach min_score.
    const sMax = 1 - Math.exp(-(r.weakSum * (1 + rt.params.nameBoost)) / rt.unit);
    let cap = Infinity;
    for (const d of clear) cap = Math.min(cap, out[d]!);
    const heads = [top, ...clear];
    for (const f of new Set(heads.map((d) => family[d]!))) {
      const from = famStart[f]!;
      const to = famStart[f + 1]!;
      if (to - from > STAGE_LIMITS.familyMaxShare * rt.index.docs) continue;
      const headDocs = heads.filter((d) => family[d] === f);
      const head = Math.max(...headDocs.map((d) => out[d]!));
      if (this.work) this.work.rerankTools += to - from;
      const lookUp = r.weakGroups.length > 0 && sMax + lift * (head - sMax) >= r.minScore;
      for (let i = from; i < to; i++) {
        const d = famDocs[i]!;
        if (passStamp[d] === ps) {
          if (rt.accOf(d, S) < r.floor) out[d] = rt.finish(d, S, ps);
        } else if (lookUp && rt.accumulate(d, r.weakGroups, S)) {
          passStamp[d] = ps;
          r.docs.push(d);
          out[d] = rt.finish(d, S, ps);
        }
        const s = out[d]!;
        if (passStamp[d] !== ps || s <= 0 || s >= head) continue;
        const raised = s + lift * (head - s);
        out[d] = raised < cap || clear.includes(d) ? raised : Math.max(s, cap * (1 - 1e-9));
        lifted?.push({ doc: d, rule: "family-lift", before: s, after: out[d]!, head: headDocs.find((h) => out[h] === head) ?? top });
      }
    }
  }

  /** A tool's action: from the last segment of its name, else its description (once per tool). */
  toolAction(d: number): string | undefined {
    const a = this.actions;
    if (!a) return undefined;
    let act = this.toolActs[d];
    if (act === undefined) {
      act = toolActionOf(a.tools[d]!, a.table) ?? null;
      this.toolActs[d] = act;
    }
    return act ?? undefined;
  }

  /** A tool's scope bits (whose things it is about), from its name and description (once per tool). */
  toolScope(d: number): number {
    const a = this.actions!;
    if (this.toolScopes[d] === 0) {
      const t = a.tools[d]!;
      this.toolScopes[d] = toolScopeOf(t, a.table) + 1;
    }
    return this.toolScopes[d]! - 1;
  }

  /**
   * The action rule, in place: on a request of few words that names an action, each candidate
   * scoring at least `actionNear` of the top score whose action conflicts takes 1 − `actionPenalty`;
   * so does one that meets none of the words of what the request asks for (its object) while another
   * such candidate meets one ("create a reminder | to water the plants": calendar.create_event met only
   * "create", todo.add "reminder"); and so does one whose scope conflicts with the request's, or that
   * lacks an owner the request names (the caller's own, an organisation's) while a near candidate has
   * it ("delete my account": operations for the authenticated user before an organisation's). A
   * candidate takes one factor, whichever reason. Then the owner lift (`liftOwners`), on any request,
   * on the order the penalties left ("show all my repos": an organisation's registries, first by their
   * words, fall behind the caller's repositories, which the lift then confirms).
   */
  actionRule(r: Retrieval, q: Analysis, lifted?: Lift[]): void {
    this.penalise(r, q, lifted);
    this.liftOwners(r, q, lifted);
    this.breakScopeTie(r, q, lifted);
    this.breakQuestionTie(r, q, lifted);
    this.breakVerbTie(r, q, lifted);
  }

  /** Whether the verb tie may reorder this request's top: in an API's catalog. */
  private tiesVerb(): boolean {
    return this.actions !== undefined && this.retriever.params.verbTie > 0 && apiCatalog(this.retriever.index);
  }

  /**
   * The verb tie, in place: when no word of the request meets the top tool's verb (its name's first word) and a
   * tool within `verbTie` of its score has a verb that a request word meets, one that meets no word of the top's
   * name, the two swap scores: an operation's verb is what it does, and the request said that verb ("ask bob to
   * review PR 88" → request-reviewers: "ask" reaches "request"; create-review's "create" is unsaid). A word the
   * top's name already holds ("starred" in list-repos-starred-by-user) says nothing about which.
   */
  private breakVerbTie(r: Retrieval, q: Analysis, lifted?: Lift[]): void {
    if (!this.tiesVerb()) return;
    const out = r.score;
    const top = topDoc(r);
    if (top < 0 || out[top]! <= 0) return;
    const verb = this.verbTerm(top);
    // Every term a request word meets; the words that meet nothing of the top's name, and the terms they meet.
    const met = new Set(q.groups.flatMap((g) => g.members.map((m) => m.term)));
    if (verb < 0 || met.has(verb)) return;
    const name = new Set(this.retriever.index.nameTerms[top]!);
    const free = new Set(q.groups.filter((g) => !g.members.some((m) => name.has(m.term))).flatMap((g) => g.members.map((m) => m.term)));
    if (!free.size) return;
    const near = out[top]! * (1 - this.retriever.params.verbTie);
    let best = -1;
    for (const d of r.docs) {
      if (d === top || out[d]! < near || (best >= 0 && out[d]! <= out[best]!)) continue;
      const v = this.verbTerm(d);
      if (v < 0 || !free.has(v)) continue;
      // And what it acts on is the request's too: a verb alone ("erase" → remove-member) names no operation.
      if (this.retriever.index.nameTerms[d]!.some((t) => t !== v && met.has(t))) best = d;
    }
    if (best >= 0) swapTop(r, top, best, "verb-tie", lifted);
  }

  /** A tool's verb as an index term: its name's last segment's first word ("pulls.request-reviewers" → request); -1 when none. */
  private verbTerm(d: number): number {
    if (this.verbTerms[d] === NOT_YET) {
      const w = encode(lastSegmentWords(this.actions!.tools[d]!.name)[0] ?? "")[0];
      this.verbTerms[d] = w === undefined ? -1 : (this.retriever.index.termOf(w) ?? -1);
    }
    return this.verbTerms[d]!;
  }

  /** Whether the question tie may reorder this request's top: a which/what question with its asked thing, in an API's catalog. */
  private tiesQuestion(q: Analysis): boolean {
    return this.actions !== undefined && this.retriever.params.questionTie > 0 && q.asks !== undefined;
  }

  /**
   * The question tie, in place: when a which/what question's asked thing ("which PRs contain commit …" → PRs) is not
   * what the top tool's name acts on and a tool within `questionTie` of its score names it there, the two swap
   * scores: an operation's name says what it answers with ("list pull requests associated with a commit"), while
   * its other words only meet the question's ("list commits on a pull request"). A swap never puts a tool about
   * another owner's things over one about the request's (the scope tie's choice stands).
   */
  private breakQuestionTie(r: Retrieval, q: Analysis, lifted?: Lift[]): void {
    if (!this.tiesQuestion(q)) return;
    const out = r.score;
    const top = topDoc(r);
    if (top < 0 || out[top]! <= 0 || this.namesAsked(top, q.asks!)) return;
    const near = out[top]! * (1 - this.retriever.params.questionTie);
    const kept = q.scope && scopeFit(q.scope, this.toolScope(top)) === Fit.same;
    let best = -1;
    for (const d of r.docs) {
      if (d === top || out[d]! < near || (best >= 0 && out[d]! <= out[best]!)) continue;
      if (kept && scopeFit(q.scope!, this.toolScope(d)) === Fit.conflict) continue;
      if (this.namesAsked(d, q.asks!)) best = d;
    }
    if (best >= 0) swapTop(r, top, best, "question-tie", lifted);
  }

  /** Whether a tool's name acts on one of these terms: its object's first two words or their pair (actions.ts `operationObject`), once per tool. */
  private namesAsked(d: number, asks: ReadonlySet<number>): boolean {
    let terms = this.objectTerms.get(d);
    if (!terms) {
      const words = operationObject(this.actions!.tools[d]!.name)
        .words.slice(0, 2)
        .flatMap((w) => encode(w));
      const ix = this.retriever.index;
      terms = new Set([...words, ...pairs(words)].map((t) => ix.termOf(t) ?? -1));
      this.objectTerms.set(d, terms);
    }
    for (const t of asks) if (terms.has(t)) return true;
    return false;
  }

  /** Whether the scope tie may reorder this request's top: it names whose things, in an API's catalog. */
  private tiesScope(q: Analysis): boolean {
    return this.actions !== undefined && this.retriever.params.scopeTie > 0 && !!q.scope && apiCatalog(this.retriever.index);
  }

  /**
   * The scope tie, in place: when the top tool is not about the request's things (the caller's own, an
   * organisation's, a repository's) and a tool within `scopeTie` of its score is, the two swap scores: words
   * that tie say nothing about which, and whose things the request names does ("shut down my codespace":
   * stop-in-organization and stop-for-authenticated-user meet the same words). It runs whatever the request's
   * verb (the scope factor above needs an action class); only the top changes, and no score but those two.
   */
  private breakScopeTie(r: Retrieval, q: Analysis, lifted?: Lift[]): void {
    if (!this.tiesScope(q)) return;
    const out = r.score;
    const top = topDoc(r);
    if (top < 0 || out[top]! <= 0 || scopeFit(q.scope!, this.toolScope(top)) === Fit.same) return;
    const near = out[top]! * (1 - this.retriever.params.scopeTie);
    let best = -1;
    for (const d of r.docs) {
      if (d === top || out[d]! < near) continue;
      if (scopeFit(q.scope!, this.toolScope(d)) === Fit.same && (best < 0 || out[d]! > out[best]!)) best = d;
    }
    if (best >= 0) swapTop(r, top, best, "scope-tie", lifted);
  }

  /**
   * The least factor a later step of the rerank may give a score of this request (1: none lowers one): the action
   * rule's on a request it weighs (one that names an action, short enough: analyse.ts `weighed`), the scope tie's
   * on one that names whose things in an API's catalog, the question tie's on a which/what question there, the verb
   * tie's on any request there. Retrieval's MaxScore pruning allows for it.
   */
  fall(q: Analysis): number {
    const { actionPenalty, scopeTie, questionTie, verbTie } = this.retriever.params;
    return Math.min(
      this.lowers(q) ? 1 - actionPenalty : 1,
      this.tiesScope(q) ? 1 - scopeTie : 1,
      this.tiesQuestion(q) ? 1 - questionTie : 1,
      this.tiesVerb() ? 1 - verbTie : 1,
    );
  }

  /** Whether the action rule may lower a score for this request (see `fall`). */
  private lowers(q: Analysis): boolean {
    return this.actions !== undefined && this.retriever.params.actionPenalty > 0 && q.action !== undefined && q.weighed === true;
  }

  /** The action rule's factors (see `actionRule`). */
  private penalise(r: Retrieval, q: Analysis, lifted?: Lift[]): void {
    const penalty = this.retriever.params.actionPenalty;
    const objectFactor = 1 - Math.min(penalty, this.retriever.params.objectPenalty);
    const scopeFactor = 1 - Math.min(penalty, this.retriever.params.scopePenalty);
    const L = STAGE_LIMITS;
    if (!this.lowers(q)) return;
    const out = r.score;
    let top = 0;
    for (const d of r.docs) if (out[d]! > top) top = out[d]!;
    if (top <= 0) return;
    const near = top * L.actionNear;
    const object = objectFactor < 1 ? this.objectMiss(r, q, near) : undefined;
    // The owners (the caller, an organisation) the request names that some near candidate is scoped to.
    // Scope only reorders: it applies when some near candidate is about the request's things ("send a message
    // to my colleague" in a catalog with no tool of the caller's own keeps its match).
    let owners = 0;
    let served = false;
    if (scopeFactor < 1 && q.scope)
      for (const d of r.docs)
        if (out[d]! >= near) {
          owners |= q.scope & this.toolScope(d) & OWNERS;
          served ||= scopeFit(q.scope, this.toolScope(d)) === Fit.same;
        }
    for (const d of r.docs) {
      const before = out[d]!;
      if (before < near) continue;
      const tool = this.toolAction(d);
      if (actionFit(q.action, tool) === Fit.conflict) {
        out[d] = before * (1 - penalty);
        lifted?.push({ doc: d, rule: "action", before, after: out[d]!, request: q.action, tool });
      } else if (object?.(d)) {
        out[d] = before * objectFactor;
        lifted?.push({ doc: d, rule: "action", before, after: out[d]!, request: q.action, tool, object: q.object![0]!.word });
      } else if (served && q.scope && (scopeFit(q.scope, this.toolScope(d)) === Fit.conflict || (owners & ~this.toolScope(d)) !== 0)) {
        out[d] = before * scopeFactor;
        lifted?.push({ doc: d, rule: "action", before, after: out[d]!, request: q.action, tool, scope: { request: q.scope, tool: this.toolScope(d) } });
      }
    }
  }

  /** Whether a candidate misses the request's object, when some candidate at or above `near` meets it (undefined: none does, or no object). */
  private objectMiss(r: Retrieval, q: Analysis, near: number): ((d: number) => boolean) | undefined {
    if (!q.object?.length) return undefined;
    const ix = this.retriever.index;
    const meets = (d: number) => q.object!.some((g) => g.members.some((m) => ix.posting(m.term, d) !== undefined));
    const anyMeets = r.docs.some((d) => r.score[d]! >= near && meets(d));
    return anyMeets ? (d) => !meets(d) : undefined;
  }
}

/** The retrieval's best-scoring tool as the later steps left it (its first in `docs` on a tie; -1: none). */
/** `verbTerms` before a tool's verb is looked up (-1: it has none in the index). */
const NOT_YET = -2;

/** A tie's swap: the top tool and the one the tie chose trade scores, and explain hears of both. */
function swapTop(r: Retrieval, top: number, best: number, rule: "scope-tie" | "question-tie" | "verb-tie", lifted?: Lift[]): void {
  const out = r.score;
  const [high, low] = [out[top]!, out[best]!];
  out[top] = low;
  out[best] = high;
  lifted?.push({ doc: best, rule, before: low, after: high, head: top }, { doc: top, rule, before: high, after: low, head: best });
}

function topDoc(r: Retrieval): number {
  const out = r.score;
  let top = -1;
  for (const d of r.docs) if (top < 0 || out[d]! > out[top]!) top = d;
  return top;
}
