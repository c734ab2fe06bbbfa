// Model roles as the registry and the gateway both name them: find's decision mode asks `decider`,
// a prompt tool asks `prompt` unless its file names another role. The gateway maps roles to models
// (TOOLBELT_MODELS); the registry check warns about roles its prompt tools need and nobody set.

/** The role find's decision mode asks unless the request names another. */
export const DECIDER_ROLE = "decider";
/** The role a prompt tool uses when its file names none. */
export const PROMPT_ROLE = "prompt";
/** The variable (JSON or a file path) that maps roles to models. */
export const MODELS_ENV = "TOOLBELT_MODELS";

type ToolLike = { name: string; backend: { kind: string; model?: string } };

/** Every role the registry's prompt tools ask, with those tools' names, roles sorted. */
export function promptRoles(tools: readonly ToolLike[]): Map<string, string[]> {
  const roles = new Map<string, string[]>();
  for (const t of tools) {
    if (t.backend.kind !== "prompt" || t.backend.model === undefined) continue;
    const list = roles.get(t.backend.model) ?? [];
    list.push(t.name);
    roles.set(t.backend.model, list);
  }
  return new Map([...roles].sort(([a], [b]) => a.localeCompare(b)));
}

/** What an unset decider means (said by `npm start`; the check leaves it out: no registry needs one). */
export const DECIDER_UNSET = `model role "${DECIDER_ROLE}" is unset: find ranks by keywords only (add it to ${MODELS_ENV} for decision mode)`;

/** One line per role the registry's prompt tools ask that has no model: what it leaves unserved and the setting to add. */
export function unsetRoleWarnings(tools: readonly ToolLike[], configured: readonly string[]): { role: string; tools: string[]; message: string }[] {
  const have = new Set(configured);
  const out: { role: string; tools: string[]; message: string }[] = [];
  for (const [role, names] of promptRoles(tools)) {
    if (have.has(role)) continue;
    const shown = names.slice(0, 5).join(", ") + (names.length > 5 ? `, and ${names.length - 5} more` : "");
    out.push({
      role,
      tools: names,
      message: `model role "${role}" is unset: ${shown} answer${names.length === 1 ? "s" : ""} 503 MODEL_NOT_CONFIGURED until ${MODELS_ENV} maps it to a model`,
    });
  }
  return out;
}
