// Sessions and pin-on-use. A session belongs to its principal; pins are LRU within a schema-byte budget.
// Each pin is its own stored item: writers of different pins never contend, no write is ever retried
// (a condition only keeps a tool's latest use), and the belt is the longest run of most recent pins
// that fits the budget, computed when read (the same as replaying every use by recorded last use).
// A call's session check re-uses this process's copy of the session for up to REUSE_MS, so a call
// with a session costs no table read in the steady state, and a re-used pin no write.
import { randomBytes } from "node:crypto";
import type { BriefFile } from "../../registry/contract/brief.js";
import { META_TOOLS } from "../../registry/contract/names.js";
import { ToolbeltError } from "./errors.js";
import type { Artifact, Caller, Clock, GrantFilter, Pin, SessionRecord, SessionStore, SurfaceBounds } from "./ports.js";
import {
  beltNames,
  computeSurface,
  declarationMatcher,
  fitManifest,
  grantedView,
  toolBytes,
  type GrantedView,
  type Manifest,
  type Surface,
} from "./surface.js";

export type SessionsDeps = {
  store: SessionStore;
  artifact: Pick<Artifact, "tools" | "families" | "byName">;
  briefs: ReadonlyMap<string, BriefFile>;
  isAlwaysLoaded: (name: string) => boolean;
  bounds: SurfaceBounds;
  /** A decider is configured: surfaces advertise find's decision-mode options (surface.ts). */
  decisionMode?: boolean;
  ttlSecs: number;
  /** Epoch milliseconds. */
  clock?: Clock;
  /** A re-use within this many ms of the pin's recorded use is not written (default COALESCE_MS). */
  coalesceMs?: number;
  /** How long a read waits for this process's pin writes on the session still in flight (default READ_WAIT_MS). */
  readWaitMs?: number;
  /** How long the call path's check re-uses this process's copy of a session (default REUSE_MS). */
  reuseMs?: number;
};

/**
 * Re-using a pinned tool rewrites its last use only when the recorded one is at least this old. So
 * the recorded last use lags the true one by less than this, and LRU order is exact between uses
 * further apart: a pin is evicted before another only if its last use came less than 1 s after the
 * other's, or before it. A tool called in a loop costs one write a second, not one a call.
 */
export const COALESCE_MS = 1000;
/** Evicted pins a use removes at most (its own evictions first), so a use stays one small round of writes. */
export const MAX_UNPINS_PER_USE = 25;
/** A session read in this process waits at most this long for this process's own pin writes (read your writes). */
export const READ_WAIT_MS = 2000;
/**
 * The call path's check takes this process's copy of a session, with this process's own writes since,
 * if it was read from the table less than this long ago. A session's id, principal and declaration never
 * change and its expiry only moves later, so the copy decides the check exactly (an expired-looking copy
 * is read again); only pins other processes wrote meanwhile may be missing, which costs at most a pin
 * write that was not needed (the same as COALESCE_MS allows), never a lost pin.
 */
export const REUSE_MS = 1000;
/** Sessions whose copy a process keeps, least recently read dropped first. */
export const MAX_COPIES = 1000;

export type UseResult = {
  /** The tool is on the belt after this use (pinned, or declared / always-loaded / meta anyway). */
  on_belt: boolean;
  pinned: boolean;
  /** Pins evicted (least recently used first) to stay within the budget. */
  evicted: string[];
  /** Why the tool was not pinned, when it was not. */
  note?: string;
  /** False when nothing changed enough to write (the tool's pin was written less than COALESCE_MS ago, the expiry renewed moments ago). */
  written: boolean;
  session: SessionRecord;
};

export type Sessions = {
  open(caller: Caller, briefName?: string): Promise<SessionRecord>;
  /**
   * The session if it exists, is the caller's and has not expired; SESSION_NOT_FOUND / SESSION_EXPIRED
   * otherwise. Waits first (up to READ_WAIT_MS) for pin writes this process has in flight on it.
   */
  get(id: string, caller: Caller): Promise<SessionRecord>;
  /**
   * The call path's check: `get` without waiting for pin writes in flight, from this process's copy of
   * the session when it was read less than REUSE_MS ago (with this process's pin writes since).
   */
  check(id: string, caller: Caller): Promise<SessionRecord>;
  surface(session: SessionRecord, caller: Caller): Surface;
  /** The manifest a session opened now with this declaration would have (no pins), within what `usedTokens` leave of the budget: MCP's instructions. */
  manifest(caller: Caller, declared: readonly string[], usedTokens: number): Manifest;
  /** The names on the session's belt: `surface(...).tools`' names, by the same rules, without building the surface. */
  beltNames(session: SessionRecord, caller: Caller): string[];
  /** The catalog tools the session's brief declares that the caller is granted (declared ∩ granted). */
  declaredTools(session: SessionRecord, caller: Caller): string[];
  /**
   * Pin-on-use: the call path records every successful use of a granted tool. `known` is the record
   * `check` returned for this call: the use is decided from it without reading again. One round of
   * parallel writes (the pin, the renewed expiry, the pins it evicts), no read, no retry; a stale copy
   * costs at most a write that was not needed, or a re-use not written within COALESCE_MS.
   */
  recordUse(id: string, caller: Caller, toolName: string, known?: SessionRecord): Promise<UseResult>;
  briefNames(): string[];
};

export function newSessionId(): string {
  return randomBytes(18).toString("base64url");
}

/** Evict the oldest pins (first) until the total fits the budget; the newest pin always stays. */
export function fitPins(pins: readonly Pin[], budget: number): { pins: Pin[]; evicted: Pin[] } {
  const kept = [...pins];
  const evicted: Pin[] = [];
  let total = kept.reduce((n, p) => n + p.bytes, 0);
  while (total > budget && kept.length > 1) {
    const old = kept.shift()!;
    total -= old.bytes;
    evicted.push(old);
  }
  return { pins: kept, evicted };
}

/** LRU insert: move or append `pin`, then evict oldest pins until the total fits the budget. */
export function applyPin(pins: readonly Pin[], pin: Pin, budget: number): { pins: Pin[]; evicted: string[] } {
  const fitted = fitPins([...pins.filter((p) => p.name !== pin.name), pin], budget);
  return { pins: fitted.pins, evicted: fitted.evicted.map((p) => p.name) };
}

/** Stored pins in belt order: least recently used first (name breaks a tie, so every reader agrees). */
const byLastUse = (a: Pin, b: Pin) => a.last_used - b.last_used || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

export function createSessions(deps: SessionsDeps): Sessions {
  const clock = deps.clock ?? Date.now;
  const coalesceMs = deps.coalesceMs ?? COALESCE_MS;
  const readWaitMs = deps.readWaitMs ?? READ_WAIT_MS;
  const reuseMs = deps.reuseMs ?? REUSE_MS;
  const meta = new Set(META_TOOLS);
  const nowSecs = () => Math.floor(clock() / 1000);
  const renewSlackSecs = Math.min(60, Math.floor(deps.ttlSecs / 10));
  // The granted part of a surface depends only on the grants: computed once per principal per cold start.
  const views = new WeakMap<GrantFilter, GrantedView>();
  const viewFor = (granted: GrantFilter) => {
    let v = views.get(granted);
    if (!v) views.set(granted, (v = grantedView(deps.artifact, granted, deps.decisionMode)));
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

  // This process's pin writes still in flight, per session: a later read here waits for them.
  const inflight = new Map<string, Set<Promise<unknown>>>();
  const track = (id: string, write: Promise<unknown>) => {
    const set = inflight.get(id) ?? new Set();
    inflight.set(id, set.add(write));
    const done = () => {
      set.delete(write);
      if (set.size === 0 && inflight.get(id) === set) inflight.delete(id);
    };
    write.then(done, done);
    return write;
  };
  const settled = async (id: string) => {
    const set = inflight.get(id);
    if (!set) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([Promise.allSettled(set), new Promise((r) => (timer = setTimeout(r, readWaitMs)))]);
    clearTimeout(timer);
  };

  // This process's copy of each session as the table held it (every stored pin) when read at `at`, plus
  // this process's own writes since; checks of one session at the same moment share one table read.
  const copies = new Map<string, { at: number; stored: SessionRecord }>();
  const checking = new Map<string, Promise<SessionRecord | undefined>>();
  const remember = (stored: SessionRecord, at: number) => {
    copies.delete(stored.id);
    if (copies.size >= MAX_COPIES) copies.delete(copies.keys().next().value!);
    copies.set(stored.id, { at, stored });
  };
  const read = (id: string): Promise<SessionRecord | undefined> => {
    const at = clock();
    return deps.store.get(id).then((s) => {
      if (s) remember(s, at);
      return s;
    });
  };
  // Not for `get`: a read that started before this process's writes landed would miss them.
  const sharedRead = (id: string): Promise<SessionRecord | undefined> => {
    let r = checking.get(id);
    if (!r) {
      checking.set(id, (r = read(id)));
      const done = () => checking.delete(id);
      r.then(done, done);
    }
    return r;
  };
  /** After this process's writes landed: the copy shows them (a dropped pin only if it is the one dropped). */
  const wrote = (id: string, pin: Pin | undefined, dropped: readonly Pin[], expiresAt: number) => {
    const copy = copies.get(id);
    if (!copy) return;
    const gone = (p: Pin) => p.name === pin?.name || dropped.some((d) => d.name === p.name && d.last_used === p.last_used);
    const pins = copy.stored.pins.filter((p) => !gone(p));
    if (pin) pins.push(pin);
    copy.stored = { ...copy.stored, pins, expires_at: Math.max(copy.stored.expires_at, expiresAt) };
  };

  /** The session, checked; `reuse` takes this process's copy if it is recent enough and not expired by the clock. */
  const load = async (id: string, caller: Caller, reuse = false): Promise<SessionRecord> => {
    const copy = reuse ? copies.get(id) : undefined;
    const s = !reuse ? await read(id) : copy && clock() - copy.at < reuseMs && copy.stored.expires_at > nowSecs() ? copy.stored : await sharedRead(id);
    // Another principal's session is reported exactly like a missing one.
    if (!s || s.principal !== caller.principal) throw notFound(id);
    if (s.expires_at <= nowSecs()) {
      throw new ToolbeltError("SESSION_EXPIRED", `session ${id} expired: open a new one with POST /v1/sessions`, {
        session: id,
        expired_at: new Date(s.expires_at * 1000).toISOString(),
      });
    }
    // The belt's pins: the most recent ones that fit; older stored pins are evicted ones not yet removed.
    const { pins, evicted } = fitPins([...s.pins].sort(byLastUse), deps.bounds.pinBudgetBytes);
    return { ...s, pins, ...(evicted.length ? { lapsed: evicted } : {}) };
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
        created_at: now,
        expires_at: Math.floor(now / 1000) + deps.ttlSecs,
      };
      await deps.store.create(session);
      remember(session, now);
      return session;
    },

    async get(id, caller) {
      await settled(id);
      return load(id, caller);
    },

    check: (id, caller) => load(id, caller, true),

    surface: (session, caller) => computeSurface(surfaceInput(session, caller)),

    manifest: (caller, declared, usedTokens) => fitManifest(surfaceInput({ declared: [...declared], pins: [] }, caller), usedTokens).manifest,

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
      // The caller's copy is used if it still passes the read's checks (the same session, the
      // principal's, not expired by the clock now); otherwise the session is read.
      const usable = known?.id === id && known.principal === caller.principal && known.expires_at > nowSecs();
      const current = usable ? known : await load(id, caller, true);
      const now = clock();
      let pinned = false;
      let note: string | undefined;
      const fixed = meta.has(toolName) || deps.isAlwaysLoaded(toolName) || declarationMatcher(current.declared)(toolName);
      let bytes = 0;
      if (fixed) {
        note = "already on the belt (meta, always-loaded or declared); not counted as a pin";
      } else {
        bytes = toolBytes(tool!);
        if (bytes > deps.bounds.pinBudgetBytes) {
          note = `schema is ${bytes} bytes, larger than the whole pin budget of ${deps.bounds.pinBudgetBytes}`;
        } else pinned = true;
      }
      // Sliding expiry: a use renews the session, unless the renewal would be negligible.
      const expires_at = Math.floor(now / 1000) + deps.ttlSecs;
      const renew = expires_at - current.expires_at >= renewSlackSecs;
      const held = current.pins.find((p) => p.name === toolName);
      const touch = pinned && !(held && now - held.last_used < coalesceMs);
      const pin: Pin = { name: toolName, bytes, last_used: now };
      const step = touch ? fitPins([...current.pins.filter((p) => p.name !== toolName), pin], deps.bounds.pinBudgetBytes) : { pins: current.pins, evicted: [] };
      const result = { on_belt: fixed || pinned, pinned, evicted: step.evicted.map((p) => p.name), ...(note ? { note } : {}) };
      if (!touch && !renew) return { ...result, written: false, session: current };

      const writes: Promise<void>[] = [];
      if (touch) writes.push(deps.store.putPin(id, pin, expires_at));
      if (renew) writes.push(deps.store.renew(id, expires_at));
      // Removing evicted pins only keeps the partition small: the belt is computed on read either way.
      const lapsed = (current.lapsed ?? []).filter((p) => p.name !== toolName);
      const unpin = [...step.evicted, ...lapsed].slice(0, MAX_UNPINS_PER_USE);
      const drops = Promise.allSettled(unpin.map((p) => deps.store.dropPin(id, p)));
      try {
        await track(id, Promise.all([...writes, drops]));
      } catch (err) {
        // The table failed (or is gone): the next check reads it rather than trust the copy.
        copies.delete(id);
        throw err;
      }
      wrote(id, touch ? pin : undefined, unpin, renew ? expires_at : current.expires_at);
      const { lapsed: _removed, ...rest } = current;
      return { ...result, written: true, session: { ...rest, pins: step.pins, expires_at: renew ? expires_at : current.expires_at } };
    },
  };
}
