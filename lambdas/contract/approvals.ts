// Calls held for approval (lambdas/http/routes/approvals.ts, core/approvals.ts): an approver's decision
// goes in; the held call comes back as its caller and approvers see it (never the stored answer).
import * as z from "../core/zod-mini.js";
import { described, int } from "./schema.js";

/** POST /v1/approvals/{id}. */
export const DecisionBody = z.strictObject({
  decision: described(z.enum(["approve", "refuse"]), "approve: the caller may now complete the call, once; refuse: it never runs"),
  reason: described(z.optional(z.string().check(z.maxLength(500))), "Why, for the caller and the audit (at most 500 characters)"),
});
export type DecisionBody = z.infer<typeof DecisionBody>;

export const ApprovalView = z.object({
  id: z.string(),
  principal: described(z.string(), "Whose call is held: only this caller completes it"),
  tool: described(z.string(), "The held call's tool (full name)"),
  args_digest: described(z.string(), "SHA-256 (hex) of the held call's arguments in canonical JSON: a completion must send the same arguments"),
  session: z.optional(z.string()),
  status: described(
    z.enum(["pending", "approved", "refused", "running", "done"]),
    "pending until an approver decides; approved until the caller completes it (running while it runs, done after: a repeat replays the answer)",
  ),
  approver: described(z.optional(z.string()), "Who decided"),
  reason: z.optional(z.string()),
  created_at: z.string(),
  decided_at: described(z.optional(int()), "Epoch milliseconds of the decision"),
  expires_at: described(z.string(), "ISO 8601: past it the approval is gone (410 APPROVAL_EXPIRED)"),
  approve: described(z.string(), "Where an approver decides: POST with DecisionBody"),
  complete: described(z.string(), "Where the caller completes the approved call: POST the same body as POST /v1/call"),
});
export type ApprovalView = z.infer<typeof ApprovalView>;
