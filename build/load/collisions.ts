// Family loads into one catalog: optional families that failed are skipped (their problems become
// warnings), required ones that failed are errors, and tool names that would be one tool to the
// gateway (canonical name) or to a model (model-safe name) are collisions naming both places.
import type { CatalogTool, FamilyInfo } from "../../registry/contract/artifact.js";
import type { Diagnostic } from "../../registry/contract/diagnostics.js";
import { normaliseCredentials } from "../../registry/contract/credentials.js";
import type { FamilyDef } from "../../registry/contract/family.js";
import { canonicalName, modelName, verbOf } from "../../registry/contract/names.js";
import { checkCredentialsTools } from "../validate/credentials.js";
import type { Segment } from "../validate/finding.js";
import { hintKey } from "../validate/search-hints.js";
import { diag, isError, type Located } from "./files.js";
import { showOrigin, type FamilyLoad, type Origin } from "./family-sources.js";

/** Examples per family in the capability manifest. */
const EXAMPLES_PER_FAMILY = 5;

export type Merged = { tools: CatalogTool[]; families: FamilyInfo[]; skippedFamilies: string[] };

export function mergeFamilies(
  defs: readonly { def: FamilyDef; index: number }[],
  loads: readonly FamilyLoad[],
  top: Located,
  diagnostics: Diagnostic[],
): Merged {
  const tools: CatalogTool[] = [];
  const families: FamilyInfo[] = [];
  const skippedFamilies: string[] = [];
  const seen = new Map<string, { name: string; origin: Origin }>();
  const seenModel = new Map<string, { name: string; origin: Origin }>();
  const hinted: { tool: CatalogTool; origin: Origin }[] = [];
  /** Register a tool's canonical and model-safe names; false (with a NAME_COLLISION) when either is taken. */
  const claimName = (name: string, origin: Origin): boolean => {
    const canon = canonicalName(name);
    const line = origin.line?.();
    const at = { file: origin.file, tool: name, path: origin.path, ...(line ? { line } : {}) };
    const prior = seen.get(canon);
    if (prior) {
      const message =
        prior.name === name
          ? `\`${name}\` is defined twice: here and in ${showOrigin(prior.origin)}`
          : `\`${name}\` collides with \`${prior.name}\` defined in ${showOrigin(prior.origin)}: names that differ only by case or \`_\`/\`-\`/\`.\` are one tool to the gateway`;
      diagnostics.push({ severity: "error", code: "NAME_COLLISION", ...at, message });
      return false;
    }
    // Models call tools by the projection: two tools with one would be one function to them.
    const model = modelName(name);
    const twin = seenModel.get(model);
    if (twin) {
      const message = `\`${name}\` and \`${twin.name}\` defined in ${showOrigin(twin.origin)} have the same model-safe name \`${model}\`: rename one (names over 64 characters are shortened to 55 and a hash)`;
      diagnostics.push({ severity: "error", code: "NAME_COLLISION", ...at, message });
      return false;
    }
    seen.set(canon, { name, origin });
    seenModel.set(model, { name, origin });
    return true;
  };
  loads.forEach((load, k) => {
    const { def, index } = defs[k]!;
    const at: Segment[] = ["families", index, "source"];
    const failed = load.failure !== undefined || load.diagnostics.some(isError);
    if (failed && !def.required) {
      // An optional family that cannot load is reported and skipped; its problems do not fail the build.
      diagnostics.push(...load.diagnostics.map((d) => ({ ...d, severity: "warning" as const })));
      diagnostics.push(
        diag(
          {
            code: "FAMILY_SKIPPED",
            at,
            message: `optional family \`${def.name}\` skipped: ${load.failure ?? `${load.diagnostics.filter(isError).length} problem(s) in its tools`}`,
          },
          top,
          "warning",
        ),
      );
      skippedFamilies.push(def.name);
      return;
    }
    diagnostics.push(...load.diagnostics);
    const kept: CatalogTool[] = [];
    load.tools.forEach((t, i) => {
      const origin = load.origins[i] ?? { file: t.source, path: "$" };
      if (claimName(t.name, origin)) {
        kept.push(t);
        hinted.push({ tool: t, origin });
      }
    });
    // A tool left out for its own errors (or a file that does not parse) still holds its name, so its
    // collision shows in the same run as its other problems.
    for (const b of load.broken) claimName(b.name, b.origin);
    if (load.failure !== undefined) {
      diagnostics.push(diag({ code: "FAMILY_LOAD_FAILED", at, message: `required family \`${def.name}\` cannot load: ${load.failure}` }, top));
      return;
    }
    diagnostics.push(...checkCredentialsTools(def, kept, ["families", index, "credentials"]).map((f) => diag(f, top)));
    tools.push(...kept);
    families.push({
      name: def.name,
      description: def.description.trim(),
      required: def.required,
      tool_count: kept.length,
      examples: kept.slice(0, EXAMPLES_PER_FAMILY).map((t) => verbOf(t.name)),
      // Names and flags only: values are read from the environment where the gateway runs.
      ...(def.variables ? { variables: def.variables } : {}),
      ...(def.credentials ? { credentials: normaliseCredentials(def.credentials) } : {}),
    });
  });

  diagnostics.push(...duplicateHints(hinted));
  return { tools, families, skippedFamilies };
}

/** The same example or alias on two tools (a warning): find then ranks them by their other text alone. */
function duplicateHints(tools: readonly { tool: CatalogTool; origin: Origin }[]): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const field of ["examples", "aliases"] as const) {
    const first = new Map<string, { name: string; origin: Origin; index: number }>();
    for (const { tool, origin } of tools) {
      (tool[field] ?? []).forEach((text, index) => {
        const key = hintKey(text);
        const prior = first.get(key);
        if (!prior) return void first.set(key, { name: tool.name, origin, index });
        if (prior.name === tool.name) return; // within one tool: the tool's own check reports it
        const line = origin.line?.();
        out.push({
          severity: "warning",
          code: "SEARCH_HINT_DUPLICATE",
          file: origin.file,
          tool: tool.name,
          path: `${origin.path}.${field}[${index}]`,
          ...(line ? { line } : {}),
          message: `"${text}" is also in ${field} of \`${prior.name}\` (${showOrigin(prior.origin)}): find cannot tell the two apart by it; keep it on the tool that serves it`,
        });
      });
    }
  }
  return out;
}
