// The session store port: what the session core needs from persistence. The DynamoDB adapter
// implements it for Lambda and `npm start`; an in-memory fake (test/helpers) implements it for unit tests.

export type Pin = {
  name: string;
  /** Serialized schema bytes the pin costs on the surface. */
  bytes: number;
  /** Epoch milliseconds of the last use (pins are kept oldest-first; this is for readers). */
  last_used: number;
};

export type SessionRecord = {
  id: string;
  /** Principal id that opened the session; nobody else may read or use it. */
  principal: string;
  brief?: string;
  /** The brief's declaration as written: tool names or `*` globs (intersected with the grants when read). */
  declared: string[];
  /** Least recently used first. */
  pins: Pin[];
  /** Optimistic-concurrency counter: every write expects the version it read. */
  version: number;
  /** Epoch milliseconds. */
  created_at: number;
  /** Epoch seconds (the DynamoDB TTL attribute); an item past it is treated as gone even if still stored. */
  expires_at: number;
};

export interface SessionStore {
  /** Store a new session; CONFLICT if the id exists. */
  create(session: SessionRecord): Promise<void>;
  /** The stored session, expired or not (the core decides), or undefined. */
  get(id: string): Promise<SessionRecord | undefined>;
  /** Replace the session if its stored version is still `expectedVersion`; CONFLICT otherwise. */
  update(next: SessionRecord, expectedVersion: number): Promise<void>;
}
