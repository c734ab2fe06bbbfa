// Tools chosen by their governance (registry `read_only`, `destructive`, ...) instead of by name: the
// policy's `allow_where`/`deny_where`/`read_only` and a brief's `where` become plain name lists when
// they are loaded, so every door's grant checks (globs over names) apply them unchanged.
import type { GovernanceInfo } from "../../registry/contract/artifact.js";
import type { BriefFile } from "../../registry/contract/brief.js";
import type { GovernanceSelector, PolicyFile } from "../../registry/contract/policy.js";
import { globMatcher } from "../../registry/contract/globs.js";

/** What selection needs of a catalog tool. */
export type GovernedTool = { name: string; governance: GovernanceInfo };

/** Whether a tool's declarations satisfy every field the selector gives (an absent declaration is false). */
export function selects(selector: GovernanceSelector, governance: GovernanceInfo): boolean {
  if (selector.read_only !== undefined && (governance.read_only === true) !== selector.read_only) return false;
  if (selector.destructive !== undefined && (governance.destructive === true) !== selector.destructive) return false;
  if (selector.consequential !== undefined && (governance.consequential === true) !== selector.consequential) return false;
  if (selector.affects !== undefined && (governance.affects !== undefined) !== selector.affects) return false;
  return true;
}

const namesWhere = (tools: Iterable<GovernedTool>, keep: (t: GovernedTool) => boolean): string[] => [...tools].filter(keep).map((t) => t.name);

/**
 * The policy with governance selectors spelled out as tool names: `allow_where` adds to `allow`, and
 * `deny_where` and `read_only` (every tool not declaring read_only) add to `deny`.
 */
export function expandPolicySelectors(file: PolicyFile, tools: Iterable<GovernedTool>): PolicyFile {
  const list = [...tools];
  return {
    ...file,
    principals: file.principals.map((p) => {
      const allowed = namesWhere(list, (t) => (p.allow_where ?? []).some((s) => selects(s, t.governance)));
      const denied = namesWhere(
        list,
        (t) => (p.deny_where ?? []).some((s) => selects(s, t.governance)) || (p.read_only === true && t.governance.read_only !== true),
      );
      return allowed.length || denied.length ? { ...p, allow: [...p.allow, ...allowed], deny: [...p.deny, ...denied] } : p;
    }),
  };
}

/** Whether the policy selects tools by governance (then it cannot be loaded without the catalog). */
export const usesSelectors = (file: PolicyFile): boolean => file.principals.some((p) => p.allow_where?.length || p.deny_where?.length || p.read_only);

/** A brief with `where` spelled out: `tools` becomes the catalog names its globs and its selector both choose. */
export function expandBriefSelector(brief: BriefFile, tools: Iterable<GovernedTool>): BriefFile {
  const where = brief.where;
  if (!where) return brief;
  const declared = globMatcher(brief.tools);
  const names = namesWhere(tools, (t) => declared(t.name) && selects(where, t.governance));
  // A brief choosing nothing still needs one entry: "-" is no tool's name (names have a family and a dot).
  return { ...brief, tools: names.length ? names : ["-"] };
}
