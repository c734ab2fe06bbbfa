// Misses: find queries no tool answered well and tool names callers sent that were not a tool, most
// frequent first, with the best tool the engine had; for the tool the operator picks, a ready-to-paste
// `aliases` or `examples` snippet made in the page.
import { useState } from "preact/hooks";
import type { CatalogResponse } from "../../../lambdas/contract/admin.js";
import type { MissesResponse, MissSummary } from "../../../lambdas/contract/misses.js";
import type { Api } from "../api.js";
import { html } from "../html.js";
import { fmtScore, fmtTime, Show, useLoad } from "../ui.js";
import { type HintKind, hintSnippet } from "../yaml.js";
import { loadCatalog } from "./catalog.js";

type Kind = "find" | "call";
type Picked = { kind: Kind; miss: MissSummary };

const bestOf = (kind: Kind, m: MissSummary) => (kind === "find" ? m.best_tool : m.resolved_to);

function Snippet({ picked, catalog, close }: { picked: Picked; catalog?: CatalogResponse; close(): void }) {
  const tools = catalog?.families.flatMap((f) => f.tools.map((t) => t.name)) ?? [];
  const [tool, setTool] = useState(bestOf(picked.kind, picked.miss) ?? tools[0] ?? "");
  const [hint, setHint] = useState<HintKind>(picked.kind === "find" ? "examples" : "aliases");
  const { yaml, tooLong } = hintSnippet(tool, hint, picked.miss.names.length ? picked.miss.names : [picked.miss.canonical]);
  const [copied, setCopied] = useState("");
  const copy = () =>
    navigator.clipboard?.writeText(yaml).then(
      () => setCopied("Copied."),
      () => setCopied("The browser refused the clipboard: select the text and copy it."),
    );
  return html`<section class="snippet" aria-labelledby="snippet-title">
    <h3 id="snippet-title">Teach the registry “${picked.miss.canonical}”</h3>
    <div class="row">
      <div class="field">
        <label for="snippet-tool">Tool</label>
        <select id="snippet-tool" value=${tool} onChange=${(e: Event) => setTool((e.currentTarget as HTMLSelectElement).value)}>
          ${tool && !tools.includes(tool) ? html`<option value=${tool}>${tool}</option>` : null}
          ${tools.map((t) => html`<option value=${t}>${t}</option>`)}
        </select>
      </div>
      <fieldset>
        <legend>Add as</legend>
        ${(["aliases", "examples"] as const).map(
          (k) =>
            html`<label class="choice"><input type="radio" name="snippet-kind" value=${k} checked=${hint === k} onChange=${() => setHint(k)} /> ${k}</label>`,
        )}
      </fieldset>
    </div>
    <pre class="yaml" data-snippet=${hint} tabindex="0" aria-label="YAML snippet">${yaml}</pre>
    ${tooLong.length ? html`<p class="bad">Longer than the registry allows for ${hint} (${tooLong.length}): shorten before pasting.</p>` : null}
    <div class="row">
      <button type="button" onClick=${copy}>Copy snippet</button>
      <button type="button" onClick=${close}>Close</button>
      <span role="status">${copied}</span>
    </div>
  </section>`;
}

function MissTable({ api, kind, pick }: { api: Api; kind: Kind; pick(p: Picked): void }) {
  const state = useLoad(() => api.get<MissesResponse>("v1/admin/misses", { kind, limit: 50 }), [api, kind]);
  const title = kind === "find" ? "Find misses" : "Call-name misses";
  return html`<section aria-labelledby=${`misses-${kind}`} data-misses=${kind}>
    <h3 id=${`misses-${kind}`}>${title} <button type="button" class="small" onClick=${state.reload}>Refresh<span class="visually-hidden"> ${title.toLowerCase()}</span></button></h3>
    <${Show} state=${state} what=${title.toLowerCase()}>${(r: MissesResponse) => {
      const misses = "misses" in r ? r.misses : [];
      if (!misses.length) return html`<p>None recorded.</p>`;
      return html`<div class="scroll"><table>
        <caption class="visually-hidden">${title}, most frequent first</caption>
        <thead><tr><th scope="col">Count</th><th scope="col">${kind === "find" ? "Query" : "Name"}</th><th scope="col">Spellings</th><th scope="col">Last</th><th scope="col">${kind === "find" ? "Best tool" : "Resolved to"}</th><th scope="col"><span class="visually-hidden">Snippet</span></th></tr></thead>
        <tbody>${misses.map(
          (m) => html`<tr data-miss=${m.canonical}>
            <td class="num">${m.count}</td>
            <th scope="row">${m.canonical}</th>
            <td>${m.names.join(" · ")}</td>
            <td>${fmtTime(m.last_at)} by ${m.last_principal} (${m.last_outcome})</td>
            <td>${bestOf(kind, m) ? html`<code>${bestOf(kind, m)}</code>${m.best_score !== undefined ? ` ${fmtScore(m.best_score)}` : ""}` : html`<span class="muted">none</span>`}</td>
            <td><button type="button" class="small" onClick=${() => pick({ kind, miss: m })} aria-label=${`Snippet for ${m.canonical}`}>Snippet</button></td>
          </tr>`,
        )}</tbody>
      </table></div>`;
    }}<//>
  </section>`;
}

export function MissesView({ api }: { api: Api }) {
  const catalog = useLoad(() => loadCatalog(api), [api]);
  const [picked, setPicked] = useState<Picked | undefined>(undefined);
  return html`<div>
    ${picked ? html`<${Snippet} key=${`${picked.kind}:${picked.miss.canonical}`} picked=${picked} catalog=${catalog.data} close=${() => setPicked(undefined)} />` : null}
    <${MissTable} api=${api} kind="find" pick=${setPicked} />
    <${MissTable} api=${api} kind="call" pick=${setPicked} />
  </div>`;
}
