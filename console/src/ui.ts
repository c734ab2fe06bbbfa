// Shared pieces of the views: loading data, showing a refusal or a failure, small formatters.
import { useCallback, useEffect, useState } from "preact/hooks";
import { ApiError } from "./api.js";
import { html } from "./html.js";

export type Loaded<T> = { data?: T; error?: unknown; loading: boolean; reload(): void };

/** Runs `load` when a dependency changes (and on reload); a late answer of an older run is dropped. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const [round, setRound] = useState(0);
  useEffect(() => {
    let current = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => current && setState({ data, loading: false }),
      (error: unknown) => current && setState({ error, loading: false }),
    );
    return () => {
      current = false;
    };
  }, [...deps, round]);
  const reload = useCallback(() => setRound((r) => r + 1), []);
  return { ...state, reload };
}

/** What a refusal means to the operator: 401 no or unknown key, 403 not an admin's. */
function explain(err: ApiError): string {
  if (err.status === 401) return "The gateway refused the key (401): enter an admin API key.";
  if (err.status === 403) return "This key is not an admin's (403): the console's data needs a principal with admin: true in the policy.";
  if (err.status === 0) return "The gateway did not answer.";
  return `The gateway answered ${err.status}.`;
}

export function Problem({ error }: { error: unknown }) {
  if (error instanceof ApiError) {
    return html`<div class="problem" role="alert" data-status=${String(error.status)}>
      <p><strong>${explain(error)}</strong></p>
      <p><code>${error.code}</code>: ${error.message}</p>
    </div>`;
  }
  return html`<div class="problem" role="alert"><p><strong>Something failed in the page:</strong> ${String((error as Error)?.message ?? error)}</p></div>`;
}

export function Loading({ what }: { what: string }) {
  return html`<p class="muted" role="status">Loading ${what}…</p>`;
}

/** A view's frame: the answer, or the loading line, or the problem. */
export function Show<T>({ state, what, children }: { state: Loaded<T>; what: string; children: (data: T) => unknown }) {
  if (state.error !== undefined) return html`<${Problem} error=${state.error} />`;
  if (state.data === undefined) return html`<${Loading} what=${what} />`;
  return children(state.data);
}

export const fmtMs = (ms: number | undefined) => (ms === undefined ? "—" : ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${Math.round(ms)} ms`);
export const fmtScore = (s: number) => s.toFixed(3);
export const fmtPercent = (share: number) => `${(share * 100).toFixed(1)} %`;
export const fmtTime = (iso: string | undefined) => {
  if (!iso) return "—";
  const d = new Date(iso);
  return Number.isNaN(d.getTime())
    ? iso
    : d
        .toISOString()
        .replace("T", " ")
        .replace(/\.\d+Z$/, "Z");
};

/** A value of any shape as readable text (details, governance values). */
export const asText = (v: unknown): string => (typeof v === "string" ? v : JSON.stringify(v));
