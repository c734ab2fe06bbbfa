// Declared upstream settings reach a deployment or the synth fails: every `${NAME}` a family declares
// (registry `variables`, carried in the artifact's families) must come from the construct's
// `environment` or `secrets`. A required family without one would answer 503 on its first call;
// an optional one is left out of the deployment with a warning, as the build skips an optional family that fails to load.
import { Annotations } from "aws-cdk-lib";
import type { Construct } from "constructs";
import type { FamilyInfo } from "../registry/contract/artifact.js";
import { unsetSettings } from "../registry/contract/upstream-settings.js";

const how = (m: { name: string; secret: boolean }) => `${m.name} (${m.secret ? "a secret: pass it in `secrets`" : "pass it in `environment`"})`;

/**
 * Fails naming each required family's unset variables; warns for each optional family with unset
 * ones and returns their names, for the caller to leave those families out of the deployment.
 */
export function checkUpstreamSettings(scope: Construct, families: readonly FamilyInfo[], provided: ReadonlySet<string>): string[] {
  const unset = unsetSettings(families, provided);
  const required = unset.filter((u) => u.required);
  if (required.length > 0) {
    const lines = required.map((u) => `  family \`${u.family}\` needs ${u.missing.map(how).join(", ")}`);
    throw new Error(
      `the registry declares upstream settings this deployment does not provide (its tools would answer 503):\n${lines.join("\n")}\n` +
        "infra/app.ts reads them from -c settings=FILE (JSON: {environment: {NAME: value}, secrets: {NAME: {parameter|secret: name}}})",
    );
  }
  for (const u of unset) {
    Annotations.of(scope).addWarningV2(
      `toolbelt:unset-settings:${u.family}`,
      `optional family \`${u.family}\` lacks ${u.missing.map(how).join(", ")}: left out of this deployment (its tools are neither found nor called) until it is set`,
    );
  }
  return unset.map((u) => u.family);
}
