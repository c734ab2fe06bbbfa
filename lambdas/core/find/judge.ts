// Stage 4, judge: the one place that decides whether a tool fits. It gives one fit factor c in (0, 1]
// per request, from the evidence that suits the top tool: the fit model (verdict.ts: the request's
// form and how well the top tool covers it) for a tool without search hints, and the hint rules
// (judge/hints.ts: the author's words) for a tool with hints or in a catalog whose authors mostly wrote
// them, then the rules of what the request asks (one file each under judge/). c multiplies every shown
// score, so the order is kept; a tool stays when c·score ≥ min_score, and the answer is `none` when
// none stays. A tool asked for by its exact name is not judged.
import type { CatalogTool } from "../../../registry/contract/artifact.js";
import type { MatchedWord } from "../../contract/find.js";
import type { SearchIndex } from "./postings.js";
import { DEFAULT_MIN_SCORE, type QueryParams } from "../../../registry/contract/find-tuning.js";
import { hasHints, Verdict, type VerdictModel } from "./verdict.js";
import { JudgeContext, textInput } from "./judge/context.js";
import { descriptionBodyRule } from "./judge/description-body.js";
import { hintRules, oneWordRule } from "./judge/hints.js";
import { oppositeRule } from "./judge/opposite.js";
import { scopeRule } from "./judge/scope.js";
import { topActionRule } from "./judge/top-action.js";
import { topObjectRule } from "./judge/top-object.js";
import { verbNounRule } from "./judge/verb-as-noun.js";
import { verbOnlyRule } from "./judge/verb-only.js";
import type { HintFinding, JudgeInput, Judgement } from "./judge/types.js";

export type { HintRule, JudgeInput, Judgement } from "./judge/types.js";
export { splitDescription, textInput } from "./judge/context.js";

export class Judge {
  private readonly verdict: Verdict;
  private readonly c: JudgeContext;

  constructor(
    index: SearchIndex,
    private readonly params: QueryParams,
    model: VerdictModel,
    /** Most of the catalog's tools have search hints: a tool without them is held to the hint rules too. */
    private readonly hintedCatalog: boolean,
    /** The catalog's tools (the verb-as-noun rule counts the first words of their names). */
    tools: readonly CatalogTool[],
  ) {
    this.verdict = new Verdict(index, model);
    this.c = new JudgeContext(index, params, tools);
  }

  judge(asked: JudgeInput): Judgement {
    const { c, params: p } = this;
    // The rules below may each look at the tools behind the top: rank them again once at most; and several read
    // a tool's matched words over all its fields: work them out once per tool.
    let behind: CatalogTool[] | undefined;
    const matched = new Map<CatalogTool, MatchedWord[]>();
    const matches: JudgeInput["matches"] = (t, only) => {
      if (only) return asked.matches(t, only);
      let m = matched.get(t);
      if (!m) matched.set(t, (m = asked.matches(t)));
      return m;
    };
    const q: JudgeInput = { ...asked, matches, runnersUp: () => (behind ??= asked.runnersUp()) };
    // The model was fitted on catalogs without search hints (MetaTool, seal-tools). On a top tool with hints it
    // answered none to no request that needed it and hid right tools (test/eval/README.md, "Sixth round"):
    // such a tool is judged by its author's words, the rules below.
    const hinted = hasHints(q.top);
    let factor = 1;
    let model: Judgement["model"];
    if (!hinted) {
      const features = this.verdict.features(q.query, q.topDoc, q.topScore, textInput(q.top));
      factor = this.verdict.factor(features, DEFAULT_MIN_SCORE);
      model = { features, margin: this.verdict.margin(features), factor };
    }
    // In a catalog whose authors wrote hints (most of its tools have them), a tool without hints (a server
    // snapshot's) is held to the same rules, its name and tags its authored words: otherwise it is where
    // the strays land ("hike along the coast" → a tool "with an output schema along with" its content).
    const consult = hinted || this.hintedCatalog;
    const api = c.apiCatalog();
    // In a catalog whose tool names say whose things they are about (an API's operations, imported), a top
    // tool without hints is held to the one-word rule too: the catalog's words are one API's, so a request
    // word foreign to it names something it lacks ("track the sushi delivery" → a webhook's deliveries).
    const { hint, input }: HintFinding = consult ? hintRules(c, q) : api ? oneWordRule(c, q) : {};
    if (hint) factor *= hint.factor;
    const body = p.bodyOneWord < 1 ? descriptionBodyRule(c, q) : undefined;
    if (body) factor *= body.factor;
    const scope = p.scopeVerdict < 1 ? scopeRule(c, q) : undefined;
    if (scope) factor *= scope.factor;
    const opposite = p.oppositeVerdict < 1 ? oppositeRule(c, q) : undefined;
    if (opposite) factor *= opposite.factor;
    // The top-action rule where a tool's name or its author's words say what it does: an API's operations, or a
    // catalog judged by its authors' hints (on catalogs without either, MetaTool's, it cost false-nones).
    const action = p.actionVerdict < 1 && (consult || api) ? topActionRule(c, q) : undefined;
    if (action) factor *= action.factor;
    const object = p.objectVerdict < 1 && !action && api ? topObjectRule(c, q) : undefined;
    if (object) factor *= object.factor;
    // Its twin where authors name their tools by what they do (a catalog judged by hints): the verb alone.
    const verbOnly = p.verbOnlyVerdict < 1 && consult && !action && !object ? verbOnlyRule(c, q) : undefined;
    if (verbOnly) factor *= verbOnly.factor;
    // And where the fit model judges, outside an API's catalog (there a verb made of the object asks for it: "tag the head" → create-tag):
    // the request's verb met only as a noun of the tool's name.
    const verbNoun = p.verbNounVerdict < 1 && !consult && !action && !object && !api ? verbNounRule(c, q) : undefined;
    if (verbNoun) factor *= verbNoun.factor;
    return {
      factor,
      hinted: consult,
      ...(model ? { model } : {}),
      ...(hint ? { hint } : {}),
      ...(input ? { input } : {}),
      ...(body ? { body } : {}),
      ...(scope ? { scope } : {}),
      ...(opposite ? { opposite } : {}),
      ...(action ? { action } : {}),
      ...(object ? { object } : {}),
      ...(verbOnly ? { verbOnly } : {}),
      ...(verbNoun ? { verbNoun } : {}),
    };
  }
}
