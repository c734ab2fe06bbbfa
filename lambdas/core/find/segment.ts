// Agents are asked for one capability per query, but some send a whole task ("create a document,
// then convert it to PDF"). Each step is scored on its own so one step's words cannot drown another's.
import { CONNECTIVE } from "./words.js";

const SENTENCE = /(?<=[.!?;。！？；])\s+|[\n\r]+|[。！？；]/u;

/** The steps of a task-shaped query; a single-capability query comes back as one segment. */
export function segments(query: string): string[] {
  const out: string[] = [];
  for (const sentence of query.split(SENTENCE)) {
    for (const part of sentence.split(CONNECTIVE)) {
      const p = part.trim();
      if (p) out.push(p);
    }
  }
  return out;
}
