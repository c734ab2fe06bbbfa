// Calls held for approval (policy `approvals`, core/approvals.ts):
//   GET  /v1/approvals/{id}        the held call as its caller or an approver sees it
//   POST /v1/approvals/{id}        body {"decision": "approve" | "refuse", "reason"?}: an approver decides, once
//   POST /v1/approvals/{id}/call   body as POST /v1/call: the caller completes the approved call (once; a repeat replays)
import { Hono } from "hono";
import { type ApprovalView, DecisionBody } from "../../contract/approvals.js";
import { CallBody, type CallResponse } from "../../contract/call.js";
import { createApprovals, publicApproval, type Approvals, type ApprovalStore } from "../../core/approvals.js";
import type { Policy } from "../../core/auth.js";
import type { CallGateway } from "../../core/call/gateway.js";
import { callContext, callerOf, type AppEnv } from "../env.js";
import { checkBody, readJsonBody } from "../parse.js";

/** Where held calls are kept and how long they wait (Config: TOOLBELT_APPROVAL_TTL_SECS). */
export type ApprovalSettings = { store: ApprovalStore; ttlSecs?: number };

const built = new WeakMap<ApprovalSettings, Approvals>();

/** The approvals service of these settings and the policy's rules, built once (the gateway and these routes share it). */
export function approvalsOf(policy: Policy, settings: ApprovalSettings | undefined, clock: () => number): Approvals | undefined {
  if (!settings) return undefined;
  let approvals = built.get(settings);
  if (!approvals) {
    approvals = createApprovals({ ...settings, rules: policy.approvals, mayApprove: policy.mayApprove, now: clock });
    built.set(settings, approvals);
  }
  return approvals;
}

/** Time kept back from a Lambda invocation to answer after a tool timed out (as routes/call.ts). */
const LAMBDA_MARGIN_MS = 1000;

export function approvalRoutes(approvals: Approvals, gateway: CallGateway, opts: { maxBodyBytes: number }): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.get("/v1/approvals/:id", async (c) => c.json<ApprovalView>(publicApproval(await approvals.view(callerOf(c), c.req.param("id")))));

  app.post("/v1/approvals/:id", async (c) => {
    const body = checkBody(DecisionBody, await readJsonBody(c, { maxBytes: opts.maxBodyBytes }));
    const decided = await approvals.decide(callerOf(c), c.req.param("id"), body.decision === "approve", body.reason);
    return c.json<ApprovalView>(publicApproval(decided));
  });

  app.post("/v1/approvals/:id/call", async (c) => {
    const sent = await readJsonBody(c, { maxBytes: opts.maxBodyBytes });
    const body = checkBody(CallBody, sent);
    // The arguments as sent (as POST /v1/call passes them): their digest is what the approval binds.
    const args = (sent as { args?: Record<string, unknown> }).args ?? body.args;
    // On Lambda, the tool gives up (504) before the invocation is cut off, as on POST /v1/call.
    const lambda = c.env?.lambdaContext as { getRemainingTimeInMillis?: () => number } | undefined;
    const remaining = lambda?.getRemainingTimeInMillis?.();
    const response = await gateway.call({ ...body, args }, callerOf(c), {
      signal: c.req.raw.signal,
      context: callContext(c, "rest"),
      approval: c.req.param("id"),
      ...(remaining !== undefined ? { maxTimeoutMs: Math.max(1, remaining - LAMBDA_MARGIN_MS) } : {}),
    });
    return c.json<CallResponse>(response);
  });

  return app;
}
