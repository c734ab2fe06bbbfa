// Health: GET /v1/health as an admin sees it (every check: the table, each upstream family, the model
// roles), a down one in red and named "down".
import type { HealthResponse } from "../../../lambdas/contract/health.js";
import type { Answer, Api } from "../api.js";
import { html } from "../html.js";
import { fmtMs, fmtTime, Show, useLoad } from "../ui.js";

type Check = { ok: boolean; latency_ms?: number; error?: string; note?: string };

function CheckRow({ name, what, check }: { name: string; what: string; check: Check }) {
  return html`<tr class=${check.ok ? "up" : "down"} data-check=${what} data-name=${name} data-ok=${String(check.ok)}>
    <th scope="row">${name}</th>
    <td>${what}</td>
    <td><span class=${check.ok ? "pill ok" : "pill bad"}>${check.ok ? "up" : "down"}</span></td>
    <td class="num">${fmtMs(check.latency_ms)}</td>
    <td>${check.error ?? check.note ?? ""}</td>
  </tr>`;
}

function Health({ answer }: { answer: Answer<HealthResponse> }) {
  const h = answer.data;
  const c = h.checks;
  const a = h.artifact ?? { format_version: h.format_version, registry_hash: h.registry_hash, counts: h.counts };
  return html`<div>
    <p class=${h.status === "ok" && answer.status === 200 ? "status ok" : "status bad"} data-status=${h.status}>
      <strong>${h.status === "ok" ? "Serving" : h.status}</strong> (HTTP ${answer.status})${h.down?.length ? html`: down ${h.down.join(", ")}` : null}
    </p>
    <dl class="pairs">
      <dt>Registry</dt><dd><code>${a.registry_hash.slice(0, 12)}</code>, format ${a.format_version}</dd>
      <dt>Built</dt><dd>${fmtTime("built_at" in a ? a.built_at : undefined)}</dd>
      <dt>Serves</dt><dd>${a.counts.tools} tools in ${a.counts.families} families</dd>
      ${c ? html`<dt>Checked</dt><dd>${fmtTime(c.checked_at)} (answers are kept a while: 30 s by default)</dd>` : null}
    </dl>
    ${
      c
        ? html`<div class="scroll"><table class="checks">
          <caption>Checks</caption>
          <thead><tr><th scope="col">Name</th><th scope="col">What</th><th scope="col">State</th><th scope="col">Latency</th><th scope="col">Detail</th></tr></thead>
          <tbody>
            <${CheckRow} name="table" what="table" check=${c.table} />
            ${c.upstreams.map((u) => html`<${CheckRow} name=${u.family} what="upstream" check=${u} />`)}
            ${c.models.map((m) => html`<${CheckRow} name=${m.role} what="model role" check=${m} />`)}
          </tbody>
        </table></div>`
        : html`<p class="muted">No per-check details in this answer: they are shown to admin keys.</p>`
    }
  </div>`;
}

export function HealthView({ api }: { api: Api }) {
  const state = useLoad(() => api.answer<HealthResponse>("v1/health"), [api]);
  return html`<div>
    <button type="button" onClick=${state.reload}>Check again</button>
    <${Show} state=${state} what="health">${(answer: Answer<HealthResponse>) => html`<${Health} answer=${answer} />`}<//>
  </div>`;
}
