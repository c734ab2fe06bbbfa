// Find playground: a request as an agent would send it, run as any principal (POST /v1/admin/find, the
// same finder and grants as POST /v1/find), with the ranking, scores, verdict and its reasons; two side by side.
import { useState } from "preact/hooks";
import type { CatalogResponse } from "../../../lambdas/contract/admin.js";
import type { FindResponse } from "../../../lambdas/contract/find.js";
import type { Api } from "../api.js";
import { html } from "../html.js";
import { asText, fmtScore, Loading, Problem, useLoad } from "../ui.js";
import { loadCatalog } from "./catalog.js";

type Request = { principal: string; family: string; mode: string; query: string };
/** A reason row the find pipeline reports (rules that fired, stages it ran), shown whatever its fields. */
type Row = { stage?: unknown; rule?: unknown; effect?: unknown; detail?: unknown };

function Rows({ title, rows }: { title: string; rows: unknown }) {
  if (!Array.isArray(rows) || rows.length === 0) return null;
  return html`<table class="rows">
    <caption>${title}</caption>
    <thead><tr><th scope="col">Stage</th><th scope="col">Rule</th><th scope="col">Effect</th><th scope="col">Detail</th></tr></thead>
    <tbody>${(rows as Row[]).map(
      (r) =>
        html`<tr><td>${r.stage === undefined ? "" : asText(r.stage)}</td><td>${r.rule === undefined ? "" : asText(r.rule)}</td><td>${r.effect === undefined ? "" : asText(r.effect)}</td><td>${r.detail === undefined ? "" : asText(r.detail)}</td></tr>`,
    )}</tbody>
  </table>`;
}

function ScoreBar({ score }: { score: number }) {
  const w = Math.max(0, Math.min(1, score)) * 100;
  return html`<svg class="bar" width="100" height="10" viewBox="0 0 100 10" aria-hidden="true"><rect width="100" height="10" class="track" /><rect width=${w} height="10" class="fill" /></svg>`;
}

/** Where a tool stands in the other request's ranking: the comparison the two panes are for. */
function Elsewhere({ name, other }: { name: string; other?: { side: string; result: FindResponse } }) {
  if (!other) return null;
  const rank = other.result.tools.findIndex((t) => t.name === name);
  return html`<span class="elsewhere" data-elsewhere=${rank < 0 ? "" : String(rank + 1)}>${rank < 0 ? `not in ${other.side}` : `#${rank + 1} in ${other.side}`}</span>`;
}

function Result({ result, other }: { result: FindResponse & Record<string, unknown>; other?: { side: string; result: FindResponse } }) {
  return html`<div class="result">
    <p>
      Verdict <strong class=${result.verdict === "match" ? "ok" : "bad"} data-verdict=${result.verdict}>${result.verdict}</strong>, mode ${result.mode}
      ${result.decision ? html`, chosen by ${result.decision.model} (${result.decision.probabilities})` : null}
    </p>
    ${result.fallback_reason ? html`<p class="muted">Fell back to keyword ranking: ${result.fallback_reason}</p>` : null}
    ${result.note ? html`<p class="muted">${result.note}</p>` : null}
    <${Rows} title="Why this verdict" rows=${result.verdict_reasons} />
    ${
      result.tools.length
        ? html`<ol class="ranking">${result.tools.map((t) => {
            const extra = t as typeof t & Record<string, unknown>;
            return html`<li data-tool=${t.name}>
              <div><code class="name">${t.name}</code> <span class="score">${fmtScore(t.score)}</span> <${ScoreBar} score=${t.score} /> <${Elsewhere} name=${t.name} other=${other} /></div>
              <div class="desc">${t.description}</div>
              ${
                t.explain?.length
                  ? html`<ul class="reasons">${t.explain.map(
                      (m) => html`<li>“${m.word}” in ${m.fields.join(", ")}${m.expansion ? html` (through “${m.expansion}”)` : null}</li>`,
                    )}</ul>`
                  : null
              }
              ${Array.isArray(extra.stages) && extra.stages.length ? html`<div class="muted" data-stages>${(extra.stages as { stage?: unknown; score?: unknown }[]).map((s) => `${asText(s.stage)} ${typeof s.score === "number" ? fmtScore(s.score) : ""}`).join(" → ")}</div>` : null}
              <${Rows} title=${`Rules for ${t.name}`} rows=${extra.rules} />
            </li>`;
          })}</ol>`
        : html`<p>No tools.</p>`
    }
  </div>`;
}

type PaneProps = {
  api: Api;
  side: string;
  catalog?: CatalogResponse;
  /** The other pane's answer, to compare with. */
  other?: { side: string; result: FindResponse };
  answered(result: FindResponse | undefined): void;
};

function Pane({ api, side, catalog, other, answered }: PaneProps) {
  const [req, setReq] = useState<Request>({ principal: "", family: "", mode: "", query: "" });
  const [state, setState] = useState<{ loading?: boolean; result?: FindResponse; error?: unknown }>({});
  const id = (f: string) => `find-${side}-${f}`;
  const set = (k: keyof Request) => (e: Event) => setReq({ ...req, [k]: (e.currentTarget as HTMLInputElement | HTMLSelectElement).value });
  const principals = [...new Set(catalog?.families.flatMap((f) => f.tools.flatMap((t) => t.reached_by.principals)) ?? [])].sort();
  async function submit(e: Event) {
    e.preventDefault();
    setState({ loading: true });
    answered(undefined);
    try {
      const body = {
        query: req.query,
        explain: true,
        ...(req.principal ? { principal: req.principal } : {}),
        ...(req.family ? { family: req.family } : {}),
        ...(req.mode ? { mode: req.mode } : {}),
      };
      const result = await api.post<FindResponse>("v1/admin/find", body);
      setState({ result });
      answered(result);
    } catch (error) {
      setState({ error });
    }
  }
  return html`<section class="pane" aria-labelledby=${id("title")} data-pane=${side}>
    <h3 id=${id("title")}>Request ${side}</h3>
    <form onSubmit=${submit}>
      <div class="field">
        <label for=${id("principal")}>Principal</label>
        <input id=${id("principal")} list=${id("principals")} value=${req.principal} onInput=${set("principal")} placeholder="yours" autocomplete="off" />
        <datalist id=${id("principals")}>${principals.map((p) => html`<option value=${p} />`)}</datalist>
      </div>
      <div class="field">
        <label for=${id("family")}>Family</label>
        <select id=${id("family")} value=${req.family} onChange=${set("family")}>
          <option value="">any</option>
          ${catalog?.families.map((f) => html`<option value=${f.name}>${f.name}</option>`)}
        </select>
      </div>
      <div class="field">
        <label for=${id("mode")}>Mode</label>
        <select id=${id("mode")} value=${req.mode} onChange=${set("mode")}>
          <option value="">auto (what an agent gets by default)</option><option value="keyword">keyword</option><option value="decision">decision</option>
        </select>
      </div>
      <div class="field wide">
        <label for=${id("query")}>Query</label>
        <input id=${id("query")} type="text" value=${req.query} onInput=${set("query")} required maxlength="1000" />
      </div>
      <button type="submit">Find</button>
    </form>
    <div aria-live="polite">
      ${state.loading ? html`<${Loading} what="the ranking" />` : null}
      ${state.error !== undefined ? html`<${Problem} error=${state.error} />` : null}
      ${state.result ? html`<${Result} result=${state.result} other=${other} />` : null}
    </div>
  </section>`;
}

export function FindView({ api }: { api: Api }) {
  // The catalog fills the principal and family choices; the playground works without it.
  const catalog = useLoad(() => loadCatalog(api), [api]);
  const [results, setResults] = useState<{ A?: FindResponse; B?: FindResponse }>({});
  return html`<div>
    <p>Run a find as an agent would send it, as any principal of the policy, and compare two requests side by side.</p>
    ${catalog.error !== undefined ? html`<${Problem} error=${catalog.error} />` : null}
    <div class="panes">
      <${Pane} api=${api} side="A" catalog=${catalog.data} other=${results.B && { side: "B", result: results.B }} answered=${(r: FindResponse | undefined) => setResults((x) => ({ ...x, A: r }))} />
      <${Pane} api=${api} side="B" catalog=${catalog.data} other=${results.A && { side: "A", result: results.A }} answered=${(r: FindResponse | undefined) => setResults((x) => ({ ...x, B: r }))} />
    </div>
  </div>`;
}
