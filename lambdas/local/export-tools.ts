// `npx tsx lambdas/local/export-tools.ts --format anthropic|openai [--artifact DIR] [--policy FILE --principal ID]
// [--brief NAME] [--registry DIR]`: GET /v1/tools/export offline, from a built artifact, printed as JSON.
// Without a policy every tool is granted (the local principal's view); with one, exactly the principal's grants.
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import type { Artifact } from "../artifact.js";
import type { ModelApiFormat } from "../contract/model-apis.js";
import { createPolicy, parsePolicy } from "../core/auth.js";
import { exportTools } from "../core/export.js";
import { beltNames } from "../core/surface.js";
import type { ExportAnswer } from "../contract/model-apis.js";
import type { SurfaceBounds } from "../core/ports.js";
import { globMatcher } from "../../registry/contract/globs.js";

export type OfflineExport = {
  format: ModelApiFormat;
  granted: (name: string) => boolean;
  /** The brief's declaration (names and globs); none: the principal's own belt. */
  declared?: readonly string[];
  bounds: SurfaceBounds;
  alwaysLoaded?: readonly string[];
};

/** The export as the route answers it for a caller with these grants and no session. */
export function exportOffline(artifact: Pick<Artifact, "tools" | "families" | "byName" | "manifest">, o: OfflineExport): ExportAnswer {
  const isAlwaysLoaded = globMatcher(o.alwaysLoaded ?? artifact.manifest.always_loaded);
  const belt = new Set(beltNames({ artifact, granted: o.granted, isAlwaysLoaded, declared: o.declared ?? [], pins: [], bounds: o.bounds }));
  return exportTools(o.format, { tools: artifact.tools, granted: o.granted, onBelt: (name) => belt.has(name) });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      format: { type: "string" },
      artifact: { type: "string", default: "dist/artifact" },
      policy: { type: "string" },
      principal: { type: "string" },
      brief: { type: "string" },
      registry: { type: "string", default: "registry" },
    },
  });
  const format = values.format;
  if (format !== "anthropic" && format !== "openai") throw new Error("--format anthropic or --format openai");
  const [{ loadArtifact }, { loadConfig }] = await Promise.all([import("../artifact.js"), import("../config.js")]);
  const artifact = loadArtifact(values.artifact);
  let granted: (name: string) => boolean = () => true;
  if (values.policy) {
    const caller = createPolicy(parsePolicy(readFileSync(values.policy, "utf8"))).callerById(values.principal ?? "");
    if (!caller) throw new Error(`--principal: no principal ${JSON.stringify(values.principal ?? "")} in ${values.policy}`);
    granted = caller.granted;
  }
  let declared: readonly string[] = [];
  if (values.brief) {
    const { loadBriefs } = await import("../../build/load.js");
    const brief = (await loadBriefs(values.registry)).briefs.find((b) => b.name === values.brief);
    if (!brief) throw new Error(`--brief: no brief ${values.brief} in ${values.registry}/briefs`);
    declared = brief.tools;
  }
  const config = loadConfig(process.env);
  const answer = exportOffline(artifact, {
    format,
    granted,
    declared,
    bounds: config.surface,
    ...(config.alwaysLoaded ? { alwaysLoaded: config.alwaysLoaded } : {}),
  });
  process.stdout.write(`${JSON.stringify(answer, null, 2)}\n`);
}
