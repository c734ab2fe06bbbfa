// The action a request asks for and the action a tool performs (create, read, update, delete, send),
// and whose things they are about (the caller's own, an organisation's, a repository's), from the
// table the build derives from general English seeds and WordNet (build/actions.ts →
// build/data/actions.json). Pure functions over lower-case words; no allocation on a hit.
// A tool's action and scope are meant to be computed once per tool when the finder loads, so the
// per-candidate cost is one comparison (`actionFit`, `scopeFit`).

import { encode, type ActionTable } from "../../../registry/contract/search-options.js";
import { ownEntry, type SearchIndex } from "./postings.js";
import { STAGE_LIMITS } from "../../../registry/contract/find-tuning.js";
import { OWNER_WORDS, PLACE_WORDS, PREPOSITION_WORDS, STATE_QUESTIONS } from "./words.js";
import httpMethods from "./data/http-methods.json" with { type: "json" };

export type { ActionTable };

/** How a request's action or scope and a tool's relate. */
export const Fit = { unknown: 0, same: 1, conflict: -1 } as const;
export type Fit = (typeof Fit)[keyof typeof Fit];

/** Scopes as bits: a request or a tool may name several ("my repositories": own and repo). */
export const Scope = { own: 1, org: 2, repo: 4 } as const;
const OWNER = Scope.own | Scope.org;

const has = Object.prototype.hasOwnProperty;
/** A table's own entry, never Object.prototype's (postings.ts `ownEntry`). */
const own: (t: Readonly<Record<string, string>>, w: string) => string | undefined = ownEntry;

/** A word as written, else its regular stem: "adds", "added", "adding", "created", "creating", "dropped". */
function lookup(t: Readonly<Record<string, string>>, w: string): string | undefined {
  const hit = own(t, w);
  if (hit !== undefined || w.length < 4) return hit;
  if (w.endsWith("s")) return own(t, w.slice(0, -1)) ?? (w.endsWith("es") ? own(t, w.slice(0, -2)) : undefined);
  if (w.endsWith("ed") || w.endsWith("ing")) {
    const base = w.slice(0, w.endsWith("ed") ? -2 : -3);
    const doubled = base.length > 2 && base[base.length - 1] === base[base.length - 2];
    return own(t, base) ?? own(t, `${base}e`) ?? (doubled ? own(t, base.slice(0, -1)) : undefined);
  }
  return undefined;
}

/**
 * The action class of a sequence of words: the first seed verb ("put eggs on my todo list" → create),
 * else the first verb WordNet added, else the first noun that names an act ("a new booking" → create).
 * Undefined when no word names an action.
 */
export function actionOf(words: readonly string[], table: ActionTable): string | undefined {
  return first(words, table.seeds) ?? first(words, table.verbs) ?? first(words, table.nouns);
}

function first(words: readonly string[], tier: Readonly<Record<string, string>>): string | undefined {
  for (const w of words) {
    const cls = lookup(tier, w);
    if (cls !== undefined) return cls;
  }
  return undefined;
}

/**
 * The action a request asks for: the class of its first word after politeness and the agent's
 * phrasing ("please put eggs on my todo list" → create), as English puts an imperative's verb first.
 * Undefined for a question ("what files are in my folder?") or when that word names no action
 * ("top stories on hacker news"): then nothing is compared.
 */
export function requestAction(words: readonly string[], table: ActionTable): string | undefined {
  return requestActionWord(words, table)?.action;
}

/**
 * The verb of an imperative request: its first word after politeness, the agent's phrasing and an
 * article, whether or not it names an action class ("pin this repository" → pin). Undefined for a question.
 */
export function imperativeVerb(words: readonly string[], table: ActionTable): string | undefined {
  const w = leadWord(words, table);
  return w === undefined || questionWord(w, table) ? undefined : w;
}

/** A request's first word after politeness, the agent's phrasing and an article: its verb, or its question word. */
function leadWord(words: readonly string[], table: ActionTable): string | undefined {
  return words.find((w) => own(table.lead, w) !== "skip");
}

/** Whether a request's first word opens a question ("what", "how", "does"), so the request is no imperative. */
export function questionWord(word: string, table: ActionTable): boolean {
  return own(table.lead, word) === "question";
}

/**
 * What an operation acts on, from its name: the words of its last segment after its verb (its first
 * word) and before a preposition of ownership (issues.delete-comment → comment; list-repos-starred-by-user
 * → repos, starred), or, when none is left, the segment before (gists.create → gists; issues.list-for-repo
 * → issues: the family names the thing). `last`: the last segment. An imported operation's name is its
 * verb, then what it acts on, then whose.
 */
export function operationObject(name: string): { words: string[]; last: string } {
  const segments = name.split(".");
  const last = segments[segments.length - 1]!;
  const words = actionWords(last);
  const owner = words.findIndex((w) => OWNER_WORDS.has(w));
  const head = words.slice(1, owner < 0 ? undefined : owner);
  return { words: head.length || segments.length < 2 ? head : actionWords(segments[segments.length - 2]!), last };
}

/**
 * A question about what is ("who follows me", "which repos have I starred", "what's the CI status of …")
 * asks to read, when none of its words names another action ("where do I delete a branch" does). With the
 * question's word. Undefined for any other request. Read in an API's catalog only (analyse.ts): there a
 * tool's action is a write on a resource, while a hand-written tool named "add" may do arithmetic.
 */
export function questionAction(words: readonly string[], table: ActionTable): { word: string; action: string } | undefined {
  const lead = leadWord(words, table);
  if (lead === undefined || !STATE_QUESTIONS.has(lead)) return undefined;
  // A past participle describes what is, not the act asked for ("what's the OIDC template configured for acme?").
  const named = actionOf(
    words.filter((w) => !(w.length > 5 && w.endsWith("ed"))),
    table,
  );
  return named === undefined || named === "read" ? { word: lead, action: "read" } : undefined;
}

/** `requestAction` with the word that names it ("remind me to call mom" → remind, create). */
export function requestActionWord(words: readonly string[], table: ActionTable): { word: string; action: string } | undefined {
  const w = imperativeVerb(words, table);
  if (w === undefined) return undefined;
  // An imperative's verb is its base form: a first word in -s is a plural noun ("issues assigned to me"), not "issue".
  const action =
    w.length > 3 && w.endsWith("s") && !w.endsWith("ss") ? undefined : (lookup(table.seeds, w) ?? lookup(table.verbs, w) ?? lookup(table.nouns, w));
  return action === undefined ? undefined : { word: w, action };
}

/**
 * A tool's action: from its name's words first ("todo.add", "get-booking"), else from its
 * description's. Compute once per tool.
 */
export function toolAction(nameWords: readonly string[], descriptionWords: readonly string[], table: ActionTable): string | undefined {
  return actionOf(nameWords, table) ?? actionOf(descriptionWords, table);
}

/** What a catalog tool's action is read from: its name and description, and for an HTTP tool its method. */
export type ActionSource = { readonly name: string; readonly description: string; readonly backend?: { readonly kind: string; readonly method?: string } };

/**
 * A catalog tool's action: its name's last segment ("todo.add" → add), else its description. An HTTP tool whose
 * name opens with its own method ("post_folders", "put_files_id": an import named after method and path) does
 * what the method does (data/http-methods.json): "put" there changes a file, it does not make one.
 */
export function toolActionOf(tool: ActionSource, table: ActionTable): string | undefined {
  const words = lastSegmentWords(tool.name);
  const method = tool.backend?.kind === "http" ? tool.backend.method?.toLowerCase() : undefined;
  if (method !== undefined && words[0] === method) {
    const act = ownEntry(HTTP_ACTIONS, method);
    if (act !== undefined) return act;
  }
  return toolAction(words, actionWords(tool.description), table);
}
const HTTP_ACTIONS: Readonly<Record<string, string>> = httpMethods.actions;

/** The words of a tool name's last dot segment ("todo.add" → add; "finance.getStockPrice" → get, stock, price). */
export function lastSegmentWords(name: string): string[] {
  return actionWords(name.slice(name.lastIndexOf(".") + 1));
}

/** A catalog tool's scope bits (whose things it is about), from its name and description. */
export function toolScopeOf(tool: { readonly name: string; readonly description: string }, table: ActionTable): number {
  return scopeOf([...actionWords(tool.name), ...actionWords(tool.description)], table);
}

/** Same class, different classes, or one side unknown. */
export function actionFit(request: string | undefined, tool: string | undefined): Fit {
  if (request === undefined || tool === undefined) return Fit.unknown;
  return request === tool ? Fit.same : Fit.conflict;
}

/**
 * The factor a candidate's score takes from the action rule (docs/find-decisions.md, "Actions and
 * scope"): `1 - penalty` when the request is short (at most `maxWords` words, its agent phrasing
 * removed) and the tool's action conflicts with the request's, else 1. Measured: penalty 0.4 on
 * requests of at most 8 words leaves every public set within 0.1 nDCG@10 and ranks todo.add above
 * todo.list for "put eggs on my todo list" (rerank.ts applies the same rule to the candidates).
 */
export function actionFactor(
  requestWords: readonly string[],
  request: string | undefined,
  tool: string | undefined,
  rule: { penalty: number; maxWords: number },
): number {
  return requestWords.length <= rule.maxWords && actionFit(request, tool) === Fit.conflict ? 1 - rule.penalty : 1;
}

/**
 * A request's words that may say whose things it acts on: a source's or a destination's do not ("create a
 * pull request | from my branch": the branch is the caller's, the pull request is the repository's), from
 * such a preposition up to the next other one ("copy it into my repo | for the acme org"). Nor does the caller's
 * word after a preposition that qualifies another scope's thing ("which teams have access | to my repository":
 * a repository's teams, not the caller's own), the thing's word right after it or one word later.
 */
export function ownerWords(words: readonly string[], table: ActionTable): string[] {
  const out: string[] = [];
  let place = false;
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (PLACE_WORDS.has(w)) place = true;
    else if (place && PREPOSITION_WORDS.has(w)) place = false;
    if (place) continue;
    if (i > 0 && PREPOSITION_WORDS.has(words[i - 1]!) && own(table.scopes, w) === "own") {
      const next = own(table.scopes, words[i + 1] ?? "") ?? own(table.scopes, words[i + 2] ?? "");
      if (next !== undefined && next !== "own") continue;
    }
    out.push(w);
  }
  return out;
}

/** The scopes a sequence of words names, as `Scope` bits (0: none). */
export function scopeOf(words: readonly string[], table: ActionTable): number {
  let bits = 0;
  for (const w of words) {
    const s = own(table.scopes, w);
    if (s !== undefined) bits |= has.call(Scope, s) ? Scope[s as keyof typeof Scope] : 0;
  }
  return bits;
}

/**
 * Whether a tool's scope serves the request's: unknown when either names none; a conflict when they
 * name different owners (the caller's own vs an organisation's) or share no scope at all; else same.
 */
export function scopeFit(request: number, tool: number): Fit {
  if (request === 0 || tool === 0) return Fit.unknown;
  if (request & OWNER && tool & OWNER && !(request & tool & OWNER)) return Fit.conflict;
  return request & tool ? Fit.same : Fit.conflict;
}

/** Lower-case words of a tool name or a text: snake, kebab, dot and camel case split ("getBooking" → get, booking). */
export function actionWords(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z]+/)
    .filter(Boolean);
}

/**
 * Whether the catalog is an API's operations: it has an action table and at least
 * `STAGE_LIMITS.scopedCatalogShare` of its tool names hold a scope word, so its names say whose things its
 * tools are about ("list-for-authenticated-user", "list-for-org"). One pass over the names, once per index;
 * the analyser, the rerank and the judge all ask.
 */
export function apiCatalog(ix: SearchIndex): boolean {
  let known = apiCatalogs.get(ix);
  if (known === undefined) {
    const table = ix.data.actions;
    const words = new Set(table ? Object.keys(table.scopes).flatMap((w) => encode(w).map((t) => ix.termOf(t) ?? -1)) : []);
    known = table !== undefined && ix.nameTerms.filter((terms) => terms.some((t) => words.has(t))).length >= STAGE_LIMITS.scopedCatalogShare * ix.docs;
    apiCatalogs.set(ix, known);
  }
  return known;
}
const apiCatalogs = new WeakMap<SearchIndex, boolean>();
