// The call gateway: resolve the name → authorize → validate args → dispatch with a timeout →
// check the output → pin the tool on the session. Pure orchestration; every effect is a port.
import type { CatalogTool } from "../../../registry/contract/artifact.js";
import { META_TOOLS, modelNameOf } from "../../../registry/contract/names.js";
import { listProblems, ToolbeltError, type ErrorCode } from "../errors.js";
import { createNameResolver, type Resolution } from "./resolve.js";
import type { Caller, MissOutcome } from "../ports.js";
import type { BackendOutput, CallPorts, CallRequest, CallResponse } from "./types.js";
import { idempotent } from "./idempotency.js";
import { digestOf, governanceFields, modelFields, upstreamFields, type CallAudit, type CallContext } from "./audit.js";
import { createSchemaValidator, reservedKeys, summarize, type SchemaProblem, type SchemaValidator } from "./validate.js";
import { NO_REDACTION, redactedError, type Redactor } from "../redaction.js";
import type { Limiter, LimitState, Pass } from "../limits.js";
import type { Approvals } from "../approvals.js";
import type { GovernedCaller } from "../auth.js";
import type { ResultBudget } from "./result-budget.js";
import { deprecationOf, refuseDeprecated, type DeprecatedCalls } from "../deprecated.js";

export type GatewayPorts = CallPorts & {
  /**
   * Every backend's answer and error passes through it before anyone sees it (caller, idempotency
   * record, audit, log): the deployment's secrets, model keys and API key (lambdas/secrets.ts
   * gatewayRedactor). Default: nothing is redacted here, only what each backend redacts itself.
   */
  redactor?: Redactor;
  /** The policy's rate limits, concurrency and quotas (core/limits.ts); absent when it declares none: nothing is counted. */
  limits?: Limiter;
  /** Calls the policy's `approvals` hold until approved (core/approvals.ts); absent: none are held. */
  approvals?: Approvals;
  /** Briefs marked `read_only`: a session opened with one runs only read-only tools. */
  readOnlyBriefs?: (brief: string) => boolean;
  /** Cuts answers over their tool's token budget and serves the rest by continuation; absent: answers are never cut. */
  results?: ResultBudget;
  /** A call to a deprecated tool: refused with 410 (default) or run with a warning (TOOLBELT_DEPRECATED_CALLS). */
  deprecatedCalls?: DeprecatedCalls;
};

export type CallOptions = {
  /** Aborts the call (e.g. the client went away). */
  signal?: AbortSignal;
  /** Internal: nesting depth of toolbelt.call. */
  depth?: number;
  /** Upper bound on any tool's timeout (e.g. what is left of a Lambda invocation). */
  maxTimeoutMs?: number;
  /** Where the call came in (request and correlation ids, REST or MCP), for its audit record. */
  context?: CallContext;
  /** The caller's idempotency key (checked by the route): a repeat returns the first answer (ports.idempotency). */
  idempotencyKey?: string;
  /** Told the window limits the call counted against, once it was admitted (REST sets RateLimit headers from them). */
  onLimits?: (states: readonly LimitState[]) => void;
  /** Completes the call held under this approval id (the caller's, approved, same tool and arguments). */
  approval?: string;
};

/** The audit's word on approvals: the held call's approval id, and who approved the completed one. */
type ApprovalFacts = { approval?: string; approver?: string };

/** Whether the call may run only read-only tools: a read-only principal, a session opened read-only or with a read-only brief. */
const readOnlyCall = (caller: Caller, session: { brief?: string } | undefined, briefs: GatewayPorts["readOnlyBriefs"]): boolean =>
  (caller as GovernedCaller).read_only === true ||
  (session as { read_only?: boolean } | undefined)?.read_only === true ||
  (session?.brief !== undefined && briefs?.(session.brief) === true);

export type CallGateway = {
  call(request: CallRequest, caller: Caller, options?: CallOptions): Promise<CallResponse>;
};

const EMPTY_OBJECT_SCHEMA = { type: "object" } as const;

/** The audit's word on a cut answer: `first` when this call cut it (with its size), `next` for a continuation. */
type CutFacts = { result_part?: "first" | "next"; result_chars?: number };

/** The registry's per-tool budget (`result_budget_tokens`), once the catalog carries it. */
const budgetOf = (tool: CatalogTool): number | undefined => tool.result_budget_tokens;

/** toolbelt.call's `continuation` goes to the call it makes (the builtin passes only tool and args). */
const continuationFor = (tool: CatalogTool, args: Record<string, unknown>, req: CallRequest): Pick<CallRequest, "continuation"> =>
  tool.name === "toolbelt.call" && typeof args.continuation === "string" && req.continuation === undefined && req.tool === args.tool
    ? { continuation: args.continuation }
    : {};

/** A schema error listing at most MAX_LISTED_PROBLEMS problems (`total` counts them all), the rest as `more_problems`. */
function problemsError(code: ErrorCode, lead: string, problems: readonly SchemaProblem[], total: number, end: string, details: Record<string, unknown>) {
  const { listed, more, tail } = listProblems(problems, total);
  return new ToolbeltError(code, `${lead}: ${summarize(listed)}${tail}${end}`, {
    ...details,
    problems: listed,
    ...(more > 0 ? { more_problems: more } : {}),
  });
}

/**
 * The most a call waits for its pin after the tool answered. Pinning is one round of parallel
 * writes with no retry (a few ms on DynamoDB); past this bound the call answers and the write,
 * already sent, finishes on its own (its failure is logged).
 */
export const PIN_WAIT_MS = 100;

/** The reason work a backend left running is stopped with once its call is over (one instance: no stack per call). */
const CALL_FINISHED = new ToolbeltError("UPSTREAM_ERROR", "call finished");

/** The tool's own budget, cut short when the invocation itself has less time left. */
const timeoutOf = (tool: CatalogTool, options: CallOptions) => Math.max(1, Math.min(tool.timeout_ms, options.maxTimeoutMs ?? Infinity));

export function createCallGateway(ports: GatewayPorts, validator: SchemaValidator = createSchemaValidator()): CallGateway {
  const names = [...ports.tools.keys()];
  const resolver = createNameResolver(names, (i) => modelNameOf(ports.tools.get(names[i]!)!));
  const now = ports.now ?? (() => new Date());
  const pinWaitMs = ports.pinWaitMs ?? PIN_WAIT_MS;
  const redactor = ports.redactor ?? NO_REDACTION;

  const recordMiss = (name: string, caller: Caller, outcome: MissOutcome, resolvedTo?: string): Promise<void> => {
    if (!ports.misses) return Promise.resolve();
    return ports.misses
      .record({ name, principal: caller.principal, at: now().toISOString(), outcome, ...(resolvedTo ? { resolved_to: resolvedTo } : {}) })
      .catch((e: unknown) => ports.log?.("warn", "could not record a tool-name miss", { name, error: String(e) }));
  };

  const resolve = async (name: string, caller: Caller): Promise<{ tool: CatalogTool; resolution: Resolution; miss: Promise<void> }> => {
    const r = resolver.resolve(name, caller.granted);
    switch (r.status) {
      case "exact":
        return { tool: ports.tools.get(r.name)!, resolution: r, miss: Promise.resolve() };
      case "resolved":
        return { tool: ports.tools.get(r.name)!, resolution: r, miss: recordMiss(name, caller, "resolved", r.name) };
      case "not_granted":
        throw new ToolbeltError(
          "TOOL_NOT_GRANTED",
          `you are not granted the tool ${r.name}; being on a session's surface does not grant it. Ask the operator for a grant or use toolbelt.find to see the tools you may call`,
          { tool: r.name },
        );
      case "ambiguous":
      case "not_found": {
        await recordMiss(name, caller, r.status);
        const hint = r.suggestions.length
          ? `did you mean ${r.suggestions.join(", ")}? Call it by its full name`
          : "use toolbelt.find to search the tools you may call";
        const what =
          r.status === "ambiguous" ? `the name ${JSON.stringify(name)} matches several tools` : `no tool you may call is named ${JSON.stringify(name)}`;
        throw new ToolbeltError("TOOL_NOT_FOUND", `${what}; ${hint}`, { tool: name, suggestions: r.suggestions, ambiguous: r.status === "ambiguous" });
      }
    }
  };

  /** The backend's answer with secrets replaced: checked against the output schema as the caller will see it. */
  const redactedOutput = (output: BackendOutput): BackendOutput => ({
    ...output,
    result: redactor.redactDeep(output.result),
    ...(output.checked !== undefined ? { checked: redactor.redactDeep(output.checked) } : {}),
    ...(output.metadata ? { metadata: redactor.redactDeep(output.metadata) as BackendOutput["metadata"] } : {}),
  });

  /** What the audit record learns while the call runs (the tool once resolved, the upstream's status, pins evicted, a cut). */
  type Facts = Partial<CallAudit> & CutFacts;
  /** The calls (by their facts) whose dispatch began: an approval completes at most once from there. */
  const dispatchStarted = new WeakSet<Facts>();

  /** The call with its answer and any error redacted, before the idempotency record, the audit or the caller see them. */
  const run = (request: CallRequest, caller: Caller, options: CallOptions, facts: Facts): Promise<CallResponse> =>
    runAsIs(request, caller, options, facts).catch((e: unknown) => {
      throw redactedError(e, redactor);
    });

  /** The answer within its tool's token budget (the meta-tools' answers are bounded by the calls inside them). */
  const bounded = async (tool: CatalogTool, result: unknown, caller: Caller, facts: Facts): Promise<Pick<CallResponse, "result" | "continuation">> => {
    if (!ports.results || META_TOOLS.includes(tool.name)) return { result };
    const cut = await ports.results.cut(result, tool.name, budgetOf(tool), caller.principal, now());
    if (cut.continuation) Object.assign(facts, { result_part: "first", result_chars: cut.continuation.total_chars } satisfies CutFacts);
    return cut;
  };

  const runAsIs = async (request: CallRequest, caller: Caller, options: CallOptions, facts: Facts): Promise<CallResponse> => {
    const depth = options.depth ?? 0;
    const { tool, resolution, miss } = await resolve(request.tool, caller);
    Object.assign(facts, {
      tool: tool.name,
      family: tool.family,
      kind: tool.kind,
      // Any other spelling than the full name: a near miss, or the model-safe name MCP clients use.
      ...(request.tool !== tool.name ? { resolved_from: request.tool } : {}),
      ...governanceFields(tool, request.args ?? {}),
    });
    const deprecation = deprecationOf(tool);
    if (deprecation && ports.deprecatedCalls !== "warn") throw refuseDeprecated(tool.name, deprecation);
    // The next part of an answer already cut: nothing runs again.
    if (request.continuation !== undefined) {
      if (!ports.results) throw new ToolbeltError("NOT_FOUND", "this gateway keeps no continuations", { field: "continuation" });
      const part = await ports.results.next(request.continuation, tool.name, budgetOf(tool), caller.principal, now());
      Object.assign(facts, { result_part: "next" satisfies CutFacts["result_part"] });
      await miss;
      return { tool: tool.name, result: part.result, continuation: part.continuation };
    }
    // Counted while the session is read (both round trips at once); a call that fails before dispatch still counted.
    const admission = ports.limits?.admit(caller, tool, timeoutOf(tool, options));
    // Handled now, read later: a refusal that lands while the session is read must not be an unhandled rejection.
    admission?.catch(() => undefined);
    let pass: Pass | undefined;
    try {
      // The record this check reads is the one pin-on-use decides from (one read per call).
      const session = request.session !== undefined && ports.sessions ? await ports.sessions.check(request.session, caller) : undefined;
      // Any spelling and any door reaches this one tool: a read-only call never runs a tool that may write.
      if (tool.governance.read_only !== true && !META_TOOLS.includes(tool.name) && readOnlyCall(caller, session, ports.readOnlyBriefs)) {
        throw new ToolbeltError("TOOL_NOT_GRANTED", `${tool.name} is not read-only, and this principal or session may run only tools declaring read_only`, {
          tool: tool.name,
          read_only: true,
        });
      }

      const reserved = reservedKeys(request.args ?? {});
      if (reserved.count > 0) {
        throw problemsError("INVALID_ARGUMENTS", `the arguments for ${tool.name} use reserved key names`, reserved.problems, reserved.count, "", {
          tool: tool.name,
        });
      }
      const checked = validator.check(tool.input_schema ?? EMPTY_OBJECT_SCHEMA, request.args ?? {}, "input");
      if (!checked.valid) {
        throw problemsError(
          "INVALID_ARGUMENTS",
          `the arguments for ${tool.name} do not match its input schema`,
          checked.problems,
          checked.problems.length,
          "",
          {
            tool: tool.name,
            input_schema: tool.input_schema,
          },
        );
      }
      const args = checked.data as Record<string, unknown>;
      // Limits first: a caller over its limit may not hold calls either (each hold is an item and an approver's time).
      if (admission !== undefined) {
        pass = await admission;
        options.onLimits?.(pass.states);
      }
      // Held, not run: an approver decides and the caller completes it with the approval id (once() below).
      if (options.approval === undefined && ports.approvals?.requires(tool) && !META_TOOLS.includes(tool.name)) {
        const held = await ports.approvals.hold(caller, tool.name, digestOf(request.args ?? {}), request.session);
        Object.assign(facts, { approval: String(held.details.approval_id) } satisfies ApprovalFacts);
        throw held;
      }

      let dispatched: BackendOutput;
      // From here the upstream may act: an approved call that fails now is not run again under its approval.
      dispatchStarted.add(facts);
      try {
        dispatched = await dispatch(tool, args, caller, request.session, depth, options);
      } finally {
        // The slot frees as soon as the upstream is done, not after the checks and the pin.
        await pass?.release();
      }
      const output = redactedOutput(dispatched);
      if (output.upstream_status !== undefined) facts.upstream_status = output.upstream_status;

      if (tool.output_schema) {
        const value = output.checked !== undefined ? output.checked : output.result;
        const out = validator.check(tool.output_schema, value, "output");
        if (!out.valid) {
          const blame = ". The tool or its upstream is at fault, not your arguments";
          throw problemsError(
            "OUTPUT_SCHEMA_MISMATCH",
            `${tool.name} returned a result that does not match its output schema`,
            out.problems,
            out.problems.length,
            blame,
            {
              tool: tool.name,
            },
          );
        }
      }

      if (request.session !== undefined && ports.sessions && !META_TOOLS.includes(tool.name)) {
        // The tool already ran: a failed pin is logged, not turned into an error the agent would retry.
        const pin = ports.sessions
          .recordUse(request.session, caller, tool.name, session)
          .then((use) => {
            if (use?.evicted?.length) facts.pins_evicted = use.evicted.length;
          })
          .catch((e: unknown) => ports.log?.("warn", "could not pin a used tool", { tool: tool.name, error: String(e) }));
        let timer: ReturnType<typeof setTimeout> | undefined;
        await Promise.race([pin, new Promise((r) => (timer = setTimeout(r, pinWaitMs)))]);
        clearTimeout(timer);
      }
      return {
        tool: tool.name,
        ...(resolution.status === "resolved" ? { resolved_from: request.tool, resolution: resolution.rule } : {}),
        ...(await bounded(tool, output.result, caller, facts)),
        ...(deprecation ? { deprecated: deprecation } : {}),
        ...(output.metadata ? { metadata: output.metadata } : {}),
      };
    } finally {
      // Failed before dispatch with a lease taken: free it (a refusal has nothing to free).
      if (admission && !pass)
        admission.then(
          (p) => p.release(),
          () => undefined,
        );
      await miss;
    }
  };

  // An abandoned claim (its process died) is taken over after the longest a call may take.
  let longestTimeoutMs = 0;
  for (const t of ports.tools.values()) longestTimeoutMs = Math.max(longestTimeoutMs, t.timeout_ms);

  /** The granted tool a name resolves to, or the name as sent (an unknown one fails the same way on a retry). */
  const canonicalTool = (name: string, caller: Caller): string => {
    const r = resolver.resolve(name, caller.granted);
    return r.status === "exact" || r.status === "resolved" ? r.name : name;
  };

  /** The held call, run once under its approval (core/approvals.ts checks caller, tool and arguments); a repeat replays it. */
  const completeApproved = async (request: CallRequest, caller: Caller, options: CallOptions, facts: Facts) => {
    const id = options.approval!;
    if (!ports.approvals) throw new ToolbeltError("NOT_FOUND", "this gateway holds no calls for approval", { approval_id: id });
    const call = {
      tool: canonicalTool(request.tool, caller),
      argsDigest: digestOf(request.args ?? {}),
      timeoutMs: Math.min(options.maxTimeoutMs ?? Infinity, longestTimeoutMs),
    };
    const done = await ports.approvals.complete(
      caller,
      id,
      call,
      () => run(request, caller, options, facts),
      () => dispatchStarted.has(facts),
    );
    Object.assign(facts, { approval: id, approver: done.approver } satisfies ApprovalFacts);
    if (done.replayed) Object.assign(facts, { tool: done.response.tool, idempotency: "replayed" } satisfies Facts);
    return { response: done.response, replayed: done.replayed };
  };

  /** The call, once per idempotency key when the caller sent one (a nested call never does). */
  const once = async (request: CallRequest, caller: Caller, options: CallOptions, facts: Facts): Promise<{ response: CallResponse; replayed: boolean }> => {
    if (options.approval !== undefined) return completeApproved(request, caller, options, facts);
    const key = options.idempotencyKey;
    // A continuation only reads what is stored: nothing to run twice.
    if (key === undefined || !ports.idempotency || (options.depth ?? 0) > 0 || request.continuation !== undefined)
      return { response: await run(request, caller, options, facts), replayed: false };
    const ran = await idempotent(
      ports.idempotency,
      {
        principal: caller.principal,
        key,
        // The tool as resolved (any spelling of one granted tool is the same call); the arguments and session as sent.
        request: { tool: canonicalTool(request.tool, caller), args: request.args ?? {}, session: request.session ?? null },
        timeoutMs: Math.min(options.maxTimeoutMs ?? Infinity, longestTimeoutMs),
        now: now().getTime(),
      },
      () => run(request, caller, options, facts),
    );
    facts.idempotency = ran.replayed ? "replayed" : "first";
    if (ran.replayed) {
      const tool = ports.tools.get(ran.response.tool);
      Object.assign(facts, {
        tool: ran.response.tool,
        ...(tool ? { family: tool.family, kind: tool.kind, ...governanceFields(tool, request.args ?? {}) } : {}),
      });
    }
    return ran;
  };

  const gateway: CallGateway = {
    async call(request, caller, options = {}) {
      const started = performance.now();
      const facts: Facts = {};
      const audit = (outcome: CallAudit["outcome"], status: number, extra: Facts = {}) =>
        ports.audit?.({
          ...options.context,
          principal: caller.principal,
          tool: request.tool,
          ...(request.session !== undefined ? { session: request.session } : {}),
          depth: options.depth ?? 0,
          args_digest: digestOf(request.args ?? {}),
          ...facts,
          ...extra,
          outcome,
          status,
          latency_ms: Math.round((performance.now() - started) * 100) / 100,
        });
      try {
        const { response } = await once(request, caller, options, facts);
        audit("OK", 200, modelFields(response.metadata));
        return response;
      } catch (e) {
        const err = e instanceof ToolbeltError ? e : undefined;
        audit(err?.code ?? "INTERNAL", err?.status ?? 500, upstreamFields(err?.details));
        throw e;
      }
    },
  };

  const dispatch = async (
    tool: CatalogTool,
    args: Record<string, unknown>,
    caller: Caller,
    session: string | undefined,
    depth: number,
    options: CallOptions,
  ): Promise<BackendOutput> => {
    const outer = options.signal;
    const backend = Object.hasOwn(ports.backends, tool.backend.kind) ? ports.backends[tool.backend.kind] : undefined;
    if (!backend) {
      throw new ToolbeltError(
        "NOT_IMPLEMENTED",
        `${tool.name} is a ${tool.backend.kind} tool and this gateway has no ${tool.backend.kind} backend configured`,
        {
          tool: tool.name,
          kind: tool.backend.kind,
        },
      );
    }
    const timeoutMs = timeoutOf(tool, options);
    // Built only when needed: an error captures a stack, a cost every call would pay for nothing.
    const timeoutError = () =>
      new ToolbeltError("UPSTREAM_TIMEOUT", `${tool.name} did not answer within its timeout of ${timeoutMs} ms; retry later or with a smaller request`, {
        tool: tool.name,
        timeout_ms: timeoutMs,
      });
    // One signal for the backend: the tool's timeout, the caller's cancellation, or the call being over.
    const timeout = AbortSignal.timeout(timeoutMs);
    const done = new AbortController();
    const signal = AbortSignal.any([timeout, done.signal, ...(outer ? [outer] : [])]);
    // What the caller hears when the signal fired: the timeout, or that its own call was cancelled.
    const reason = () =>
      timeout.aborted ? timeoutError() : new ToolbeltError("UPSTREAM_ERROR", `the call to ${tool.name} was cancelled`, { tool: tool.name });
    // Whatever a backend does, the call settles when the signal fires: nothing hangs past its timeout.
    const aborted = new Promise<never>((_, reject) => {
      const fire = () => reject(reason());
      if (signal.aborted) fire();
      else signal.addEventListener("abort", fire, { once: true });
    });
    aborted.catch(() => undefined);
    try {
      return await Promise.race([
        backend.invoke(tool, args, {
          signal,
          timeoutMs,
          caller,
          ...(session !== undefined ? { session } : {}),
          depth,
          call: (req) =>
            gateway.call({ ...req, ...continuationFor(tool, args, req), ...(session !== undefined ? { session } : {}) }, caller, {
              signal,
              depth: depth + 1,
              maxTimeoutMs: timeoutMs,
              ...(options.context ? { context: options.context } : {}),
            }),
        }),
        aborted,
      ]);
    } catch (e) {
      if (signal.aborted) throw reason();
      if (e instanceof ToolbeltError) throw e;
      // An unexpected error's text may carry a resolved URL or header: log it, never echo it.
      ports.log?.("error", "backend failed unexpectedly", { tool: tool.name, error: redactor.redact(String(e)) });
      throw new ToolbeltError("UPSTREAM_ERROR", `${tool.name} failed in its ${tool.backend.kind} backend`, { tool: tool.name });
    } finally {
      // Work the backend left running (a child process, a nested call) stops with the call.
      done.abort(CALL_FINISHED);
    }
  };

  return gateway;
}
