// Family loads into one catalog: optional families that failed are skipped (their problems become
// warnings), required ones that failed are errors, and tool names that would be one tool to the
// gateway (canonical name) or to a model (model-safe name) are collisions naming both places.
import type { CatalogTool, FamilyInfo } from "../../registry/contract/artifact.js";
import type { Diagnostic } from "../../registry/contract/diagnostics.js";
import type { FamilyDef } from "../../registry/contract/family.js";
import { canonicalName, modelName, verbOf } from "../../registry/contract/names.js";
import type { Segment } from "../validate/finding.js";
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
    if (load.failure !== undefined) {
      diagnostics.push(diag({ code: "FAMILY_LOAD_FAILED", at, message: `required family \`${def.name}\` cannot load: ${load.failure}` }, top));
      return;
    }
    const kept: CatalogTool[] = [];
    load.tools.forEach((t, i) => {
      const canon = canonicalName(t.name);
      const origin = load.origins[i] ?? { file: t.source, path: "$" };
      const prior = seen.get(canon);
      if (prior) {
        const message =
          prior.name === t.name
            ? `\`${t.name}\` is defined twice: here and in ${showOrigin(prior.origin)}`
            : `\`${t.name}\` collides with \`${prior.name}\` defined in ${showOrigin(prior.origin)}: names that differ only by case or \`_\`/\`-\`/\`.\` are one tool to the gateway`;
        const { file, path } = origin;
        const line = origin.line?.();
        diagnostics.push({ severity: "error", code: "NAME_COLLISION", file, tool: t.name, path, message, ...(line ? { line } : {}) });
        return;
      }
      // Models call tools by the projection: two tools with one would be one function to them.
      const model = modelName(t.name);
      const twin = seenModel.get(model);
      if (twin) {
        const message = `\`${t.name}\` and \`${twin.name}\` defined in ${showOrigin(twin.origin)} have the same model-safe name \`${model}\`: rename one (names over 64 characters are shortened to 55 and a hash)`;
        const line = origin.line?.();
        diagnostics.push({ severity: "error", code: "NAME_COLLISION", file: origin.file, tool: t.name, path: origin.path, message, ...(line ? { line } : {}) });
        return;
      }
      seen.set(canon, { name: t.name, origin });
      seenModel.set(model, { name: t.name, origin });
      kept.push(t);
    });
    tools.push(...kept);
    families.push({
      name: def.name,
      description: def.description.trim(),
      required: def.required,
      tool_count: kept.length,
      examples: kept.slice(0, EXAMPLES_PER_FAMILY).map((t) => verbOf(t.name)),
      // Names and flags only: values are read from the environment where the gateway runs.
      ...(def.variables ? { variables: def.variables } : {}),
    });
  });

  return { tools, families, skippedFamilies };
}
