// Catalog: every family and tool, what it is, whether it can be called, its governance and settings, and
// who reaches it; filtered by name as the operator types.
import { useMemo, useState } from "preact/hooks";
import type { CatalogResponse } from "../../../lambdas/contract/admin.js";
import type { Api } from "../api.js";
import { html } from "../html.js";
import { asText, fmtTime, Show, useLoad } from "../ui.js";

type Family = CatalogResponse["families"][number];
type Tool = Family["tools"][number];

/** The catalog is the same for every view that needs tool names: one request per key. */
const cache = new WeakMap<Api, Promise<CatalogResponse>>();
export function loadCatalog(api: Api): Promise<CatalogResponse> {
  let p = cache.get(api);
  if (!p) {
    p = api.get<CatalogResponse>("v1/admin/catalog");
    p.catch(() => cache.delete(api));
    cache.set(api, p);
  }
  return p;
}

const List = ({ items, none }: { items: string[]; none: string }) =>
  items.length ? html`<ul class="inline">${items.map((i) => html`<li>${i}</li>`)}</ul>` : html`<span class="muted">${none}</span>`;

function Governance({ governance }: { governance: Record<string, unknown> }) {
  const entries = Object.entries(governance);
  if (!entries.length) return html`<span class="muted">none declared</span>`;
  return html`<dl class="pairs">${entries.map(([k, v]) => html`<dt>${k}</dt><dd>${asText(v)}</dd>`)}</dl>`;
}

function ToolRow({ tool }: { tool: Tool }) {
  return html`<tr data-tool=${tool.name}>
    <th scope="row"><code>${tool.name}</code></th>
    <td class="desc">${tool.description}</td>
    <td>${tool.kind}</td>
    <td>${tool.callable ? html`<span class="ok">yes</span>` : html`<span class="bad">no</span> <span class="muted">${tool.not_callable_reason ?? ""}</span>`}</td>
    <td><${Governance} governance=${tool.governance} /></td>
    <td>
      <div><span class="label">principals</span> <${List} items=${tool.reached_by.principals} none="none" /></div>
      <div><span class="label">briefs</span> <${List} items=${tool.reached_by.briefs} none="none" /></div>
    </td>
    <td>
      <details>
        <summary>Schema<span class="visually-hidden"> of ${tool.name}</span></summary>
        <pre class="schema">${JSON.stringify(tool.input_schema, null, 2)}</pre>
      </details>
    </td>
  </tr>`;
}

function FamilySection({ family, tools }: { family: Family; tools: Tool[] }) {
  return html`<section class="family" aria-labelledby=${`family-${family.name}`}>
    <h3 id=${`family-${family.name}`}>${family.name} <span class="tag">${family.kind}</span></h3>
    <p>${family.description}</p>
    ${
      family.settings.length
        ? html`<p>Settings: ${family.settings.map(
            (s) => html`<span class=${s.present ? "setting ok" : "setting bad"}>${s.name}: ${s.present ? "present" : "missing"}</span> `,
          )}</p>`
        : null
    }
    <div class="scroll">
      <table>
        <caption class="visually-hidden">Tools of ${family.name}</caption>
        <thead><tr><th scope="col">Tool</th><th scope="col">Description</th><th scope="col">Kind</th><th scope="col">Callable</th><th scope="col">Governance</th><th scope="col">Reached by</th><th scope="col">Input schema</th></tr></thead>
        <tbody>${tools.map((t) => html`<${ToolRow} key=${t.name} tool=${t} />`)}</tbody>
      </table>
    </div>
  </section>`;
}

export function CatalogView({ api }: { api: Api }) {
  const state = useLoad(() => loadCatalog(api), [api]);
  const [filter, setFilter] = useState("");
  return html`<${Show} state=${state} what="the catalog">${(catalog: CatalogResponse) => html`<${CatalogBody} catalog=${catalog} filter=${filter} setFilter=${setFilter} />`}<//>`;
}

const MAX_ROWS = 300;

function CatalogBody({ catalog, filter, setFilter }: { catalog: CatalogResponse; filter: string; setFilter(v: string): void }) {
  const needle = filter.trim().toLowerCase();
  const shown = useMemo(
    () => catalog.families.map((f) => ({ family: f, tools: f.tools.filter((t) => t.name.toLowerCase().includes(needle)) })).filter((f) => f.tools.length),
    [catalog, needle],
  );
  const count = shown.reduce((n, f) => n + f.tools.length, 0);
  // A registry of thousands of tools would make a page too slow to use: the first rows, and a search narrows.
  let left = MAX_ROWS;
  const rendered = shown.flatMap(({ family, tools }) => {
    const take = tools.slice(0, Math.max(0, left));
    left -= take.length;
    return take.length ? [{ family, tools: take }] : [];
  });
  const a = catalog.artifact;
  return html`<div>
    <p class="muted">Registry <code>${a.registry_hash.slice(0, 12)}</code>, format ${a.format_version}, built ${fmtTime(a.built_at)}: ${a.counts.tools} tools in ${a.counts.families} families.</p>
    <div class="field">
      <label for="catalog-search">Search tools by name</label>
      <input id="catalog-search" type="search" value=${filter} onInput=${(e: Event) => setFilter((e.currentTarget as HTMLInputElement).value)} />
    </div>
    <p role="status" class="muted">
      ${count} ${count === 1 ? "tool matches" : "tools match"}${count > MAX_ROWS ? `: the first ${MAX_ROWS} are shown, search by name to narrow` : ""}
    </p>
    ${rendered.map(({ family, tools }) => html`<${FamilySection} key=${family.name} family=${family} tools=${tools} />`)}
  </div>`;
}
