// Approvals for consequential calls: a call the policy's `approvals` rules name is held, not run. An
// approver (policy `approver: true`, never the caller) approves or refuses it once before it expires;
// the approval binds the caller, the canonical tool name and a digest of the arguments, and the
// caller then completes the call once (a repeat replays the answer, as an idempotency key does).
import { randomUUID } from "node:crypto";
import type { ApprovalRule } from "../../registry/contract/policy.js";
import { globMatcher } from "../../registry/contract/globs.js";
import { canonicalName } from "../../registry/contract/names.js";
import type { ApprovalView } from "../contract/approvals.js";
import type { CallResponse } from "./call/types.js";
import { ToolbeltError } from "./errors.js";
import { type GovernedTool, selects } from "./governance.js";
import type { Caller } from "./ports.js";

export type ApprovalStatus = "pending" | "approved" | "refused" | "running" | "done";

export type ApprovalRecord = {
  id: string;
  /** The caller whose call is held: only it may complete it. */
  principal: string;
  /** The tool as resolved (catalog name). */
  tool: string;
  /** SHA-256 of the arguments as sent (canonical JSON): completing with others is refused. */
  args_digest: string;
  session?: string;
  status: ApprovalStatus;
  approver?: string;
  reason?: string;
  /** Epoch ms. */
  created_at: number;
  decided_at?: number;
  /** While running: who runs it and until when (epoch ms) before another completion may take over. */
  owner?: string;
  locked_until?: number;
  /** A completion that failed after its tool was dispatched: the approval is spent (the upstream may have acted). */
  failed?: { code: string; message: string };
  /** The completed call's answer, replayed to a repeat (absent when too large to keep). */
  response?: CallResponse;
  /** Epoch seconds (the table's TTL attribute): past it the approval is gone, whatever its state. */
  expires_at: number;
};

/** A conditional change: applied only if the record is live and in one of `from` (a `running` one only once its lock passed, when `stale` is set). */
export type ApprovalUpdate = {
  from: readonly ApprovalStatus[];
  set: Partial<Omit<ApprovalRecord, "id">>;
  /** Also take a running record whose lock passed before this epoch ms (its holder died). */
  stale?: number;
  /** Only while this owner holds it. */
  owner?: string;
};

/** Held calls: DynamoDB (stores/approvals.ts), an in-memory fake in unit tests. */
export interface ApprovalStore {
  create(record: ApprovalRecord): Promise<void>;
  /** The stored record, expired or not (the core decides), or undefined. */
  get(id: string): Promise<ApprovalRecord | undefined>;
  /** Whether the change was applied (false: the record was not in a state it applies to, or expired at `now` ms). */
  update(id: string, change: ApprovalUpdate, now: number): Promise<boolean>;
}

/** How long a held call waits for a decision and then its completion (TOOLBELT_APPROVAL_TTL_SECS). */
export const DEFAULT_APPROVAL_TTL_SECS = 3600;
/** Time a completion holds its claim beyond the tool's timeout before another may take it over. */
const LOCK_MARGIN_MS = 10_000;

export type ApprovalsOptions = {
  store: ApprovalStore;
  rules: readonly ApprovalRule[];
  /** The policy's approver grant (auth.ts Policy.mayApprove). */
  mayApprove: (caller: Caller) => boolean;
  ttlSecs?: number;
  now?: () => number;
};

export type Approvals = {
  /** Whether calls of this tool are held until approved. */
  requires(tool: GovernedTool): boolean;
  /** Hold the call: the error the caller gets (202 APPROVAL_REQUIRED) names the approval. */
  hold(caller: Caller, tool: string, argsDigest: string, session?: string): Promise<ToolbeltError>;
  /** An approver's decision, once, before the approval expires. */
  decide(approver: Caller, id: string, approve: boolean, reason?: string): Promise<ApprovalRecord>;
  /** The approval as its caller or an approver may see it. */
  view(caller: Caller, id: string): Promise<ApprovalRecord>;
  /**
   * The caller's completion: the held call with the same tool and arguments runs once (`execute`);
   * a repeat after it ran returns its answer (`replayed`).
   */
  complete(
    caller: Caller,
    id: string,
    call: { tool: string; argsDigest: string; timeoutMs: number },
    execute: () => Promise<CallResponse>,
    /** Whether `execute` reached the upstream: a failure before that leaves the approval usable, one after spends it. */
    dispatched?: () => boolean,
  ): Promise<{ response: CallResponse; replayed: boolean; approver: string }>;
};

/** What an approval id can be (ours are UUIDs): a caller-sized key would otherwise reach the store and be its 500. */
const APPROVAL_ID = /^[A-Za-z0-9_-]{1,128}$/;

const where = (id: string) => ({ approve: `/v1/approvals/${id}`, complete: `/v1/approvals/${id}/call` });

/** What a caller and an approver see of a record (no owner, lock or stored answer). */
export function publicApproval(r: ApprovalRecord): ApprovalView {
  const { owner: _o, locked_until: _l, response: _r, ...shown } = r;
  return { ...shown, expires_at: new Date(r.expires_at * 1000).toISOString(), created_at: new Date(r.created_at).toISOString(), ...where(r.id) };
}

export function createApprovals(options: ApprovalsOptions): Approvals {
  const { store } = options;
  const now = options.now ?? Date.now;
  const ttlSecs = options.ttlSecs ?? DEFAULT_APPROVAL_TTL_SECS;
  const globs = globMatcher(options.rules.flatMap((r) => r.tools ?? []));
  const selectors = options.rules.flatMap((r) => (r.where ? [r.where] : []));

  /** The live record, or NOT_FOUND / APPROVAL_EXPIRED. */
  const live = async (id: string): Promise<ApprovalRecord> => {
    const r = APPROVAL_ID.test(id) ? await store.get(id) : undefined;
    if (!r) throw new ToolbeltError("NOT_FOUND", `no approval ${JSON.stringify(id.slice(0, 80))}`, { approval_id: id.slice(0, 80) });
    // dynalite (and DynamoDB for up to days) keeps expired items: past expires_at it is gone.
    if (r.expires_at * 1000 <= now()) {
      throw new ToolbeltError("APPROVAL_EXPIRED", `approval ${id} expired; make the call again to ask for a new one`, { approval_id: id, status: r.status });
    }
    return r;
  };

  const refusedError = (r: ApprovalRecord) =>
    new ToolbeltError("APPROVAL_REFUSED", `${r.approver ?? "an approver"} refused the call to ${r.tool}${r.reason ? `: ${r.reason}` : ""}; it will not run`, {
      approval_id: r.id,
      tool: r.tool,
      approver: r.approver,
    });

  return {
    requires: (tool) => globs(tool.name) || selectors.some((s) => selects(s, tool.governance)),

    async hold(caller, tool, argsDigest, session) {
      const at = now();
      const record: ApprovalRecord = {
        id: randomUUID(),
        principal: caller.principal,
        tool,
        args_digest: argsDigest,
        ...(session !== undefined ? { session } : {}),
        status: "pending",
        created_at: at,
        expires_at: Math.floor(at / 1000) + ttlSecs,
      };
      await store.create(record);
      const expires = new Date(record.expires_at * 1000).toISOString();
      return new ToolbeltError(
        "APPROVAL_REQUIRED",
        `the call to ${tool} was held for approval and did not run; an approver must approve it (POST ${where(record.id).approve}) before ${expires}, then make the same call with this approval id (POST ${where(record.id).complete})`,
        { approval_id: record.id, tool, status: "pending", expires_at: expires, ...where(record.id) },
      );
    },

    async decide(approver, id, approve, reason) {
      if (!options.mayApprove(approver)) {
        throw new ToolbeltError("FORBIDDEN", "approving calls needs a principal with `approver: true` in the policy", { approval_id: id });
      }
      const r = await live(id);
      if (r.principal === approver.principal) {
        throw new ToolbeltError("FORBIDDEN", "a principal never approves or refuses its own call: another approver must", { approval_id: id });
      }
      const decided = {
        status: approve ? "approved" : "refused",
        approver: approver.principal,
        decided_at: now(),
        ...(reason ? { reason } : {}),
      } as const;
      if (!(await store.update(id, { from: ["pending"], set: decided }, now()))) {
        const after = await live(id);
        throw new ToolbeltError("CONFLICT", `approval ${id} was already decided (${after.status}); a decision is made once`, {
          approval_id: id,
          status: after.status,
        });
      }
      return { ...r, ...decided };
    },

    async view(caller, id) {
      const r = await live(id);
      if (r.principal !== caller.principal && !options.mayApprove(caller)) {
        // Another caller's approval is none of its business: answered as if it did not exist.
        throw new ToolbeltError("NOT_FOUND", `no approval ${JSON.stringify(id)}`, { approval_id: id });
      }
      return r;
    },

    async complete(caller, id, call, execute, dispatched = () => true) {
      const r = await live(id);
      if (r.principal !== caller.principal) {
        throw new ToolbeltError("NOT_FOUND", `no approval ${JSON.stringify(id)}`, { approval_id: id });
      }
      if (canonicalName(r.tool) !== canonicalName(call.tool) || r.args_digest !== call.argsDigest) {
        throw new ToolbeltError(
          "APPROVAL_MISMATCH",
          `approval ${id} is for a call to ${r.tool} with other arguments; it completes only the call that was held, as it was sent`,
          { approval_id: id, tool: r.tool },
        );
      }
      if (r.status === "pending") {
        throw new ToolbeltError("APPROVAL_PENDING", `approval ${id} has not been decided yet; retry once an approver approved it`, {
          approval_id: id,
          expires_at: new Date(r.expires_at * 1000).toISOString(),
        });
      }
      if (r.status === "refused") throw refusedError(r);
      const approver = r.approver ?? "";
      if (r.status === "done") {
        if (r.failed) {
          throw new ToolbeltError(
            "CONFLICT",
            `the call approved by ${id} ran and failed (${r.failed.code}); an approval runs a call at most once: make the call again to ask for a new approval`,
            { approval_id: id, failed: r.failed },
          );
        }
        if (r.response) return { response: r.response, replayed: true, approver };
        throw new ToolbeltError("CONFLICT", `the call approved by ${id} already ran; its answer was too large to keep`, { approval_id: id });
      }
      const owner = randomUUID();
      const at = now();
      const claim = { set: { status: "running", owner, locked_until: at + call.timeoutMs + LOCK_MARGIN_MS } } as const;
      // No takeover of a stale run: it may have reached the upstream before its process died (at most once).
      const took = await store.update(id, { from: ["approved"], ...claim }, at);
      if (!took) {
        throw new ToolbeltError(
          "IDEMPOTENCY_IN_PROGRESS",
          `the call approved by ${id} is running (or its run was cut off); retry once it has answered, or make the call again for a new approval`,
          { approval_id: id },
        );
      }
      let response: CallResponse;
      try {
        response = await execute();
      } catch (e) {
        // Failed before the upstream was reached: the approval stands for a retry. After: it is spent, the failure kept.
        const set = dispatched()
          ? {
              status: "done" as const,
              failed: {
                code: e instanceof ToolbeltError ? e.code : "INTERNAL",
                message: e instanceof ToolbeltError && e.expose ? e.message.slice(0, 500) : "internal error",
              },
            }
          : { status: "approved" as const };
        await store.update(id, { from: ["running"], owner, set }, now()).catch(() => undefined);
        throw e;
      }
      await store.update(id, { from: ["running"], owner, set: { status: "done", response } }, now()).catch(() => undefined);
      return { response, replayed: false, approver };
    },
  };
}
