// notes: an in-memory notebook; deleting a note needs the bearer token.
import type { Context, Hono } from "hono";
import { absent, bad, DemoError, jsonBody, list, optInt, optStr, str, tags } from "./common.js";

type Note = { id: string; title: string; body: string; tags: string[]; created_at: string; updated_at: string };

/** The notes routes; returns the notebook's size for /health. */
export function notesRoutes(app: Hono, requireAuth: (c: Context) => void): { size: () => number } {
  const notes = new Map<string, Note>();
  let nextNote = 1;
  const note = (id: string) => {
    const n = notes.get(id);
    if (!n) throw new DemoError(404, "NOT_FOUND", `no note with id ${JSON.stringify(id)}: list notes to see the ids`);
    return n;
  };

  app.post("/notes", async (c) => {
    const b = await jsonBody(c);
    const now = new Date().toISOString();
    const n: Note = {
      id: `n${nextNote++}`,
      title: str(b.title, "title"),
      body: optStr(b.body, "body") ?? "",
      tags: tags(b.tags),
      created_at: now,
      updated_at: now,
    };
    notes.set(n.id, n);
    return c.json(n, 201);
  });
  app.get("/notes", (c) => {
    const tag = optStr(c.req.query("tag"), "tag")?.toLowerCase();
    const limit = optInt(c.req.query("limit"), "limit", 1, 500, 50);
    const all = [...notes.values()].filter((n) => !tag || n.tags.includes(tag)).reverse();
    return c.json({ count: all.length, notes: all.slice(0, limit) });
  });
  app.get("/notes/search", (c) => {
    const q = str(c.req.query("q"), "q").toLowerCase();
    const terms = q.split(/\s+/).filter(Boolean);
    const hits = [...notes.values()].filter((n) => {
      const hay = `${n.title}\n${n.body}\n${n.tags.join(" ")}`.toLowerCase();
      return terms.every((t) => hay.includes(t));
    });
    return c.json({ query: q, count: hits.length, notes: hits.reverse() });
  });
  app.get("/notes/:id", (c) => c.json(note(c.req.param("id"))));
  app.patch("/notes/:id", async (c) => {
    const n = note(c.req.param("id"));
    const b = await jsonBody(c);
    const title = optStr(b.title, "title");
    const body = optStr(b.body, "body");
    const append = optStr(b.append, "append");
    if (title === undefined && body === undefined && append === undefined && absent(b.tags)) throw bad("give at least one of title, body, append or tags");
    const updated: Note = {
      ...n,
      title: title ?? n.title,
      body: append !== undefined ? `${body ?? n.body}${(body ?? n.body) ? "\n" : ""}${append}` : (body ?? n.body),
      tags: absent(b.tags) ? n.tags : tags(b.tags),
      updated_at: new Date().toISOString(),
    };
    notes.set(n.id, updated);
    return c.json(updated);
  });
  app.post("/notes/:id/tags", async (c) => {
    const n = note(c.req.param("id"));
    const b = await jsonBody(c);
    const updated = { ...n, tags: tags([...n.tags, ...list(b.tags ?? b.tag, "tags")]), updated_at: new Date().toISOString() };
    notes.set(n.id, updated);
    return c.json(updated);
  });
  app.delete("/notes/:id", (c) => {
    requireAuth(c);
    const n = note(c.req.param("id"));
    notes.delete(n.id);
    return c.json({ deleted: true, id: n.id, title: n.title });
  });
  return { size: () => notes.size };
}
