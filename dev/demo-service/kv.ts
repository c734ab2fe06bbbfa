// kv: a key-value store with versions, expiry and counters.
import type { Context, Hono } from "hono";
import { bad, DemoError, jsonBody, optNum, optStr, tidy } from "./common.js";

// A key never starts with a dot, so `.` and `..` cannot rewrite the URL path.
const KV_KEY_RE = /^[A-Za-z0-9_:-][A-Za-z0-9_.:-]{0,127}$/;
type KvEntry = { value: string; version: number; updated_at: string; expires_at?: number };

/** The kv routes; returns the number of keys for /health. */
export function kvRoutes(app: Hono): { size: () => number } {
  const kv = new Map<string, KvEntry>();
  const liveKv = (key: string) => {
    const e = kv.get(key);
    if (e?.expires_at !== undefined && e.expires_at <= Date.now()) {
      kv.delete(key);
      return undefined;
    }
    return e;
  };
  const kvKey = (c: Context) => {
    const key = c.req.param("key") ?? "";
    if (!KV_KEY_RE.test(key)) throw bad("a key is 1-128 characters of letters, digits, `_`, `.`, `:` or `-`, not starting with a dot");
    return key;
  };

  app.get("/kv", (c) => {
    const prefix = optStr(c.req.query("prefix"), "prefix") ?? "";
    const keys = [...kv.keys()].filter((k) => k.startsWith(prefix) && liveKv(k)).sort();
    return c.json({ count: keys.length, keys });
  });
  app.get("/kv/:key", (c) => {
    const key = kvKey(c);
    const e = liveKv(key);
    if (!e) throw new DemoError(404, "NOT_FOUND", `no value under key ${JSON.stringify(key)}`);
    return c.json({
      key,
      value: e.value,
      version: e.version,
      updated_at: e.updated_at,
      ...(e.expires_at ? { expires_at: new Date(e.expires_at).toISOString() } : {}),
    });
  });
  app.put("/kv/:key", async (c) => {
    const key = kvKey(c);
    const b = await jsonBody(c);
    if (b.value === undefined || b.value === null) throw bad("`value` is required");
    const value = typeof b.value === "string" ? b.value : JSON.stringify(b.value);
    const ttl = optNum(b.ttl_seconds, "ttl_seconds");
    if (ttl !== undefined && ttl <= 0) throw bad("`ttl_seconds` must be positive");
    const prev = liveKv(key);
    const e: KvEntry = {
      value,
      version: (prev?.version ?? 0) + 1,
      updated_at: new Date().toISOString(),
      ...(ttl ? { expires_at: Date.now() + ttl * 1000 } : {}),
    };
    kv.set(key, e);
    return c.json({ key, value, version: e.version, created: !prev }, prev ? 200 : 201);
  });
  app.delete("/kv/:key", (c) => {
    const key = kvKey(c);
    const existed = liveKv(key) !== undefined;
    kv.delete(key);
    return c.json({ key, deleted: existed });
  });
  app.post("/kv/:key/increment", async (c) => {
    const key = kvKey(c);
    const by = optNum((await jsonBody(c)).by, "by") ?? 1;
    const prev = liveKv(key);
    const current = prev ? Number(prev.value) : 0;
    if (!Number.isFinite(current)) throw new DemoError(409, "NOT_A_NUMBER", `the value under ${JSON.stringify(key)} is not a number`);
    const value = String(tidy(current + by));
    kv.set(key, {
      value,
      version: (prev?.version ?? 0) + 1,
      updated_at: new Date().toISOString(),
      ...(prev?.expires_at ? { expires_at: prev.expires_at } : {}),
    });
    return c.json({ key, value: Number(value), version: (prev?.version ?? 0) + 1 });
  });
  return { size: () => kv.size };
}
