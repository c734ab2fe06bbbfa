// In-memory SessionStore for unit tests of the pure core: same contract as the DynamoDB adapter
// (CONFLICT on an existing id or a stale version), with hooks to inject conflicts.
import { ToolbeltError } from "../../lambdas/core/errors.js";
import type { SessionRecord, SessionStore } from "../../lambdas/core/ports.js";

export class MemorySessionStore implements SessionStore {
  readonly items = new Map<string, SessionRecord>();
  writes = 0;
  conflicts = 0;
  /** Called before each update; return true to force a CONFLICT (simulates a concurrent writer). */
  failNextUpdate: (() => boolean) | undefined;

  async create(s: SessionRecord): Promise<void> {
    if (this.items.has(s.id)) throw new ToolbeltError("CONFLICT", "session id already exists");
    this.items.set(s.id, structuredClone(s));
  }

  async get(id: string): Promise<SessionRecord | undefined> {
    // Yield like a network call, so parallel callers interleave.
    await Promise.resolve();
    const s = this.items.get(id);
    return s ? structuredClone(s) : undefined;
  }

  async update(next: SessionRecord, expectedVersion: number): Promise<void> {
    await Promise.resolve();
    const cur = this.items.get(next.id);
    if (!cur || cur.version !== expectedVersion || this.failNextUpdate?.()) {
      this.conflicts++;
      throw new ToolbeltError("CONFLICT", "session changed concurrently");
    }
    this.writes++;
    this.items.set(next.id, structuredClone(next));
  }
}
