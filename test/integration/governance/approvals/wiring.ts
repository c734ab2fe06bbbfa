// The call gateway as call-gateway.ts builds it, plus what issue 28 adds until the lead wires it there:
// the approvals service (shared with the approval routes) and the read-only briefs.
import { createBackends } from "../../../../lambdas/backends/index.js";
import { withMetaTools } from "../../../../lambdas/contract/meta-tools.js";
import type { CallAudit } from "../../../../lambdas/core/call/audit.js";
import { createCallGateway } from "../../../../lambdas/core/call/gateway.js";
import type { AppCallGateway, CallGatewayOptions } from "../../../../lambdas/http/call-gateway.js";
import type { Deps } from "../../../../lambdas/http/deps.js";
import { approvalsOf, type ApprovalSettings } from "../../../../lambdas/http/routes/approvals.js";

export function approvalGateway(options: CallGatewayOptions, settings: ApprovalSettings, audit: (r: CallAudit) => void): (deps: Deps) => AppCallGateway {
  return (deps) => {
    const built = createBackends({ env: options.env, families: deps.artifact.families, finder: deps.finder, exec: false, models: deps.models });
    const approvals = approvalsOf(deps.policy, settings, deps.clock);
    const gateway = createCallGateway({
      tools: withMetaTools(deps.artifact.byName),
      backends: built.backends,
      sessions: deps.sessions,
      audit,
      now: () => new Date(deps.clock()),
      ...(approvals ? { approvals } : {}),
      readOnlyBriefs: (name) => deps.briefs.get(name)?.read_only === true,
    });
    return { gateway, close: () => built.mcp.close() };
  };
}
