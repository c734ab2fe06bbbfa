// The operator console: asks for an admin key (kept in this page's memory only), then shows one view at a
// time, chosen from the navigation or the address's #fragment.
import { render } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { type Api, createApi } from "./api.js";
import { html } from "./html.js";
import { Problem } from "./ui.js";
import { CallsView } from "./views/calls.js";
import { CatalogView, loadCatalog } from "./views/catalog.js";
import { FindView } from "./views/find.js";
import { HealthView } from "./views/health.js";
import { MissesView } from "./views/misses.js";
import { SessionsView } from "./views/sessions.js";

const VIEWS = [
  { id: "catalog", title: "Catalog", View: CatalogView },
  { id: "find", title: "Find playground", View: FindView },
  { id: "sessions", title: "Sessions", View: SessionsView },
  { id: "calls", title: "Calls", View: CallsView },
  { id: "misses", title: "Misses", View: MissesView },
  { id: "health", title: "Health", View: HealthView },
] as const;
type ViewId = (typeof VIEWS)[number]["id"];

const viewOf = (hash: string): ViewId => VIEWS.find((v) => `#${v.id}` === hash)?.id ?? "catalog";

function KeyForm({ enter }: { enter(api: Api): void }) {
  const [key, setKey] = useState("");
  const [state, setState] = useState<{ checking?: boolean; error?: unknown }>({});
  async function submit(e: Event) {
    e.preventDefault();
    const api = createApi(key.trim());
    setState({ checking: true });
    try {
      // The catalog answers only an admin key: a refusal is shown here, before any view.
      await loadCatalog(api);
      enter(api);
    } catch (error) {
      setState({ error });
    }
  }
  return html`<main id="main" class="key">
    <h1>Toolbelt console</h1>
    <p>Enter an admin API key. The page keeps it in memory only (no cookie, no storage) and sends it as <code>Authorization</code> with every request; reloading the page forgets it.</p>
    <form onSubmit=${submit}>
      <div class="field wide">
        <label for="api-key">Admin API key</label>
        <input id="api-key" type="password" autocomplete="off" spellcheck=${false} value=${key} onInput=${(e: Event) => setKey((e.currentTarget as HTMLInputElement).value)} />
      </div>
      <button type="submit" disabled=${state.checking}>Open the console</button>
    </form>
    <div aria-live="polite">${state.error !== undefined ? html`<${Problem} error=${state.error} />` : null}</div>
  </main>`;
}

function Console({ api, leave }: { api: Api; leave(): void }) {
  const [view, setView] = useState<ViewId>(viewOf(location.hash));
  useEffect(() => {
    const onHash = () => setView(viewOf(location.hash));
    addEventListener("hashchange", onHash);
    return () => removeEventListener("hashchange", onHash);
  }, []);
  const current = VIEWS.find((v) => v.id === view) ?? VIEWS[0];
  const main = useRef<HTMLElement>(null);
  const shown = useRef(false);
  useEffect(() => {
    document.title = `${current.title} · Toolbelt console`;
    // After a change of view, focus goes to it (a screen reader reads its heading); not on the first one.
    if (shown.current) main.current?.focus();
    shown.current = true;
  }, [current]);
  return html`<div>
    <a class="skip" href="#main">Skip to the view</a>
    <header>
      <p class="brand">Toolbelt console</p>
      <nav aria-label="Views">
        <ul>${VIEWS.map((v) => html`<li><a href=${`#${v.id}`} aria-current=${v.id === view ? "page" : undefined} data-view=${v.id}>${v.title}</a></li>`)}</ul>
      </nav>
      <button type="button" class="small" onClick=${leave}>Forget the key</button>
    </header>
    <main id="main" tabindex="-1" data-view=${view} ref=${main}>
      <h2>${current.title}</h2>
      <${current.View} key=${view} api=${api} />
    </main>
  </div>`;
}

function App() {
  const [api, setApi] = useState<Api | undefined>(undefined);
  return api ? html`<${Console} api=${api} leave=${() => setApi(undefined)} />` : html`<${KeyForm} enter=${setApi} />`;
}

const root = document.getElementById("app");
if (root) render(html`<${App} />`, root);
