import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createPolicy } from "../../../../lambdas/core/auth.js";
import { globMatcher } from "../../../../registry/contract/globs.js";
import { applyPin, COALESCE_MS, createSessions, REUSE_MS, type SessionsDeps } from "../../../../lambdas/core/sessions.js";
import { toolBytes } from "../../../../lambdas/core/surface.js";
import type { Pin } from "../../../../lambdas/core/ports.js";
import { testBriefs, testPolicy } from "../../../helpers/api.js";
import { defaultTestTools, memoryTestArtifact, testArtifactInput, testTool } from "../../../helpers/artifact.js";
import { MemorySessionStore } from "../../../helpers/memory-store.js";

const policy = createPolicy(testPolicy());
const alice = policy.callerById("alice")!;
const bob = policy.callerById("bob")!;

/** Counts the store's session reads from now on. */
function countReads(store: MemorySessionStore): { count: number } {
  const reads = { count: 0 };
  const get = store.get.bind(store);
  store.get = (id) => (reads.count++, get(id));
  return reads;
}

async function setup(over: Partial<SessionsDeps> = {}) {
  const store = new MemorySessionStore();
  const artifact = await memoryTestArtifact(testArtifactInput([...defaultTestTools(), testTool("big.schema", { description: "x".repeat(5000) })]));
  let now = 1_000_000;
  const sessions = createSessions({
    store,
    artifact,
    briefs: new Map(testBriefs().map((b) => [b.name, b])),
    isAlwaysLoaded: globMatcher(["toolbelt.reshape"]),
    bounds: { maxTools: 30, maxSchemaBytes: 1 << 20, pinBudgetBytes: 4096, maxTokens: 1500, manifestMaxTokens: 1000 },
    ttlSecs: 60,
    clock: () => now,
    ...over,
  });
  return { store, artifact, sessions, tick: (ms: number) => (now += ms) };
}

describe("applyPin (LRU within a byte budget)", () => {
  const pin = (name: string, bytes: number): Pin => ({ name, bytes, last_used: 0 });

  it("moves a re-used pin to the most recent end and evicts the oldest first", () => {
    const pins = [pin("a", 10), pin("b", 10), pin("c", 10)];
    expect(applyPin(pins, pin("a", 10), 30)).toEqual({ pins: [pin("b", 10), pin("c", 10), pin("a", 10)], evicted: [] });
    expect(applyPin(pins, pin("d", 15), 30)).toEqual({ pins: [pin("c", 10), pin("d", 15)], evicted: ["a", "b"] });
  });

  it("never exceeds the budget, keeps the newest pin and loses no pin it did not report (property)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom("a", "b", "c", "d", "e", "f"), fc.integer({ min: 1, max: 40 })), { maxLength: 60 }),
        fc.integer({ min: 40, max: 120 }),
        (uses, budget) => {
          let pins: Pin[] = [];
          for (const [name, bytes] of uses) {
            const before = new Set(pins.map((p) => p.name));
            const step = applyPin(pins, pin(name, bytes), budget);
            const after = new Set(step.pins.map((p) => p.name));
            expect(step.pins.reduce((n, p) => n + p.bytes, 0)).toBeLessThanOrEqual(budget);
            expect(step.pins.at(-1)?.name).toBe(name);
            for (const b of before) expect(after.has(b) || step.evicted.includes(b)).toBe(true);
            pins = step.pins;
          }
        },
      ),
    );
  });
});

describe("createSessions", () => {
  it("stores the declaration as written and the expiry as epoch seconds", async () => {
    const { sessions, store } = await setup();
    const s = await sessions.open(alice, "review");
    expect(store.items.get(s.id)).toMatchObject({
      principal: "alice",
      brief: "review",
      declared: ["git.diff", "git.blame", "admin.reset"],
      expires_at: 1000 + 60,
    });
    expect(s.id).toMatch(/^[A-Za-z0-9_-]{24}$/);
  });

  it("expands a glob declaration against the catalog, as far as it is granted", async () => {
    const { sessions } = await setup();
    const notes = await sessions.open(alice, "notes");
    expect(sessions.declaredTools(notes, alice)).toEqual(["notes.create", "notes.delete", "notes.search"]);
    const review = await sessions.open(alice, "review");
    expect(sessions.declaredTools(review, alice)).toEqual(["git.blame", "git.diff"]);
    expect(sessions.declaredTools(review, bob)).toEqual(["git.blame", "git.diff"]);
    expect(sessions.declaredTools(notes, bob)).toEqual([]);
  });

  it("names exactly the surface's tools on the belt, narrowed or not, with a brief and pins", async () => {
    for (const maxTools of [30, 2]) {
      const { sessions } = await setup({ bounds: { maxTools, maxSchemaBytes: 1 << 20, pinBudgetBytes: 4096, maxTokens: 1500, manifestMaxTokens: 1000 } });
      const plain = await sessions.open(alice);
      const review = await sessions.open(alice, "review");
      const notes = await sessions.open(alice, "notes");
      const pinned = (await sessions.recordUse(review.id, alice, "git.log")).session;
      const pinnedBob = (await sessions.recordUse((await sessions.open(bob, "notes")).id, bob, "git.status")).session;
      const cases: [typeof plain, string][] = [
        [plain, "alice"],
        [review, "alice"],
        [notes, "alice"],
        [pinned, "alice"],
        [pinned, "carol"],
        [pinnedBob, "bob"],
      ];
      for (const [session, who] of cases) {
        const caller = policy.callerById(who)!;
        const surface = sessions.surface(session, caller);
        expect(sessions.beltNames(session, caller)).toEqual(surface.tools.map((t) => t.name));
      }
      // The cases cover both a narrowed and a full surface, and a pin that is on the belt only as a pin.
      expect(sessions.surface(plain, alice).narrowed).toBe(maxTools === 2);
      if (maxTools === 2) {
        expect(sessions.beltNames(pinned, alice)).toContain("git.log");
        expect(sessions.beltNames(review, alice)).not.toContain("git.log");
      }
    }
  });

  it("pins of different tools never contend: 50 parallel uses, at most one write each, no pin lost", async () => {
    const { sessions, store } = await setup({
      bounds: { maxTools: 30, maxSchemaBytes: 1 << 20, pinBudgetBytes: 1 << 20, maxTokens: 1500, manifestMaxTokens: 1000 },
    });
    const s = await sessions.open(alice);
    const names = defaultTestTools()
      .map((t) => t.name)
      .filter((n) => n !== "toolbelt.reshape" && alice.granted(n));
    const uses = Array.from({ length: 50 }, (_, i) => names[i % names.length]!);
    const results = await Promise.all(uses.map((n) => sessions.recordUse(s.id, alice, n)));
    expect(results.every((r) => r.pinned && r.on_belt)).toBe(true);
    // At most one write per use, never a retry; a tool's uses at the same moment store it once.
    const pinWrites = store.writes.filter((w) => w.startsWith("pin:"));
    expect(pinWrites.length).toBeLessThanOrEqual(uses.length);
    expect([...new Set(pinWrites)].sort()).toEqual(names.map((n) => `pin:${n}`).sort());
    expect((await sessions.get(s.id, alice)).pins.map((p) => p.name).sort()).toEqual([...names].sort());
  });

  it("skips the write when a pinned tool is used again within COALESCE_MS, and writes it after", async () => {
    const { sessions, store, tick } = await setup();
    const s = await sessions.open(alice);
    await sessions.recordUse(s.id, alice, "git.log");
    await sessions.recordUse(s.id, alice, "git.status");
    tick(COALESCE_MS - 1);
    // git.log is not the latest pin, but its recorded use is recent enough: no write.
    const again = await sessions.recordUse(s.id, alice, "git.log");
    expect(again).toMatchObject({ written: false, pinned: true, on_belt: true, evicted: [] });
    expect(store.writes).toEqual(["pin:git.log", "pin:git.status"]);
    tick(1);
    expect((await sessions.recordUse(s.id, alice, "git.log")).written).toBe(true);
    expect(store.writes).toEqual(["pin:git.log", "pin:git.status", "pin:git.log"]);
    expect((await sessions.get(s.id, alice)).pins.map((p) => p.name)).toEqual(["git.status", "git.log"]);
    tick(6_000); // renewing by the slack (a tenth of the 60 s TTL) or more is worth a write
    expect((await sessions.recordUse(s.id, alice, "toolbelt.find")).written).toBe(true);
    expect(store.writes.at(-1)).toBe("renew");
  });

  it("with the copy the session check just read, a use that writes reads nothing more", async () => {
    const { sessions, store } = await setup();
    const s = await sessions.open(alice);
    const known = await sessions.check(s.id, alice);
    let reads = 0;
    const get = store.get.bind(store);
    store.get = (id) => (reads++, get(id));
    const r = await sessions.recordUse(s.id, alice, "git.log", known);
    expect(r).toMatchObject({ written: true, pinned: true });
    expect(reads).toBe(0);
    expect((await get(s.id))?.pins.map((p) => p.name)).toEqual(["git.log"]);
  });

  it("a stale copy loses nothing: a concurrent pin is kept, and a pin evicted meanwhile is pinned again past COALESCE_MS", async () => {
    const { sessions, store, tick } = await setup();
    const s = await sessions.open(alice);
    const stale = await sessions.check(s.id, alice);
    await sessions.recordUse(s.id, alice, "git.diff");
    tick(1);
    const r = await sessions.recordUse(s.id, alice, "git.log", stale);
    expect(r).toMatchObject({ written: true, pinned: true });
    expect((await sessions.get(s.id, alice)).pins.map((p) => p.name)).toEqual(["git.diff", "git.log"]);

    // The copy shows git.log pinned, but another writer has removed it since.
    const copy = await sessions.check(s.id, alice);
    await store.dropPin(s.id, copy.pins.find((p) => p.name === "git.log")!);
    tick(COALESCE_MS);
    const again = await sessions.recordUse(s.id, alice, "git.log", copy);
    expect(again).toMatchObject({ written: true, pinned: true });
    expect((await sessions.get(s.id, alice)).pins.map((p) => p.name)).toEqual(["git.diff", "git.log"]);
  });

  it("the belt is the most recent pins that fit the budget; an evicting use removes the evicted pins, unless used again since", async () => {
    const tools = defaultTestTools();
    const bytes = (n: string) => toolBytes(tools.find((t) => t.name === n)!);
    const budget = bytes("git.log") + bytes("git.status") + bytes("notes.create") - 1;
    const { sessions, store, tick } = await setup({
      bounds: { maxTools: 30, maxSchemaBytes: 1 << 20, pinBudgetBytes: budget, maxTokens: 1500, manifestMaxTokens: 1000 },
    });
    const s = await sessions.open(alice);
    const copy = await sessions.check(s.id, alice);
    await sessions.recordUse(s.id, alice, "git.log");
    tick(1);
    await sessions.recordUse(s.id, alice, "git.status");
    tick(1);
    // Decided from a copy taken before both pins: it evicts nothing, yet the belt read afterwards fits the budget.
    const third = await sessions.recordUse(s.id, alice, "notes.create", copy);
    expect(third.evicted).toEqual([]);
    expect((await sessions.get(s.id, alice)).pins.map((p) => p.name)).toEqual(["git.status", "notes.create"]);
    expect(store.items.get(s.id)?.pins.has("git.log")).toBe(true); // stored, not on the belt

    // A use that sees the eviction removes the stored pin, unless that pin was used again meanwhile.
    tick(COALESCE_MS);
    const fresh = await sessions.check(s.id, alice);
    await store.putPin(s.id, { name: "git.status", bytes: bytes("git.status"), last_used: 1_000_000 + 5 });
    tick(1);
    const fourth = await sessions.recordUse(s.id, alice, "git.log", fresh);
    expect(fourth.evicted).toEqual(["git.status"]);
    expect(store.writes.filter((w) => w.startsWith("unpin:"))).toEqual([]);
    expect(store.items.get(s.id)?.pins.has("git.status")).toBe(true);
  });

  it("a read in this process waits for this process's pin writes in flight; the call path's check does not", async () => {
    const { sessions, store } = await setup();
    const s = await sessions.open(alice);
    let release: () => void = () => undefined;
    store.holdPin = () => new Promise<void>((r) => (release = r));
    const use = sessions.recordUse(s.id, alice, "git.log");
    await Promise.resolve();
    expect((await sessions.check(s.id, alice)).pins).toEqual([]);
    const read = sessions.get(s.id, alice);
    release();
    expect((await read).pins.map((p) => p.name)).toEqual(["git.log"]);
    await use;
  });

  it("does not take another principal's copy, or an expired one, on trust", async () => {
    const { sessions, store, tick } = await setup();
    const mine = await sessions.open(alice);
    const bobs = await sessions.open(bob);
    const bobCopy = await sessions.check(bobs.id, bob);
    await expect(sessions.recordUse(bobs.id, alice, "git.log", bobCopy)).rejects.toMatchObject({ code: "SESSION_NOT_FOUND" });
    // A copy of one session offered for another is ignored: the named session is read.
    await expect(sessions.recordUse(mine.id, alice, "git.log", bobCopy)).resolves.toMatchObject({ written: true });
    const copy = await sessions.check(mine.id, alice);
    tick(61_000);
    await expect(sessions.recordUse(mine.id, alice, "git.status", copy)).rejects.toMatchObject({ code: "SESSION_EXPIRED" });
    expect([...store.items.get(mine.id)!.pins.keys()]).toEqual(["git.log"]);
    expect(store.items.get(bobs.id)?.pins.size).toBe(0);
  });

  it("does not pin a tool whose schema alone exceeds the budget, and says why", async () => {
    const { sessions, artifact } = await setup();
    const s = await sessions.open(alice);
    const r = await sessions.recordUse(s.id, alice, "big.schema");
    expect(r).toMatchObject({ pinned: false, on_belt: false, evicted: [] });
    expect(r.note).toContain(`${toolBytes(artifact.byName.get("big.schema")!)} bytes`);
  });

  it("renews the expiry on use (sliding) and expires idle sessions", async () => {
    const { sessions, tick } = await setup();
    const s = await sessions.open(alice);
    tick(50_000);
    const used = await sessions.recordUse(s.id, alice, "toolbelt.find");
    expect(used.session.expires_at).toBe(1050 + 60);
    tick(59_000);
    await expect(sessions.get(s.id, alice)).resolves.toMatchObject({ id: s.id });
    tick(1_000);
    await expect(sessions.get(s.id, alice)).rejects.toMatchObject({ code: "SESSION_EXPIRED", status: 410 });
  });

  it("reports another principal's session exactly like a missing one", async () => {
    const { sessions } = await setup();
    const s = await sessions.open(alice);
    const other = await sessions.get(s.id, bob).catch((e: Error) => e);
    const missing = await sessions.get("x".repeat(24), bob).catch((e: Error) => e);
    expect(other).toMatchObject({ code: "SESSION_NOT_FOUND" });
    expect((other as Error).message.replace(s.id, "ID")).toBe((missing as Error).message.replace("x".repeat(24), "ID"));
    const stranger = { principal: "nobody", admin: false, granted: () => true };
    await expect(sessions.recordUse(s.id, stranger, "git.log")).rejects.toMatchObject({ code: "SESSION_NOT_FOUND" });
  });

  // Regression: a call with a session was 2.27× the same call without (bench:http): every call read the
  // session's partition from the table before the tool ran, though the pin itself was rarely written.
  it("a call's check re-uses this process's copy for REUSE_MS: calls re-using a pinned tool read the table once and write once", async () => {
    const { sessions, store, tick } = await setup();
    const s = await sessions.open(alice);
    const reads = countReads(store);
    // What the call gateway does per call: check the session, run the tool, record the use from the check's copy.
    const call = async (tool: string) => sessions.recordUse(s.id, alice, tool, await sessions.check(s.id, alice));
    for (let i = 0; i < 10; i++) {
      await call("git.log");
      tick(REUSE_MS / 20);
    }
    expect(reads.count).toBe(0); // the copy from open
    expect(store.writes).toEqual(["pin:git.log"]);
    tick(REUSE_MS);
    await Promise.all([call("git.log"), call("git.log"), call("git.status")]);
    expect(reads.count).toBe(1); // one read for the three checks at once
    expect(store.writes).toEqual(["pin:git.log", "pin:git.log", "pin:git.status"]);
    // A surface read is never from the copy.
    expect((await sessions.get(s.id, alice)).pins.map((p) => p.name)).toEqual(["git.log", "git.status"]);
    expect(reads.count).toBe(2);
  });

  it("a check sees another process's pins after REUSE_MS, and reads again at once a copy that looks expired (renewed elsewhere)", async () => {
    const { sessions, store, tick } = await setup();
    const s = await sessions.open(alice);
    await store.putPin(s.id, { name: "git.diff", bytes: 10, last_used: 1_000_000 });
    expect((await sessions.check(s.id, alice)).pins).toEqual([]);
    tick(REUSE_MS);
    expect((await sessions.check(s.id, alice)).pins.map((p) => p.name)).toEqual(["git.diff"]);

    tick(58_500);
    await sessions.check(s.id, alice); // read at 1,059.5 s: expires at 1,060 s
    await store.renew(s.id, 1_600); // by another process
    tick(REUSE_MS / 2); // the copy is recent enough, but expired by the clock
    const reads = countReads(store);
    await expect(sessions.check(s.id, alice)).resolves.toMatchObject({ expires_at: 1_600 });
    expect(reads.count).toBe(1);
    // Another principal is refused from the copy exactly as from the table.
    await expect(sessions.check(s.id, bob)).rejects.toMatchObject({ code: "SESSION_NOT_FOUND" });
  });

  it("after a pin write fails, the next check reads the table instead of the copy", async () => {
    const { sessions, store } = await setup();
    const s = await sessions.open(alice);
    store.holdPin = () => Promise.reject(new Error("table unreachable"));
    await expect(sessions.recordUse(s.id, alice, "git.log", await sessions.check(s.id, alice))).rejects.toThrow("table unreachable");
    const reads = countReads(store);
    await sessions.check(s.id, alice);
    expect(reads.count).toBe(1);
  });

  it("lists brief names and refuses an unknown brief", async () => {
    const { sessions } = await setup();
    expect(sessions.briefNames()).toEqual(["notes", "review"]);
    await expect(sessions.open(alice, "missing")).rejects.toMatchObject({ code: "NOT_FOUND", details: { available: ["notes", "review"] } });
  });
});
