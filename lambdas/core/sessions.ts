// Sessions and pin-on-use. A session belongs to its principal; pins are LRU within a schema-byte
// budget; concurrent writers retry on a version check, so no pin is lost and the budget always holds.
import { randomBytes } from "node:crypto";
import type { BriefFile } from "../../registry/contract/brief.js";
import { META_TOOLS } from "../../registry/contract/names.js";
import { ToolbeltError } from "./errors.js";
import type { Artifact, Caller, Clock, GrantFilter, Pin, SessionRecord, SessionStore, SurfaceBounds } from "./ports.js";
import { beltNames, computeSurface, declarationMatcher, grantedView, toolBytes, type GrantedView, type Surface } from "./surface.js";

export type SessionsDeps = {
  store: SessionStore;
  artifact: Pick<Artifact, "tools" | "families" | "byName">;
  briefs: ReadonlyMap<string, BriefFile>;
  isAlwaysLoaded: (name: string) => boolean;
  bounds: SurfaceBounds;
  ttlSecs: number;
  /** Epoch milliseconds. */
  clock?: Clock;
  /** Conflict retries (default 100) and the jittered backoff between them (5 ms doubling, capped at 250 ms). */
  retry?: { attempts?: number; baseMs?: number; capMs?: number; sleep?: (ms: number) => Promise<void>; random?: () => number };
};

export type UseResult = {
  /** The tool is on the belt after this use (pinned, or declared / always-loaded / meta anyway). */
  on_belt: boolean;
  pinned: boolean;
  /** Pins evicted (least recently used first) to stay within the budget. */
  evicted: string[];
  /** Why the tool was not pinned, when it was not. */
  note?: string;
  /** False when nothing changed enough to write (the tool was already the latest pin, renewed moments ago). */
  written: boolean;
  session: SessionRecord;
};

export type Sessions = {
  open(caller: Caller, briefName?: string): Promise<SessionRecord>;
  /** The session if it exists, is the caller's and has not expired; SESSION_NOT_FOUND / SESSION_EXPIRED otherwise. */
  get(id: string, caller: Caller): Promise<SessionRecord>;
  surface(session: SessionRecord, caller: Caller): Surface;
  /** The surface a session opened now with this declaration would have (no pins): what MCP's list and instructions advertise. */
  opening(caller: Caller, declared: readonly string[]): Surface;
  /** The names on the session's belt: `surface(...).tools`' names, by the same rules, without building the surface. */
  beltNames(session: SessionRecord, caller: Caller): string[];
  /** The catalog tools the session's brief declares that the caller is granted (declared ∩ granted). */
  declaredTools(session: SessionRecord, caller: Caller): string[];
  /**
   * Pin-on-use: the call path records every successful use of a granted tool. `known` is the record
   * `get` returned moments ago (the call's session check): when it leads to a write, that write's
   * version condition proves it current, so the session is not read again; when it would skip the
   * write, it is read again first (a stale copy must not hide a concurrent eviction).
   */
  recordUse(id: string, caller: Caller, toolName: string, known?: SessionRecord): Promise<UseResult>;
  briefNames(): string[];
};

export function newSessionId(): string {
  return randomBytes(18).toString("base64url");
}

/** LRU insert: move or append `name`, then evict oldest pins until the total fits the budget. */
export function applyPin(pins: readonly Pin[], pin: Pin, budget: number): { pins: Pin[]; evicted: string[] } {
  const next = pins.filter((p) => p.name !== pin.name);
  next.push(pin);
  const evicted: string[] = [];
  let total = next.reduce((n, p) => n + p.bytes, 0);
  while (total > budget && next.length > 1) {
    const old = next.shift()!;
    total -= old.bytes;
    evicted.push(old.name);
  }
  return { pins: next, evicted };
}

export function createSessions(deps: SessionsDeps): Sessions {
  const clock = deps.clock ?? Date.now;
  const attempts = deps.retry?.attempts ?? 100;
  const baseMs = deps.retry?.baseMs ?? 5;
  const capMs = deps.retry?.capMs ?? 250;
  const sleep = deps.retry?.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const random = deps.retry?.random ?? Math.random;
  const meta = new Set(META_TOOLS);
  const nowSecs = () => Math.floor(clock() / 1000);
  const renewSlackSecs = Math.min(60, Math.floor(deps.ttlSecs / 10));
  // The granted part of a surface depends only on the grants: computed once per principal per cold start.
  const views = new WeakMap<GrantFilter, GrantedView>();
  const viewFor = (granted: GrantFilter) => {
    let v = views.get(granted);
    if (!v) views.set(granted, (v = grantedView(deps.artifact, granted)));
    return v;
  };

  const notFound = (id: string) =>
    new ToolbeltError("SESSION_NOT_FOUND", `no session ${id} for this API key: open one with POST /v1/sessions`, { session: id });

  // One input for the surface and for the belt's names, so both follow the same rules.
  const surfaceInput = (session: Pick<SessionRecord, "declared" | "pins">, { granted }: Caller) => {
    return {
      artifact: deps.artifact,
      granted,
      view: viewFor(granted),
      isAlwaysLoaded: deps.isAlwaysLoaded,
      declared: session.declared,
      pins: session.pins,
      bounds: deps.bounds,
    };
  };

  const load = async (id: string, caller: Caller): Promise<SessionRecord> => {
    const s = await deps.store.get(id);
    // Another principal's session is reported exactly like a missing one.
    if (!s || s.principal !== caller.principal) throw notFound(id);
    if (s.expires_at <= nowSecs()) {
      throw new ToolbeltError("SESSION_EXPIRED", `session ${id} expired: open a new one with POST /v1/sessions`, {
        session: id,
        expired_at: new Date(s.expires_at * 1000).toISOString(),
      });
    }
    return s;
  };

  return {
    briefNames: () => [...deps.briefs.keys()].sort(),

    async open(caller, briefName) {
      let declared: string[] = [];
      if (briefName !== undefined) {
        const brief = deps.briefs.get(briefName);
        if (!brief) {
          throw new ToolbeltError("NOT_FOUND", `no brief named ${JSON.stringify(briefName)}; omit \`brief\` or use one of the listed names`, {
            brief: briefName,
            available: [...deps.briefs.keys()].sort(),
          });
        }
        // Store the declaration as written (names and globs: the item stays small whatever the catalog's size);
        // the grant is applied whenever the surface is read (declared is not granted).
        declared = [...brief.tools];
      }
      const now = clock();
      const session: SessionRecord = {
        id: newSessionId(),
        principal: caller.principal,
        ...(briefName !== undefined ? { brief: briefName } : {}),
        declared,
        pins: [],
        version: 1,
        created_at: now,
        expires_at: Math.floor(now / 1000) + deps.ttlSecs,
      };
      await deps.store.create(session);
      return session;
    },

    get: load,

    surface: (session, caller) => computeSurface(surfaceInput(session, caller)),

    opening: (caller, declared) => computeSurface(surfaceInput({ declared: [...declared], pins: [] }, caller)),

    beltNames: (session, caller) => beltNames(surfaceInput(session, caller)),

    declaredTools(session, { granted }) {
      const isDeclared = declarationMatcher(session.declared);
      return viewFor(granted)
        .grantedTools.filter((t) => isDeclared(t.name))
        .map((t) => t.name);
    },

    async recordUse(id, caller, toolName, known) {
      const tool = deps.artifact.byName.get(toolName);
      if (!tool && !meta.has(toolName)) {
        throw new ToolbeltError("TOOL_NOT_FOUND", `no tool named ${toolName}`, { tool: toolName });
      }
      if (!meta.has(toolName) && !caller.granted(toolName)) {
        throw new ToolbeltError("TOOL_NOT_GRANTED", `${toolName} is not granted to ${caller.principal}`, { tool: toolName });
      }
      // The caller's copy is used at most once, and only if it still passes the read's checks (the same
      // session, the principal's, not expired by the clock now); otherwise the session is read as before.
      let snapshot = known?.id === id && known.principal === caller.principal && known.expires_at > nowSecs() ? known : undefined;
      for (let attempt = 1; ; attempt++) {
        const fromSnapshot = snapshot !== undefined;
        const current = snapshot ?? (await load(id, caller));
        snapshot = undefined;
        const now = clock();
        let pins = current.pins;
        let evicted: string[] = [];
        let pinned = false;
        let note: string | undefined;
        const fixed = meta.has(toolName) || deps.isAlwaysLoaded(toolName) || declarationMatcher(current.declared)(toolName);
        if (fixed) {
          note = "already on the belt (meta, always-loaded or declared); not counted as a pin";
        } else {
          const bytes = toolBytes(tool!);
          if (bytes > deps.bounds.pinBudgetBytes) {
            note = `schema is ${bytes} bytes, larger than the whole pin budget of ${deps.bounds.pinBudgetBytes}`;
          } else {
            ({ pins, evicted } = applyPin(current.pins, { name: toolName, bytes, last_used: now }, deps.bounds.pinBudgetBytes));
            pinned = true;
          }
        }
        // Sliding expiry: every use renews the session.
        const expires_at = Math.floor(now / 1000) + deps.ttlSecs;
        const result = { on_belt: fixed || pinned, pinned, evicted, ...(note ? { note } : {}) };
        // Skip the write when the belt would not change and the renewal is negligible (the same tool called in a loop).
        const sameBelt = !pinned || (evicted.length === 0 && current.pins.at(-1)?.name === toolName);
        if (sameBelt && expires_at - current.expires_at < renewSlackSecs) {
          // Only a record just read may skip the write; a copy may be stale, so read and decide again.
          if (fromSnapshot) {
            attempt--;
            continue;
          }
          return { ...result, written: false, session: current };
        }
        const next: SessionRecord = { ...current, pins, version: current.version + 1, expires_at };
        try {
          await deps.store.update(next, current.version);
          return { ...result, written: true, session: next };
        } catch (err) {
          // A stale copy is not contention: read and retry at once, without spending an attempt.
          if (fromSnapshot && err instanceof ToolbeltError && err.code === "CONFLICT") {
            attempt--;
            continue;
          }
          if (!(err instanceof ToolbeltError) || err.code !== "CONFLICT" || attempt >= attempts) {
            if (err instanceof ToolbeltError && err.code === "CONFLICT") {
              throw new ToolbeltError("CONFLICT", `session ${id} is too busy: the pin was not recorded after ${attempts} attempts; retry`, {
                session: id,
              });
            }
            throw err;
          }
          // Full jitter keeps parallel writers from retrying in lockstep.
          await sleep(random() * Math.min(capMs, baseMs * 2 ** Math.min(attempt, 10)));
        }
      }
    },
  };
}
