// Calls: the audit store's recent records with filters, and per-family pictures of the last hour.
import { useState } from "preact/hooks";
import type { AuditListResponse, AuditStatsResponse } from "../../../lambdas/contract/admin.js";
import type { Api } from "../api.js";
import { CallsChart, LatencyChart } from "../chart.js";
import { html } from "../html.js";
import { fmtMs, fmtTime, Show, useLoad } from "../ui.js";

type Filters = { principal: string; tool: string; family: string; outcome: string; minutes: string };
const EMPTY: Filters = { principal: "", tool: "", family: "", outcome: "", minutes: "60" };
const FIELDS: [keyof Filters, string][] = [
  ["principal", "Principal"],
  ["tool", "Tool"],
  ["family", "Family"],
  ["outcome", "Outcome (OK or an error code)"],
];

const count = (n: number, what: string) => `${n} ${what}${n === 1 ? "" : "s"}`;

function Charts({ api }: { api: Api }) {
  const stats = useLoad(() => api.get<AuditStatsResponse>("v1/admin/audit/stats", { minutes: 60 }), [api]);
  return html`<section aria-labelledby="charts-title">
    <h3 id="charts-title">Last hour, per family <button type="button" class="small" onClick=${stats.reload}>Refresh<span class="visually-hidden"> the pictures</span></button></h3>
    <${Show} state=${stats} what="the figures">${(s: AuditStatsResponse) =>
      s.families.length
        ? html`<div class="charts">${s.families.map(
            (f) => html`<figure class="family-chart" data-family=${f.family}>
              <figcaption><strong>${f.family}</strong>: ${count(
                f.buckets.reduce((n, b) => n + b.calls, 0),
                "call",
              )}, <span class="bad">${count(
                f.buckets.reduce((n, b) => n + b.errors, 0),
                "error",
              )}</span></figcaption>
              <${CallsChart} family=${f.family} buckets=${f.buckets} bucketSecs=${s.bucket_secs} />
              <${LatencyChart} family=${f.family} buckets=${f.buckets} bucketSecs=${s.bucket_secs} />
            </figure>`,
          )}</div>${s.truncated ? html`<p class="muted">More calls than one answer reads: the figures cover the newest.</p>` : null}`
        : html`<p>No calls in the last ${s.minutes} minutes.</p>`}<//>
    <p class="legend" aria-hidden="true"><span class="key calls"></span> calls <span class="key errors"></span> errors <span class="key p95"></span> p95 <span class="key p50"></span> p50</p>
  </section>`;
}

function Records({ api, filters }: { api: Api; filters: Filters }) {
  const [cursor, setCursor] = useState<string | undefined>(undefined);
  const since = new Date(Date.now() - Number(filters.minutes) * 60_000).toISOString();
  const page = useLoad(
    () =>
      api.get<AuditListResponse>("v1/admin/audit", {
        principal: filters.principal,
        tool: filters.tool,
        family: filters.family,
        outcome: filters.outcome,
        since,
        limit: 100,
        cursor,
      }),
    [api, filters, cursor],
  );
  return html`<${Show} state=${page} what="the calls">${(p: AuditListResponse) => html`<div>
    <div class="scroll">
      <table class="records">
        <caption>${p.records.length} calls, newest first</caption>
        <thead><tr><th scope="col">Time</th><th scope="col">Principal</th><th scope="col">Tool</th><th scope="col">Outcome</th><th scope="col">Status</th><th scope="col">Latency</th><th scope="col">Upstream status</th><th scope="col">Via</th></tr></thead>
        <tbody>${p.records.map(
          (r) => html`<tr data-tool=${r.tool} data-outcome=${r.outcome}>
            <td>${fmtTime(r.time)}</td><td>${r.principal}</td><td><code>${r.tool}</code></td>
            <td class=${r.outcome === "OK" ? "ok" : "bad"}>${r.outcome}</td><td class="num">${r.status}</td><td class="num">${fmtMs(r.latency_ms)}</td>
            <td class="num">${r.upstream_status ?? "—"}</td><td>${r.via ?? "—"}</td>
          </tr>`,
        )}</tbody>
      </table>
    </div>
    <div class="row">
      ${cursor ? html`<button type="button" onClick=${() => setCursor(undefined)}>Newest</button>` : null}
      ${p.next ? html`<button type="button" onClick=${() => setCursor(p.next)}>Older</button>` : null}
    </div>
  </div>`}<//>`;
}

export function CallsView({ api }: { api: Api }) {
  const [draft, setDraft] = useState<Filters>(EMPTY);
  const [filters, setFilters] = useState<Filters>(EMPTY);
  const set = (k: keyof Filters) => (e: Event) => setDraft({ ...draft, [k]: (e.currentTarget as HTMLInputElement).value });
  return html`<div>
    <${Charts} api=${api} />
    <section aria-labelledby="records-title">
      <h3 id="records-title">Recent calls</h3>
      <form class="filters" onSubmit=${(e: Event) => (e.preventDefault(), setFilters({ ...draft }))}>
        ${FIELDS.map(
          ([k, label]) =>
            html`<div class="field"><label for=${`calls-${k}`}>${label}</label><input id=${`calls-${k}`} value=${draft[k]} onInput=${set(k)} autocomplete="off" /></div>`,
        )}
        <div class="field">
          <label for="calls-minutes">Since</label>
          <select id="calls-minutes" value=${draft.minutes} onChange=${set("minutes")}>
            <option value="15">15 minutes ago</option><option value="60">an hour ago</option><option value="1440">a day ago</option><option value="10080">a week ago</option>
          </select>
        </div>
        <button type="submit">Filter</button>
      </form>
      <${Records} api=${api} filters=${filters} />
    </section>
  </div>`;
}
