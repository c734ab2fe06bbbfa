// Drift called anyway (a family's `drift: warn`), noted for the call's audit record: the mcp backend
// notes it inside the scope the app's call gateway opens per call (call-gateway.ts), and the audit reads it.
import { AsyncLocalStorage } from "node:async_hooks";

/** A tool whose live definition is not the pinned one: the parts that changed (tool-digest.ts `driftOf`). */
export type DriftEvent = { tool: string; upstream_tool: string; drift: string[] };

const scope = new AsyncLocalStorage<{ drift?: string[] }>();

/** Run one call with a place for its drift note. */
export const withDriftScope = <T>(fn: () => T): T => scope.run({}, fn);

export const noteDrift = (changed: string[]): void => {
  const store = scope.getStore();
  if (store) store.drift = changed;
};

/** The audit fields of drift the call ran with (a refused call's come from its error's details). */
export const notedDrift = (): { drift?: string[] } => {
  const drift = scope.getStore()?.drift;
  return drift ? { drift } : {};
};
