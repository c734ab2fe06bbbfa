// In-memory SessionStore for unit tests of the pure core: same contract as the DynamoDB adapter
// (CONFLICT on an existing id; pins as their own entries; conditional unpin and renew), counting writes.
import { ToolbeltError } from "../../lambdas/core/errors.js";
import type { Pin, SessionRecord, SessionStore } from "../../lambdas/core/ports.js";

type Stored = Omit<SessionRecord, "pins"> & { pins: Map<string, Pin> };

export class MemorySessionStore implements SessionStore {
  readonly items = new Map<string, Stored>();
  /** Every write by kind, in order: `pin:<tool>`, `unpin:<tool>`, `renew`. */
  readonly writes: string[] = [];
  /** Called before each pin write; return a promise to hold the write until it settles. */
  holdPin: ((pin: Pin) => Promise<void> | undefined) | undefined;

  async create(s: SessionRecord): Promise<void> {
    if (this.items.has(s.id)) throw new ToolbeltError("CONFLICT", "session id already exists");
    const { pins, ...rest } = structuredClone(s);
    this.items.set(s.id, { ...rest, pins: new Map(pins.map((p) => [p.name, p])) });
  }

  async get(id: string): Promise<SessionRecord | undefined> {
    // Yield like a network call, so parallel callers interleave.
    await Promise.resolve();
    const s = this.items.get(id);
    return s ? structuredClone({ ...s, pins: [...s.pins.values()] }) : undefined;
  }

  async putPin(id: string, pin: Pin): Promise<void> {
    await (this.holdPin?.(pin) ?? Promise.resolve());
    const s = this.items.get(id);
    // Like a put of its own item: it lands whether or not the session item is there, unless a later use is stored.
    if ((s?.pins.get(pin.name)?.last_used ?? -1) >= pin.last_used) return;
    this.writes.push(`pin:${pin.name}`);
    if (s) s.pins.set(pin.name, { ...pin });
  }

  async dropPin(id: string, pin: Pin): Promise<void> {
    await Promise.resolve();
    const s = this.items.get(id);
    if (s?.pins.get(pin.name)?.last_used !== pin.last_used) return;
    this.writes.push(`unpin:${pin.name}`);
    s.pins.delete(pin.name);
  }

  async renew(id: string, expiresAt: number): Promise<void> {
    await Promise.resolve();
    const s = this.items.get(id);
    if (!s || s.expires_at >= expiresAt) return;
    this.writes.push("renew");
    s.expires_at = expiresAt;
  }
}
