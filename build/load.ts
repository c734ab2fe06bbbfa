// Load a registry: the family list, each family's source, collisions, references, briefs and the
// policies, each a step in build/load/; every problem is reported at once. Never throws on bad input.
import type { Catalog } from "../registry/contract/artifact.js";
import type { Diagnostic } from "../registry/contract/diagnostics.js";
import { DEFAULT_ALWAYS_LOADED, FamiliesFile } from "../registry/contract/family.js";
import type { PolicyFile } from "../registry/contract/policy.js";
import { loadBriefs, type LoadedBrief } from "./load/briefs.js";
import { mergeFamilies } from "./load/collisions.js";
import { readFamiliesFile, type FamiliesRead } from "./load/families-file.js";
import { loadFamily, scopeOf, type FamilyLoad } from "./load/family-sources.js";
import { diag, isError } from "./load/files.js";
import { loadPolicy, POLICY_EXAMPLE_FILE, POLICY_FILE } from "./load/policy.js";
import { checkReferences } from "./load/references.js";
import { diskFs, type RegistryFs } from "./registry-fs.js";
import { briefReferrer, deprecatedReferences, policyReferrer } from "./validate/deprecated.js";
import { isRecord } from "./validate/finding.js";
import type { SchemaLimits } from "./validate/schema-limits.js";
import { YamlParser } from "./yaml-pool.js";

export { BRIEFS_DIR, loadBriefs, type LoadedBrief } from "./load/briefs.js";
export { FAMILIES_FILE } from "./load/families-file.js";
export { checkVersion, SUPPORTED_VERSIONS } from "./load/files.js";
export { loadPolicy, POLICY_EXAMPLE_FILE, POLICY_FILE } from "./load/policy.js";

export type LoadedRegistry = {
  catalog: Catalog;
  alwaysLoaded: string[];
  skippedFamilies: string[];
  briefs: LoadedBrief[];
  /** The registry's `policy.yaml`, when it has one. */
  policy?: PolicyFile;
  diagnostics: Diagnostic[];
  /** No error-severity diagnostic: the registry may be built and deployed. */
  ok: boolean;
};

export type LoadOptions = {
  fs?: RegistryFs;
  /** Worker threads for YAML parsing of large registries; 0 parses on the main thread. Default: cores, at most 4. */
  parseWorkers?: number;
  /** Per-tool schema limits; DEFAULT_SCHEMA_LIMITS when omitted. */
  schemaLimits?: SchemaLimits;
};

export async function loadRegistry(dir: string, opts: LoadOptions = {}): Promise<LoadedRegistry> {
  const fs = opts.fs ?? diskFs(dir);
  const diagnostics: Diagnostic[] = [];
  const family = await readFamiliesFile(fs, diagnostics);
  if (!family) return { catalog: { families: [], tools: [] }, alwaysLoaded: [], skippedFamilies: [], briefs: [], diagnostics, ok: false };

  const loads = await loadSources(fs, family, opts.parseWorkers, opts.schemaLimits);
  const { tools, families, skippedFamilies } = mergeFamilies(family.defs, loads, family.top, diagnostics);
  const names = tools.map((t) => t.name);
  const skipped = new Set(skippedFamilies);
  const alwaysLoaded = readAlwaysLoaded(family, names, skipped, diagnostics);

  const briefs = await loadBriefs(dir, { fs, toolNames: names, skippedFamilies: skipped });
  diagnostics.push(...briefs.diagnostics);
  const policy = await loadPolicy(dir, { fs, toolNames: names, optional: true });
  diagnostics.push(...policy.diagnostics);
  diagnostics.push(...(await loadPolicy(dir, { fs, file: POLICY_EXAMPLE_FILE, toolNames: names, optional: true })).diagnostics);
  // Retired tools still named by a brief or the policy: move them to the replacement before calls are refused.
  diagnostics.push(
    ...deprecatedReferences(tools, [...briefs.briefs.map(briefReferrer), ...(policy.policy ? [policyReferrer(POLICY_FILE, policy.policy)] : [])]),
  );

  return {
    catalog: { families, tools },
    alwaysLoaded,
    skippedFamilies,
    briefs: briefs.briefs,
    ...(policy.policy ? { policy: policy.policy } : {}),
    diagnostics,
    ok: !diagnostics.some(isError),
  };
}

/** Every family's source, in parallel; big registries parse YAML on worker threads. */
async function loadSources(fs: RegistryFs, family: FamiliesRead, parseWorkers: number | undefined, limits?: SchemaLimits): Promise<FamilyLoad[]> {
  const parser = new YamlParser(parseWorkers);
  try {
    return await Promise.all(family.defs.map(({ def }) => loadFamily(fs, def, scopeOf(def), parser, limits)));
  } finally {
    await parser.close();
  }
}

/** The always-loaded list: read on its own, so a broken family entry elsewhere does not silently restore the default. */
function readAlwaysLoaded({ value, top }: FamiliesRead, names: readonly string[], skipped: ReadonlySet<string>, diagnostics: Diagnostic[]): string[] {
  const parsed = isRecord(value) ? FamiliesFile.shape.always_loaded.safeParse(value.always_loaded) : undefined;
  const declared = parsed?.success ? parsed.data : undefined;
  if (!declared) return [...DEFAULT_ALWAYS_LOADED];
  diagnostics.push(...checkReferences(declared, names, skipped).map((f) => diag({ ...f, at: ["always_loaded", ...f.at] }, top)));
  return declared;
}
