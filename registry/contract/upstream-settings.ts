// Declared upstream settings: every `${NAME}` a family lists under `variables` must reach the gateway.
// One rule for `npm start` (names in its environment) and synth (names the construct is given): a
// required family without one of its settings fails the start or the synth, naming family and setting;
// an optional one is warned about and left out of what is served. Pure: callers say what is provided.

/** What a family needs, as families.yaml declares it and the artifact carries it (FamilyInfo). */
export type DeclaringFamily = {
  name: string;
  required: boolean;
  variables?: Readonly<Record<string, { secret: boolean; description?: string }>>;
};

export type UnsetSetting = { name: string; secret: boolean; description?: string };
export type UnsetFamily = { family: string; required: boolean; missing: UnsetSetting[] };

/** Families whose declared settings are not all provided, in family order, settings in declaration order. */
export function unsetSettings(families: readonly DeclaringFamily[], provided: ReadonlySet<string>): UnsetFamily[] {
  const out: UnsetFamily[] = [];
  for (const f of families) {
    const missing = Object.entries(f.variables ?? {})
      .filter(([name]) => !provided.has(name))
      .map(([name, v]): UnsetSetting => ({ name, secret: v.secret === true, ...(v.description ? { description: v.description } : {}) }));
    if (missing.length > 0) out.push({ family: f.name, required: f.required, missing });
  }
  return out;
}

/** The names an environment provides: set and not blank (an empty URL or token reaches nothing). */
export function providedNames(env: Readonly<Record<string, string | undefined>>): Set<string> {
  return new Set(Object.keys(env).filter((k) => (env[k] ?? "").trim() !== ""));
}

export type SettingsVerdict = {
  /** Required families that lack a setting: the start (or synth) fails. */
  failing: UnsetFamily[];
  /** Optional families that lack a setting: warned about and left out of what is served. */
  leftOut: UnsetFamily[];
};

export function settingsVerdict(families: readonly DeclaringFamily[], provided: ReadonlySet<string>): SettingsVerdict {
  const unset = unsetSettings(families, provided);
  return { failing: unset.filter((u) => u.required), leftOut: unset.filter((u) => !u.required) };
}

/** `family \`weather\` needs WEATHER_API_URL (Base URL…), WEATHER_API_KEY (a secret)`: one line per family. */
export function describeUnset(u: UnsetFamily): string {
  const one = (m: UnsetSetting) => {
    const notes = [...(m.secret ? ["a secret"] : []), ...(m.description ? [m.description.replace(/\.$/, "")] : [])];
    return notes.length ? `${m.name} (${notes.join(": ")})` : m.name;
  };
  return `${u.required ? "" : "optional "}family \`${u.family}\` needs ${u.missing.map(one).join(", ")}`;
}

export type DeclaredSetting = { name: string; secret: boolean; families: { name: string; required: boolean }[] };

/** Every declared setting once, by name (several families may share one), with the families that read it. */
export function declaredSettings(families: readonly DeclaringFamily[]): DeclaredSetting[] {
  const byName = new Map<string, DeclaredSetting>();
  for (const f of families) {
    for (const [name, v] of Object.entries(f.variables ?? {})) {
      const entry = byName.get(name) ?? { name, secret: false, families: [] };
      entry.secret ||= v.secret === true;
      entry.families.push({ name: f.name, required: f.required });
      byName.set(name, entry);
    }
  }
  return [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
