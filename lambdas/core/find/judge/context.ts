// What the judge's rules share about one catalog: its index and tuning, and what each tool's name and text
// say (its action, scope, object, description parts), each worked out at a tool's first need and kept.
import type { CatalogTool } from "../../../../registry/contract/artifact.js";
import { encode, stripAgentPhrasing, type FieldName } from "../../../../registry/contract/search-options.js";
import type { MatchedWord } from "../../../contract/find.js";
import type { QueryParams } from "../../../../registry/contract/find-tuning.js";
import { STAGE_LIMITS } from "../../../../registry/contract/find-tuning.js";
import { RequestWords } from "../hint-rules.js";
import type { SearchIndex } from "../postings.js";
import { DETERMINERS, TEXT_PARAM } from "../words.js";
import type { Group } from "../analyse.js";
import { actionFit, actionWords, Fit, lastSegmentWords, operationObject, apiCatalog, toolActionOf, toolScopeOf } from "../actions.js";

/**
 * The action of a tool declared read-only whose words name none: it cannot delete or update anything, so it
 * conflicts with those requests only (a pure function, text.slugify, may well "create a slug").
 */
export const READ_ONLY = "read-only";
const WRITES: ReadonlySet<string> = new Set(["delete", "update"]);

/** `actionFit`, with a read-only tool's action (`READ_ONLY`) conflicting with a delete or an update only. */
export function fitOf(request: string | undefined, tool: string | undefined): Fit {
  if (tool !== READ_ONLY) return actionFit(request, tool);
  return request !== undefined && WRITES.has(request) ? Fit.conflict : Fit.unknown;
}

/**
 * The words of a tool name's last segment (getVideoSurveillanceFeed → get, video, surveillance, feed), without
 * a first word that repeats its family or namespace (an MCP server's prefix: playwright.playwright_save_as_pdf → save, as, pdf).
 */
export function nameWords(t: Pick<CatalogTool, "name" | "family">): string[] {
  const words = lastSegmentWords(t.name);
  const namespace = t.name.slice(0, Math.max(t.name.lastIndexOf("."), 0));
  const prefix = words.length > 1 && (actionWords(t.family).includes(words[0]!) || actionWords(namespace).includes(words[0]!));
  return prefix ? words.slice(1) : words;
}

/** Whether the word after the request's verb opens a noun phrase (a determiner or a number): the verb then names a deed done to a thing. */
export function verbTakesObject(query: string, verb: string): boolean {
  const tokens = stripAgentPhrasing(query).toLowerCase().split(/\s+/);
  const at = tokens.findIndex((t) => actionWords(t).includes(verb));
  const next = at < 0 ? undefined : tokens[at + 1];
  return next !== undefined && (DETERMINERS.has(next) || /^\W?\d/.test(next));
}

/** The request's own word behind an encoded one (explain shows "headlines", not the stem "headlin"). */
export function requestWord(query: string, term: string): string {
  return actionWords(query).find((w) => encode(w).includes(term)) ?? term;
}

/** The fields a tool author writes for search (the stray-match rule reads only these). */
export const AUTHORED_FIELDS: readonly FieldName[] = ["name", "tags", "aliases", "examples"];

/** explain's fields that say what a tool is: its name and the words its author tags it with. */
export const IDENTITY_FIELDS: ReadonlySet<MatchedWord["fields"][number]> = new Set(["name", "tags", "aliases"]);

/** explain's fields that hold a tool's body text: the description (past its first sentence) and the details. */
const BODY_FIELDS: ReadonlySet<MatchedWord["fields"][number]> = new Set(["description", "details"]);

/** A tool's description split for the description-body rule: whether its body is long, and its first sentence's terms. */
export type DescriptionParts = { long: boolean; summary: ReadonlySet<string> };

/** A description's first sentence and the rest ("" for one sentence). */
export function splitDescription(text: string): [summary: string, body: string] {
  const m = /[.!?](?:\s+|$)|\n/.exec(text);
  return m ? [text.slice(0, m.index), text.slice(m.index + m[0].length)] : [text, ""];
}

/** A match outside a description's body: in another field (the details are body), or in its first sentence. */
export function anchored(m: MatchedWord, parts: DescriptionParts): boolean {
  return m.fields.some((f) => !BODY_FIELDS.has(f)) || encode(m.expansion ?? m.word).some((t) => parts.summary.has(t));
}

/** Whether a tool's input includes a free text to work on (a string parameter named like one). */
export function textInput(t: CatalogTool): boolean {
  const props = (t.input_schema as { properties?: Record<string, { type?: unknown }> }).properties ?? {};
  return Object.entries(props).some(([k, p]) => TEXT_PARAM.test(k) && (p?.type === "string" || p?.type === undefined));
}

/** What a tool acts on, from its name (the top-object rule): its words, encoded, and the last name segment's encoded words. */
export type ToolObject = { text: string; terms: ReadonlySet<string>; name: ReadonlySet<string> };

type ActionTable = NonNullable<SearchIndex["data"]["actions"]>;

/** One catalog as the judge's rules see it: built once per find engine, its per-tool facts computed lazily. */
export class JudgeContext {
  readonly words: RequestWords;
  private readonly parts = new WeakMap<CatalogTool, DescriptionParts>();
  /** Per tool, its action class (null: none), computed at its first judgement. */
  private readonly toolActs = new WeakMap<CatalogTool, string | null>();
  /** Per tool, its scope bits (actions.ts `Scope`), computed at its first use. */
  private readonly toolScopes = new WeakMap<CatalogTool, number>();
  /** Per tool, what it acts on (`toolObject`), at its first use. */
  private readonly toolObjects = new WeakMap<CatalogTool, ToolObject>();
  /** Per first word of a tool name, how many names start with it (at the verb-as-noun rule's first need). */
  private firstWords: Map<string, number> | undefined;

  constructor(
    readonly index: SearchIndex,
    readonly params: QueryParams,
    /** The catalog's tools (the verb-as-noun rule counts the first words of their names). */
    private readonly tools: readonly CatalogTool[],
  ) {
    this.words = new RequestWords(index);
  }

  /** The catalog's action table (every artifact since the action rule has one; absent only in older artifacts). */
  get actions(): ActionTable | undefined {
    return this.index.data.actions;
  }

  /** A tool's action class (actions.ts `toolActionOf`, else `READ_ONLY` when declared read-only), once per tool. */
  toolAction(t: CatalogTool): string | undefined {
    if (!this.actions) return undefined;
    let act = this.toolActs.get(t);
    // A tool whose words name no action but whose author declared it read-only changes nothing ("git.rev_parse").
    if (act === undefined) this.toolActs.set(t, (act = toolActionOf(t, this.actions!) ?? (t.governance.read_only ? READ_ONLY : null)));
    return act ?? undefined;
  }

  /** A tool's scope bits (actions.ts `toolScopeOf`), once per tool. */
  scopeOfTool(t: CatalogTool): number {
    let bits = this.toolScopes.get(t);
    if (bits === undefined) this.toolScopes.set(t, (bits = toolScopeOf(t, this.actions!)));
    return bits;
  }

  /**
   * What a tool acts on, from its name: the words of its last segment after its verb (its first word) and
   * before a preposition of ownership (issues.delete-comment → comment; repos.list-for-authenticated-user → nothing), or,
   * when none is left, the segment before (gists.create, issues.list-for-repo: the family names the
   * thing). `name`: every encoded word of the last segment. Once per tool.
   */
  toolObject(t: CatalogTool): ToolObject {
    let part = this.toolObjects.get(t);
    if (!part) {
      const { words, last } = operationObject(t.name);
      part = { text: words.join(" "), terms: new Set(words.flatMap((w) => encode(w))), name: new Set(encode(last)) };
      this.toolObjects.set(t, part);
    }
    return part;
  }

  /** A tool's description split into its first sentence's words and whether the rest (with `details`) is long; once per tool. */
  descriptionParts(t: CatalogTool): DescriptionParts {
    let parts = this.parts.get(t);
    if (!parts) {
      const [summary, body] = splitDescription(t.description);
      // An imported operation's long text is its `details`: body text as much as a long description's rest.
      const bodyTerms = encode(body).length + (t.details ? encode(t.details).length : 0);
      parts = { long: bodyTerms >= STAGE_LIMITS.longBodyWords, summary: new Set(encode(summary)) };
      this.parts.set(t, parts);
    }
    return parts;
  }

  /**
   * Whether the catalog's tool names say whose things they are about (an API's operations): it has an action
   * table and enough of its names hold a scope word (`STAGE_LIMITS.scopedCatalogShare`); worked out once per
   * index (actions.ts `apiCatalog`).
   */
  apiCatalog(): boolean {
    return apiCatalog(this.index);
  }

  /** How many of the catalog's tool names start with `word` (their last segment's first word), counted once per catalog. */
  nameVerbCount(word: string): number {
    if (!this.firstWords) {
      this.firstWords = new Map();
      for (const t of this.tools) {
        const w = nameWords(t)[0];
        if (w !== undefined) this.firstWords.set(w, (this.firstWords.get(w) ?? 0) + 1);
      }
    }
    return this.firstWords.get(word) ?? 0;
  }

  /** Whether a word of the request's object, or an expansion of one (either word of a pair), is among `terms`. */
  namesObject(object: readonly Group[], terms: ReadonlySet<string>): boolean {
    const vocab = this.index.terms;
    return object.some((g) =>
      g.members.some((m) => {
        const term = vocab[m.term]!;
        const space = term.indexOf(" ");
        return terms.has(term) || (space > 0 && (terms.has(term.slice(0, space)) || terms.has(term.slice(space + 1))));
      }),
    );
  }
}
