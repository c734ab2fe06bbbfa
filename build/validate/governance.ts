// Governance declarations are checked at build time, so a misdeclared tool never reaches a gateway.
import type { GovernanceInfo } from "../../registry/contract/artifact.js";
import { IMPACT_BOUNDS } from "../../registry/contract/tool.js";
import { isRecord, type Finding } from "./finding.js";

export function checkGovernance(g: GovernanceInfo, inputSchema: unknown, method?: string): Finding[] {
  const out: Finding[] = [];
  if (g.consequential && g.affects === undefined) {
    out.push({
      code: "CONSEQUENTIAL_WITHOUT_AFFECTS",
      at: ["consequential"],
      message: "a consequential tool must say who it affects: add `affects: <input property>` naming a required property of its input_schema",
    });
  }
  if (g.affects !== undefined) {
    const props = isRecord(inputSchema) && isRecord(inputSchema.properties) ? inputSchema.properties : {};
    const required = isRecord(inputSchema) && Array.isArray(inputSchema.required) ? inputSchema.required : [];
    if (!Object.hasOwn(props, g.affects)) {
      out.push({ code: "AFFECTS_NOT_REQUIRED", at: ["affects"], message: `\`affects\` names \`${g.affects}\`, which is not a property of the input_schema` });
    } else if (!required.includes(g.affects)) {
      out.push({
        code: "AFFECTS_NOT_REQUIRED",
        at: ["affects"],
        message: `\`affects\` names \`${g.affects}\`, which the input_schema does not list in \`required\``,
      });
    }
  }
  if (g.impact !== undefined && (g.impact < IMPACT_BOUNDS.min || g.impact > IMPACT_BOUNDS.max)) {
    out.push({ code: "IMPACT_OUT_OF_BOUNDS", at: ["impact"], message: `impact ${g.impact} is outside [${IMPACT_BOUNDS.min}, ${IMPACT_BOUNDS.max}]` });
  }
  if (g.read_only) {
    const clash = (at: string, why: string) => out.push({ code: "CONTRADICTORY_GOVERNANCE", at: [at], message: `read_only contradicts ${why}` });
    if (g.consequential) clash("consequential", "consequential: a tool that changes nothing affects no one");
    if (g.destructive) clash("destructive", "destructive: a tool that changes nothing deletes nothing");
    if (g.idempotent === false) clash("idempotent", "idempotent: false: reading again has no further effect");
    if (method === "DELETE") clash("method", "method DELETE");
  }
  return out;
}
