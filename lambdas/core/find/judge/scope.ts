import { Fit, scopeFit } from "../actions.js";
import type { JudgeContext } from "./context.js";
import type { JudgeInput, Judgement } from "./types.js";

/**
 * The scope rule: the request names whose things it is about (the caller's own, an organisation's, a
 * repository's), the top tool's scope conflicts with it, and a tool just behind serves it: the catalog
 * has operations of the request's scope and the best match is not one of them ("turn on two-factor
 * for my account" → an organisation's member list, the caller's own accounts just behind).
 */
export function scopeRule(c: JudgeContext, q: JudgeInput): Judgement["scope"] {
  if (!c.apiCatalog()) return undefined;
  const request = q.request.scope ?? 0;
  const tool = c.scopeOfTool(q.top);
  if (scopeFit(request, tool) !== Fit.conflict) return undefined;
  const other = q.runnersUp().find((t) => scopeFit(request, c.scopeOfTool(t)) === Fit.same);
  return other ? { factor: c.params.scopeVerdict, request, tool, other: other.name } : undefined;
}
