// explain's rules, in words an operator reads: for each tool shown, every rule that shaped its score,
// stage by stage; for the answer, the rules that decided its verdict. Built only when explain is asked
// for, from what the stages recorded (they compute nothing more for it).
import type { ExplainRule, StageScore } from "../../contract/find.js";
import type { Analysis } from "./analyse.js";
import type { Judgement } from "./judge.js";
import type { Lift } from "./rerank.js";
import { Scope } from "./actions.js";
import type { VerdictFeatures } from "./verdict.js";

const n2 = (x: number) => x.toFixed(2);
const pct = (x: number) => `${Math.round(x * 100)}%`;
const times = (x: number) => `×${n2(x)}`;
const signed = (x: number) => `${x >= 0 ? "+" : "−"}${Math.abs(x).toFixed(Math.abs(x) < 0.01 ? 4 : 2)}`;

/** What the stages recorded about one shown tool. */
export type ToolTrace = {
  /** Asked for by its exact name (scored 1, not judged). */
  exact: boolean;
  /** Retrieve: evidence in units of one fully matched rarest word, the share of the name's weight the request holds, the boost per share. */
  evidence: number;
  nameShare: number;
  nameBoost: number;
  /** The request's steps and the weight of a tool's best step against the whole. */
  steps: number;
  segmentWeight: number;
  /** Rerank's changes to this tool (in order): lifts with the names of the tools they lifted it towards, and the action rule. */
  lifts: readonly ((Exclude<Lift, { rule: "action" }> & { headName: string; headScore: number }) | Extract<Lift, { rule: "action" }>)[];
  /** The score after rerank, and after the judge. */
  ranked: number;
  final: number;
  /** The gateway cannot run the tool while it can run others (it then ranks after them). */
  lastAsUncallable: boolean;
};

/** Every rule that shaped one tool's score, and its score after each stage. */
export function toolRules(t: ToolTrace, judged: Judgement | undefined): { rules: ExplainRule[]; stages: StageScore[] } {
  if (t.exact) {
    return {
      rules: [
        { stage: "analyse", rule: "exact-name", effect: "=1.00", detail: "the request is this tool's name: it comes first with score 1 and is not judged" },
      ],
      stages: [{ stage: "retrieve", score: 1 }],
    };
  }
  const rules: ExplainRule[] = [
    {
      stage: "retrieve",
      rule: "bm25f",
      effect: `+${n2(t.evidence)}`,
      detail: `evidence of the matched words (each weighed by its rarity in the catalog and its field), in units of one fully matched rarest word`,
    },
  ];
  if (t.nameShare > 0) {
    rules.push({
      stage: "retrieve",
      rule: "name-coverage",
      effect: times(1 + t.nameBoost * t.nameShare),
      detail: `the request holds ${pct(t.nameShare)} of the tool's name (by word rarity): evidence × (1 + ${t.nameBoost} × ${n2(t.nameShare)})`,
    });
  }
  if (t.steps > 1) {
    rules.push({
      stage: "retrieve",
      rule: "steps",
      effect: `${pct(t.segmentWeight)} best step`,
      detail: `a task of ${t.steps} steps: the tool's best single step weighs ${pct(t.segmentWeight)}, the whole request ${pct(1 - t.segmentWeight)}`,
    });
  }
  const retrieved = t.lifts[0]?.before ?? t.ranked;
  rules.push({
    stage: "retrieve",
    rule: "calibration",
    effect: `=${n2(retrieved)}`,
    detail: "score = 1 − exp(−evidence × name boost), blended with the best step for a task",
  });
  for (const l of t.lifts) {
    if (l.rule === "action") {
      rules.push({
        stage: "rerank",
        rule: l.owner ? "owner-lift" : l.scope ? "scope" : l.object === undefined ? "action" : "object",
        effect: l.owner ? signed(l.after - l.before) : times(l.after / l.before),
        detail: actionDetail(l),
      });
      continue;
    }
    rules.push({
      stage: "rerank",
      rule: l.rule,
      effect: signed(l.after - l.before),
      detail: liftDetail(l),
    });
  }
  const stages: StageScore[] = [
    { stage: "retrieve", score: round(retrieved) },
    { stage: "rerank", score: round(t.ranked) },
  ];
  if (judged) {
    rules.push(...judgeRules(judged, "tool"));
    stages.push({ stage: "judge", score: round(t.final) });
  }
  if (t.lastAsUncallable) {
    rules.push({ stage: "present", rule: "not-callable", effect: "last", detail: "the gateway cannot run this tool: it ranks after every tool it can run" });
  }
  return { rules, stages };
}

/** Why the action rule lowered a tool: a conflicting action, a missed object, or whose things. */
function actionDetail(l: Extract<Lift, { rule: "action" }>): string {
  if (l.owner) return `the request is about ${scopeWords(l.owner)} and this tool's name says so: the owner counts as a word it meets`;
  if (l.scope)
    return `the request is about ${scopeWords(l.scope.request)}; this tool is about ${scopeWords(l.scope.tool) || "no one's in particular"}, while a tool near the top is about the request's`;
  if (l.object !== undefined)
    return `the request asks to ${l.request} something ("${l.object}") that this tool's words never mention, while a tool near the top does`;
  return `the request asks to ${l.request}; this tool ${ACTS[l.tool!] ?? l.tool}`;
}

/** Scope bits (actions.ts `Scope`) in words. */
const SCOPE_WORDS: readonly (readonly [number, string])[] = [
  [Scope.own, "the caller's own things"],
  [Scope.org, "an organisation's"],
  [Scope.repo, "a repository's"],
];
const scopeWords = (bits: number): string =>
  SCOPE_WORDS.filter(([b]) => bits & b)
    .map(([, w]) => w)
    .join(" and ");

/** An action class as what a tool does. */
const ACTS: Record<string, string> = { create: "creates", read: "reads", update: "updates", delete: "deletes", send: "sends" };

const round = (x: number) => Math.round(x * 1e4) / 1e4;

/** The features of the fit model, in words (only the signs that are present). */
function featureWords(f: VerdictFeatures): string {
  const signs = [
    f.question && "a question",
    f.language && "a language task (explain, write, summarize)",
    f.narrative && "a story about a third person",
    f.selfContained && "brings its own text",
    f.why && "asks why",
    f.hypothetical && "a hypothetical",
    f.fresh && "asks for fresh data (today, latest)",
  ].filter(Boolean);
  return (
    `the top tool's score ${n2(f.score)}; it holds ${pct(f.coverage)} of the request's known words; ` +
    `the catalog knows ${pct(f.known)} of the request's words; ${f.terms} words` +
    (signs.length ? `; the request is ${signs.join(", ")}` : "")
  );
}

/** The judge's rules: its factor from the fit model or the hint rule that fired. */
function judgeRules(j: Judgement, on: "tool" | "answer"): ExplainRule[] {
  const out: ExplainRule[] = [];
  if (j.model) {
    out.push({
      stage: "judge",
      rule: "fit-model",
      effect: times(j.model.factor),
      detail:
        `the top tool has no search hints, so the fit model judged: margin ${signed(j.model.margin)} (a tool fits from 0): ${featureWords(j.model.features)}` +
        (on === "tool" ? "; one factor for every score of the request" : ""),
    });
  }
  if (j.hint) {
    // A tool without hints meets a hint rule only in a catalog whose names say whose things they are about.
    const api = j.hinted
      ? ""
      : "; the top tool has no search hints, but the catalog's tool names say whose things they are about (an API's operations), so its words are one API's";
    out.push({ stage: "judge", rule: j.hint.rule, effect: times(j.hint.factor), detail: hintWords(j.hint.rule, j.hint.word) + api });
  } else if (j.input) {
    out.push({
      stage: "judge",
      rule: "request-input",
      effect: "×1.00",
      detail: `the one-word rule held back: the request asks to ${j.input.action}, as the top tool does, and the tool meets all it asks for, so its other words ("${j.input.word}") are what it hands the tool, not something the catalog lacks`,
    });
  } else if (j.hinted && on === "answer") {
    out.push({ stage: "judge", rule: "hint-rules", effect: "×1.00", detail: "judged by its author's words (search hints): no hint rule fired" });
  }
  if (j.scope) {
    out.push({
      stage: "judge",
      rule: "top-scope",
      effect: times(j.scope.factor),
      detail: `the request is about ${scopeWords(j.scope.request)}; the top tool is about ${scopeWords(j.scope.tool)}, while ${j.scope.other}, just behind it, is about the request's: the catalog has such operations and the best match is not one`,
    });
  }
  if (j.opposite) {
    out.push({
      stage: "judge",
      rule: "opposite",
      effect: times(j.opposite.factor),
      detail: `the request says "${j.opposite.word}", the opposite of "${j.opposite.toolWord}" in the top tool's name: the tool does what the request asks to undo`,
    });
  }
  if (j.action) {
    out.push({
      stage: "judge",
      rule: "top-action",
      effect: times(j.action.factor),
      detail: `the request asks to ${j.action.word} (${j.action.request}); the top tool ${j.action.tool === "read-only" ? "is declared read-only (its words name no action)" : `does ${j.action.tool}`}, and none of the tools just behind it that meets a specific word of the request besides its verb does ${j.action.request}: the catalog's best matches do not do what the request asks`,
    });
  }
  if (j.object) {
    out.push({
      stage: "judge",
      rule: "top-object",
      effect: times(j.object.factor),
      detail: `what the request asks for ("${j.object.word}") is not what the top tool acts on ("${j.object.part}" in its name), nor what a tool just behind that does the asked action acts on: the best match acts on something else`,
    });
  }
  if (j.verbOnly) {
    out.push({
      stage: "judge",
      rule: "verb-only",
      effect: times(j.verbOnly.factor),
      detail: `the top tool met the request only in its verb ("${j.verbOnly.verb}", a word of the tool's name); what the request acts on ("${j.verbOnly.word}") is met by no tool just behind that could do it: the tool does the asked thing to something else`,
    });
  }
  if (j.verbNoun) {
    out.push({
      stage: "judge",
      rule: "verb-as-noun",
      effect: times(j.verbNoun.factor),
      detail: `the request's verb ("${j.verbNoun.verb}") is in the top tool's name only as a word of what it acts on; the tool's own verb is "${j.verbNoun.toolVerb}", and no tool just behind starts its name with the request's verb: the tool is about the thing, not doing it`,
    });
  }
  if (j.body) {
    out.push({
      stage: "judge",
      rule: "description-body",
      effect: times(j.body.factor),
      detail: `the request's specific words ("${j.body.word}") met the top tool only after the first sentence of its long description, where words are often incidental`,
    });
  }
  return out;
}

function hintWords(rule: string, word: string | undefined): string {
  const w = word === undefined ? "" : ` ("${word}")`;
  switch (rule) {
    case "hint-stray":
      return "the request met none of the top tool's authored words (name, tags, aliases, examples) directly: a match its author did not anticipate";
    case "one-word":
      return `the request met the top tool in one word only, and another of its words${w} is foreign to the catalog or one the tool does not match`;
    default:
      return `the request met the catalog in everyday words only while it names something the catalog lacks${w}, and no tool just behind meets a specific word`;
  }
}

/** What the answer's verdict rests on. */
export type VerdictTrace = {
  exact: boolean;
  /** What analyse read from the request: its action (and the word that named it), whose things, and whether the rerank weighs it. */
  request?: Pick<Analysis, "action" | "actionWord" | "scope" | "words" | "weighed" | "reach">;
  minScore: number;
  /** The best tool the caller may see before the judge (its name and score), when one scored at all. */
  best?: { name: string; score: number };
  /** Tools at or above min_score before the judge, and after it. */
  before: number;
  after: number;
  judged?: Judgement;
};

/**
 * What analyse read from the request, when it read an action or whose things it is about: the rerank's action
 * and scope rules and the judge's rules work from it, and a request too long for the rerank to weigh its action
 * ("why did the delete operation not come first?") is said so.
 */
function requestRules(r: VerdictTrace["request"]): ExplainRule[] {
  if (!r || (r.action === undefined && !r.scope)) return [];
  const asks = r.action === undefined ? "names no action" : `asks to ${r.action}${r.actionWord && r.actionWord !== r.action ? ` ("${r.actionWord}")` : ""}`;
  const whose = r.scope ? `, about ${scopeWords(r.scope)}` : "";
  const weighs =
    r.action === undefined
      ? ""
      : r.weighed
        ? `; ${r.words} words: the rerank weighs its action (up to ${r.reach} in this catalog)`
        : `; ${r.words} words, more than the ${r.reach} whose action the rerank weighs in this catalog: its action reorders nothing, the judge still reads it`;
  return [
    {
      stage: "analyse",
      rule: "request",
      effect: r.action === undefined ? "no action" : r.weighed ? r.action : `${r.action}, not weighed`,
      detail: `the request ${asks}${whose}${weighs}`,
    },
  ];
}

/** The rules that decided the answer's verdict, with their numbers. */
export function verdictReasons(v: VerdictTrace): ExplainRule[] {
  const min = n2(v.minScore);
  if (v.exact) return [{ stage: "analyse", rule: "exact-name", effect: "match", detail: "the request is a tool's exact name: that tool is the answer" }];
  if (v.before === 0) {
    return [
      {
        stage: "retrieve",
        rule: "min-score",
        effect: "none",
        detail: v.best
          ? `no tool you may call scored at least min_score ${min}: the best was ${v.best.name} at ${n2(v.best.score)}`
          : "no tool you may call shares a word (or a synonym, typo or related word) with the request",
      },
    ];
  }
  const out = [...requestRules(v.request), ...(v.judged ? judgeRules(v.judged, "answer") : [])];
  const factor = v.judged?.factor ?? 1;
  const top = v.best ? `${v.best.name} at ${n2(v.best.score * factor)}` : "";
  out.push(
    v.after > 0
      ? {
          stage: "judge",
          rule: "verdict",
          effect: "match",
          detail: `${v.after} tool${v.after > 1 ? "s" : ""} at or above min_score ${min} after the judge's factor ${times(factor)} (the best: ${top})`,
        }
      : {
          stage: "judge",
          rule: "verdict",
          effect: "none",
          detail: `after the judge's factor ${times(factor)} the best score, ${top}, is under min_score ${min}: no tool fits`,
        },
  );
  return out;
}

/** What a lift or a tie did to one tool, in words (the step and family lifts, the scope, question and verb ties). */
function liftDetail(l: { rule: string; before: number; after: number; headName: string; headScore: number }): string {
  const up = l.after > l.before;
  switch (l.rule) {
    case "step-lift":
      return `the clearest tool of one step of the task moves part of the way to the top tool's score (${l.headName}, ${n2(l.headScore)})`;
    case "scope-tie":
      return up
        ? `within a few percent of the top tool (${l.headName}) and about the request's things while it is not: the two swap places`
        : `about other things than the request's, while ${l.headName}, within a few percent of it, is about the request's: the two swap places`;
    case "question-tie":
      return up
        ? `close to the top tool (${l.headName}), and its name acts on what the question asks for while the top's does not: the two swap places`
        : `its name acts on something else than what the question asks for, while ${l.headName}, close to it, names that: the two swap places`;
    case "verb-tie":
      return up
        ? `close to the top tool (${l.headName}), and the request says this tool's verb while it says nothing of the top's: the two swap places`
        : `the request says nothing of this tool's verb, while ${l.headName}, close to it, has a verb the request says: the two swap places`;
    default:
      return `a sibling of ${l.headName} (${n2(l.headScore)}), a tool the task needs, moves part of the way to its score`;
  }
}
