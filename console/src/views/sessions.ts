// Sessions: one session's belt (why each tool is on it, its bytes and share of the pin budget, its last
// use) and what its agent's surface costs in tokens.
import { useState } from "preact/hooks";
import type { AdminSessionResponse, AuditListResponse } from "../../../lambdas/contract/admin.js";
import type { Api } from "../api.js";
import { html } from "../html.js";
import { fmtPercent, fmtTime, Loading, Problem, useLoad } from "../ui.js";

function Budget({ used, budget }: { used: number; budget: number }) {
  const share = budget > 0 ? Math.min(1, used / budget) : 0;
  return html`<figure class="budget">
    <svg width="400" height="18" viewBox="0 0 400 18" role="img" aria-label=${`Pins use ${used} of ${budget} bytes (${fmtPercent(share)})`}>
      <rect width="400" height="18" class="track" /><rect width=${400 * share} height="18" class="fill" />
    </svg>
    <figcaption>Pins: ${used.toLocaleString("en")} of ${budget.toLocaleString("en")} bytes (${fmtPercent(share)})</figcaption>
  </figure>`;
}

function Belt({ session }: { session: AdminSessionResponse }) {
  return html`<div data-session=${session.id}>
    <dl class="pairs">
      <dt>Session</dt><dd><code>${session.id}</code></dd>
      <dt>Principal</dt><dd>${session.principal}</dd>
      <dt>Brief</dt><dd>${session.brief ?? "none"}</dd>
      <dt>Surface</dt><dd><strong>${session.surface_tokens.toLocaleString("en")}</strong> tokens</dd>
      <dt>Expires</dt><dd>${fmtTime(session.expires_at)}</dd>
    </dl>
    <${Budget} used=${session.used_bytes} budget=${session.budget_bytes} />
    <div class="scroll">
      <table>
        <caption>Belt: ${session.belt.length} tools</caption>
        <thead><tr><th scope="col">Tool</th><th scope="col">Why on the belt</th><th scope="col">Bytes</th><th scope="col">Budget share</th><th scope="col">Last used</th></tr></thead>
        <tbody>${session.belt.map(
          (t) => html`<tr data-tool=${t.name}>
            <th scope="row"><code>${t.name}</code></th>
            <td>${t.source}</td>
            <td class="num">${t.bytes.toLocaleString("en")}</td>
            <td class="num">${t.source === "pin" ? fmtPercent(t.share) : html`<span class="muted">not counted</span>`}</td>
            <td>${fmtTime(t.last_used_at)}</td>
          </tr>`,
        )}</tbody>
      </table>
    </div>
  </div>`;
}

/** Sessions named by the last hour's calls, newest first: quick picks (none when the audit store is off). */
const recentSessions = (api: Api) =>
  api.get<AuditListResponse>("v1/admin/audit", { limit: 200 }).then(
    (r) => [...new Set(r.records.flatMap((rec) => (rec.session ? [rec.session] : [])))].slice(0, 8),
    () => [] as string[],
  );

export function SessionsView({ api }: { api: Api }) {
  const [id, setId] = useState("");
  const [state, setState] = useState<{ loading?: boolean; session?: AdminSessionResponse; error?: unknown }>({});
  const recent = useLoad(() => recentSessions(api), [api]);
  async function show(wanted: string) {
    setState({ loading: true });
    try {
      setState({ session: await api.get<AdminSessionResponse>(`v1/admin/sessions/${encodeURIComponent(wanted.trim())}`) });
    } catch (error) {
      setState({ error });
    }
  }
  const submit = (e: Event) => {
    e.preventDefault();
    void show(id);
  };
  return html`<div>
    <form onSubmit=${submit} class="row">
      <div class="field wide">
        <label for="session-id">Session id</label>
        <input id="session-id" value=${id} onInput=${(e: Event) => setId((e.currentTarget as HTMLInputElement).value)} required autocomplete="off" />
      </div>
      <button type="submit">Show belt</button>
    </form>
    ${
      recent.data?.length
        ? html`<p>Sessions in the last hour's calls: ${recent.data.map(
            (s) => html`<button type="button" class="small link" data-recent-session=${s} onClick=${() => (setId(s), show(s))}>${s}</button>`,
          )}</p>`
        : null
    }
    <div aria-live="polite">
      ${state.loading ? html`<${Loading} what="the session" />` : null}
      ${state.error !== undefined ? html`<${Problem} error=${state.error} />` : null}
      ${state.session ? html`<${Belt} session=${state.session} />` : null}
    </div>
  </div>`;
}
