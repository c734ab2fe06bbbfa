// Stage 4, judge: the one place that decides whether a tool fits. It gives one fit factor c in (0, 1]
// per request, from the evidence that suits the top tool: the fit model (verdict.ts: the request's
// form and how well the top tool covers it) for a tool without search hints, and the hint rules
// (hint-rules.ts: the author's words) for a tool with hints or in a catalog whose authors mostly wrote
// them. c multiplies every shown score, so the order is kept; a tool stays when c·score ≥ min_score,
// and the answer is `none` when none stays. A tool asked for by its exact name is not judged.
import type { CatalogTool } from "../../../registry/contract/artifact.js";
import { encode, labelsInput, stripAgentPhrasing, type FieldName } from "../../../registry/contract/search-options.js";
import type { MatchedWord } from "../../contract/find.js";
import { askedWords, headWords, matchedWords, RequestWords, specificHit, strayMatch } from "./hint-rules.js";
import type { SearchIndex } from "./postings.js";
import { DEFAULT_MIN_SCORE, STAGE_LIMITS, type QueryParams } from "../../../registry/contract/find-tuning.js";
import { COMMON_WORDS, DETERMINERS, TEXT_PARAM } from "./words.js";
import { hasHints, Verdict, type VerdictFeatures, type VerdictModel } from "./verdict.js";
import type { Analysis, Group } from "./analyse.js";
import { actionFit, actionOf, actionWords, Fit, lastSegmentWords, operationObject, scopedCatalog, scopeFit, toolActionOf, toolScopeOf } from "./actions.js";
import lists from "./data/request-words.json" with { type: "json" };

/** A word starting with one of the opposite-making prefixes (the opposite rule's first check). */
const OPPOSITE_START = new RegExp(`(?:^|[^a-z])(?:${lists.opposites.prefixes.join("|")})[a-z]`);

/**
 * The action of a tool declared read-only whose words name none: it cannot delete or update anything, so it
 * conflicts with those requests only (a pure function, text.slugify, may well "create a slug").
 */
const READ_ONLY = "read-only";
const WRITES: ReadonlySet<string> = new Set(["delete", "update"]);

/** `actionFit`, with a read-only tool's action (`READ_ONLY`) conflicting with a delete or an update only. */
function fitOf(request: string | undefined, tool: string | undefined): Fit {
  if (tool !== READ_ONLY) return actionFit(request, tool);
  return request !== undefined && WRITES.has(request) ? Fit.conflict : Fit.unknown;
}

/**
 * The words of a tool name's last segment (getVideoSurveillanceFeed → get, video, surveillance, feed), without
 * a first word that repeats its family or namespace (an MCP server's prefix: playwright.playwright_save_as_pdf → save, as, pdf).
 */
function nameWords(t: Pick<CatalogTool, "name" | "family">): string[] {
  const words = lastSegmentWords(t.name);
  const namespace = t.name.slice(0, Math.max(t.name.lastIndexOf("."), 0));
  const prefix = words.length > 1 && (actionWords(t.family).includes(words[0]!) || actionWords(namespace).includes(words[0]!));
  return prefix ? words.slice(1) : words;
}

/** Whether the word after the request's verb opens a noun phrase (a determiner or a number): the verb then names a deed done to a thing. */
function verbTakesObject(query: string, verb: string): boolean {
  const tokens = stripAgentPhrasing(query).toLowerCase().split(/\s+/);
  const at = tokens.findIndex((t) => actionWords(t).includes(verb));
  const next = at < 0 ? undefined : tokens[at + 1];
  return next !== undefined && (DETERMINERS.has(next) || /^\W?\d/.test(next));
}

/** The request's own word behind an encoded one (explain shows "headlines", not the stem "headlin"). */
function requestWord(query: string, term: string): string {
  return actionWords(query).find((w) => encode(w).includes(term)) ?? term;
}

/** The fields a tool author writes for search (the stray-match rule reads only these). */
export const AUTHORED_FIELDS: readonly FieldName[] = ["name", "tags", "aliases", "examples"];

/** explain's fields that say what a tool is: its name and the words its author tags it with. */
const IDENTITY_FIELDS: ReadonlySet<MatchedWord["fields"][number]> = new Set(["name", "tags", "aliases"]);

/** explain's fields that hold a tool's body text: the description (past its first sentence) and the details. */
const BODY_FIELDS: ReadonlySet<MatchedWord["fields"][number]> = new Set(["description", "details"]);

/** A hint rule that fired: its name, its factor, and the request's word that made it fire (if one did). */
export type HintRule = { rule: "hint-stray" | "one-word" | "everyday-words"; factor: number; word?: string };

/** The judge's finding for a request: the factor, and the evidence behind it. */
export type Judgement = {
  factor: number;
  /** The fit model's features, margin and factor, when it judged (a top tool without hints). */
  model?: { features: VerdictFeatures; margin: number; factor: number };
  /** The hint rule that fired, when the top tool (or its catalog) is judged by the author's words. */
  hint?: HintRule;
  /** Whether the hint rules were consulted (a hinted top tool or catalog), fired or not. */
  hinted: boolean;
  /** The description-body rule, when it fired: its factor and the one word met in a long description's body. */
  body?: { factor: number; word: string };
  /**
   * The one-word rule held back: the request asks for the tool's own action and the tool met all it
   * asks for, so the word the rule would cite (`word`) is the request's input, not a lack (`action`: the class).
   */
  input?: { action: string; word: string };
  /**
   * The scope rule, when it fired: the top tool is about other people's things than the request (`Scope`
   * bits of each) while `other`, a tool just behind, is about the request's.
   */
  scope?: { factor: number; request: number; tool: number; other: string };
  /** The opposite rule, when it fired: the request's word (`word`) undoes the top tool's name word (`toolWord`). */
  opposite?: { factor: number; word: string; toolWord: string };
  /**
   * The top-action rule, when it fired: the request asks for `request` (its word `word`), the top tool
   * does `tool` (`read-only`: declared so, its words naming no action), and none of the tools just behind it does what the request asks.
   */
  action?: { factor: number; word: string; request: string; tool: string };
  /**
   * The top-object rule, when it fired: none of the words of what the request asks for (`word`: its first)
   * is in the part of the top tool's name that says what it acts on (`part`), nor is it in that part of a
   * tool just behind that does the asked action.
   */
  object?: { factor: number; word: string; part: string };
  /**
   * The verb-only rule, when it fired: the top tool met the request only in its verb (`verb`, a word of the
   * tool's name), and what the request acts on (`word`: its first specific word) is met by no tool just behind.
   */
  verbOnly?: { factor: number; verb: string; word: string };
  /**
   * The verb-as-noun rule, when it fired: the request's verb (`verb`) is met in the top tool's name only among
   * the words of what it acts on, while the tool's own verb (`toolVerb`) is another.
   */
  verbNoun?: { factor: number; verb: string; toolVerb: string };
};

/** What a tool acts on, from its name (the top-object rule): its words, encoded, and the last name segment's encoded words. */
type ToolObject = { text: string; terms: ReadonlySet<string>; name: ReadonlySet<string> };

/** What the hint rules found: the rule that fired, or the one-word rule held back by the request's input. */
type HintFinding = { hint?: HintRule; input?: Judgement["input"] };

/** A tool's description split for the description-body rule: whether its body is long, and its first sentence's terms. */
type DescriptionParts = { long: boolean; summary: ReadonlySet<string> };

/** A description's first sentence and the rest ("" for one sentence). */
export function splitDescription(text: string): [summary: string, body: string] {
  const m = /[.!?](?:\s+|$)|\n/.exec(text);
  return m ? [text.slice(0, m.index), text.slice(m.index + m[0].length)] : [text, ""];
}

/** What the judge asks of the other stages about a request's top tool. */
export type JudgeInput = {
  query: string;
  top: CatalogTool;
  topDoc: number;
  topScore: number;
  /** explain's matched words of a tool, over the given fields (all by default). */
  matches: (t: CatalogTool, only?: readonly FieldName[]) => MatchedWord[];
  /** The tools just behind the top, ranked afresh without the bar (the everyday-words rule's second look). */
  runnersUp: () => CatalogTool[];
  /** The find's analysis of the request: the action it asks for (and the word naming it) and whose things it is about. */
  request: Pick<Analysis, "action" | "actionWord" | "scope" | "groups" | "verb">;
};

/** Whether a tool's input includes a free text to work on (a string parameter named like one). */
export function textInput(t: CatalogTool): boolean {
  const props = (t.input_schema as { properties?: Record<string, { type?: unknown }> }).properties ?? {};
  return Object.entries(props).some(([k, p]) => TEXT_PARAM.test(k) && (p?.type === "string" || p?.type === undefined));
}

/** A match outside a description's body: in another field (the details are body), or in its first sentence. */
function anchored(m: MatchedWord, parts: DescriptionParts): boolean {
  return m.fields.some((f) => !BODY_FIELDS.has(f)) || encode(m.expansion ?? m.word).some((t) => parts.summary.has(t));
}

export class Judge {
  private readonly verdict: Verdict;
  private readonly words: RequestWords;
  private readonly parts = new WeakMap<CatalogTool, DescriptionParts>();
  /** Per tool, its action class (null: none), computed at its first judgement. */
  private readonly toolActs = new WeakMap<CatalogTool, string | null>();
  /** Per tool, its scope bits (actions.ts `Scope`), computed at its first use. */
  private readonly toolScopes = new WeakMap<CatalogTool, number>();
  /** Per tool, what it acts on (`toolObject`), at its first use. */
  private readonly toolObjects = new WeakMap<CatalogTool, ToolObject>();
  /** Whether the catalog's tool names say whose things they are about (computed at the top-scope rule's first need). */
  private scoped: boolean | undefined;
  /** Per first word of a tool name, how many names start with it (at the verb-as-noun rule's first need). */
  private firstWords: Map<string, number> | undefined;

  constructor(
    private readonly index: SearchIndex,
    private readonly params: QueryParams,
    model: VerdictModel,
    /** Most of the catalog's tools have search hints: a tool without them is held to the hint rules too. */
    private readonly hintedCatalog: boolean,
    /** The catalog's tools (the verb-as-noun rule counts the first words of their names). */
    private readonly tools: readonly CatalogTool[],
  ) {
    this.verdict = new Verdict(index, model);
    this.words = new RequestWords(index);
  }

  judge(asked: JudgeInput): Judgement {
    // The rules below may each look at the tools behind the top: rank them again once at most.
    let behind: CatalogTool[] | undefined;
    const q: JudgeInput = { ...asked, runnersUp: () => (behind ??= asked.runnersUp()) };
    // The model was fitted on catalogs without search hints (MetaTool, seal-tools). On a top tool with hints it
    // answered none to no request that needed it and hid right tools (test/eval/README.md, "Sixth round"):
    // such a tool is judged by its author's words, the rules below.
    const hinted = hasHints(q.top);
    let factor = 1;
    let model: Judgement["model"];
    if (!hinted) {
      const features = this.verdict.features(q.query, q.topDoc, q.topScore, textInput(q.top));
      factor = this.verdict.factor(features, DEFAULT_MIN_SCORE);
      model = { features, margin: this.verdict.margin(features), factor };
    }
    // In a catalog whose authors wrote hints (most of its tools have them), a tool without hints (a server
    // snapshot's) is held to the same rules, its name and tags its authored words: otherwise it is where
    // the strays land ("hike along the coast" → a tool "with an output schema along with" its content).
    const consult = hinted || this.hintedCatalog;
    // In a catalog whose tool names say whose things they are about (an API's operations, imported), a top
    // tool without hints is held to the one-word rule too: the catalog's words are one API's, so a request
    // word foreign to it names something it lacks ("track the sushi delivery" → a webhook's deliveries).
    const { hint, input } = consult ? this.hintRule(q) : this.apiCatalog() ? this.oneWordRule(q) : {};
    if (hint) factor *= hint.factor;
    const word = this.params.bodyOneWord < 1 ? this.bodyWord(q) : undefined;
    const body = word === undefined ? undefined : { factor: this.params.bodyOneWord, word };
    if (body) factor *= body.factor;
    const scope = this.params.scopeVerdict < 1 ? this.scopeRule(q) : undefined;
    if (scope) factor *= scope.factor;
    const opposite = this.params.oppositeVerdict < 1 ? this.oppositeRule(q) : undefined;
    if (opposite) factor *= opposite.factor;
    // The top-action rule where a tool's name or its author's words say what it does: an API's operations, or a
    // catalog judged by its authors' hints (on catalogs without either, MetaTool's, it cost false-nones).
    const action = this.params.actionVerdict < 1 && (consult || this.apiCatalog()) ? this.actionRule(q) : undefined;
    if (action) factor *= action.factor;
    const object = this.params.objectVerdict < 1 && !action && this.apiCatalog() ? this.objectRule(q) : undefined;
    if (object) factor *= object.factor;
    // Its twin where authors name their tools by what they do (a catalog judged by hints): the verb alone.
    const verbOnly = this.params.verbOnlyVerdict < 1 && consult && !action && !object ? this.verbOnlyRule(q) : undefined;
    if (verbOnly) factor *= verbOnly.factor;
    // And where the fit model judges, outside an API's catalog (there a verb made of the object asks for it: "tag the head" → create-tag):
    // the request's verb met only as a noun of the tool's name.
    const verbNoun = this.params.verbNounVerdict < 1 && !consult && !action && !object && !this.apiCatalog() ? this.verbNounRule(q) : undefined;
    if (verbNoun) factor *= verbNoun.factor;
    return {
      factor,
      hinted: consult,
      ...(model ? { model } : {}),
      ...(hint ? { hint } : {}),
      ...(input ? { input } : {}),
      ...(body ? { body } : {}),
      ...(scope ? { scope } : {}),
      ...(opposite ? { opposite } : {}),
      ...(action ? { action } : {}),
      ...(object ? { object } : {}),
      ...(verbOnly ? { verbOnly } : {}),
      ...(verbNoun ? { verbNoun } : {}),
    };
  }

  /**
   * The top-object rule, in an API's catalog: the request is an imperative ("pin this repository | to my
   * profile": its first word, the verb, then what it acts on, up to the first preposition), none of the
   * words of what it acts on, nor of their expansions, names what the top tool acts on (its name's
   * object: issues.delete-comment → comment), and no tool just behind that does the asked action (its
   * class, or the verb itself in its name) acts on it: the best match acts on something else.
   * When a tool just behind does, the ranking erred and the verdict holds back.
   */
  private objectRule(q: JudgeInput): Judgement["object"] {
    const { verb: verbWord, groups, action } = q.request;
    if (verbWord === undefined) return undefined;
    const verb = encode(verbWord);
    const words = new Set(headWords(q.query).filter((t) => !verb.includes(t)));
    const object = groups.filter((g) => words.has(g.word));
    if (!object.length) return undefined;
    const part = this.toolObject(q.top);
    // A verb made of the tool's object ("tag the head as v1.4.2" → git.create-tag) asks for that object.
    if (this.namesObject(object, part.terms) || verb.some((v) => part.terms.has(v))) return undefined;
    const table = this.index.data.actions!;
    const serves = (t: CatalogTool) => {
      const own = this.toolObject(t);
      return this.namesObject(object, own.terms) && (fitOf(action, this.toolAction(t, table)) !== Fit.conflict || verb.some((v) => own.name.has(v)));
    };
    if (q.runnersUp().some(serves)) return undefined;
    return { factor: this.params.objectVerdict, word: object[0]!.word, part: part.text };
  }

  /**
   * The verb-only rule, where tools are judged by their authors' hints: the request is an imperative whose
   * verb is a word of the top tool's name and is followed by a determiner or a number (it names a thing: "set an
   * alarm", "convert 50 USD"; a bare word is more often the input: "reverse hello"), the tool met no specific
   * word of the request but the verb and no word of its head (its words before the first preposition, data
   * aside) that it is named or tagged by, and no tool just behind whose action does not conflict meets a specific word
   * of that head: a tool named by what it does, asked to do it to something else ("convert 50 USD to euros" →
   * time.convert, "set an alarm for 7am" → kv.set). Not when the request labels its input ("shuffle this
   * playlist: …"): its head names that input.
   */
  private verbOnlyRule(q: JudgeInput): Judgement["verbOnly"] {
    const { verb: verbWord, action } = q.request;
    if (verbWord === undefined || labelsInput(q.query) || !verbTakesObject(q.query, verbWord)) return undefined;
    const hits = q.matches(q.top);
    if (!hits.some((m) => m.fields.includes("name") && encode(m.word).some((w) => encode(verbWord).includes(w)))) return undefined;
    // The verb, and the request's other words for the same action ("create a new folder": new is a create too).
    const table = this.index.data.actions!;
    const verb = actionWords(q.query).flatMap((w) => (w === verbWord || (action !== undefined && actionOf([w], table) === action) ? encode(w) : []));
    const head = headWords(q.query).filter((t) => !verb.includes(t));
    // Beyond the verb, the tool met a specific word, or an everyday word of the head that it is named or tagged by ("the key cache": kv's key).
    const named = (m: MatchedWord) => m.fields.some((f) => IDENTITY_FIELDS.has(f));
    const beyond = (m: MatchedWord) => encode(m.word).some((w) => !verb.includes(w) && (!COMMON_WORDS.has(w) || (head.includes(w) && named(m))));
    if (hits.some(beyond)) return undefined;
    const object = head.filter((t) => !COMMON_WORDS.has(t));
    if (!object.length) return undefined;
    const meets = (t: CatalogTool) => {
      const theirs = matchedWords(q.matches(t));
      return object.some((w) => theirs.has(w)) && fitOf(action, this.toolAction(t, table)) !== Fit.conflict;
    };
    if (q.runnersUp().some(meets)) return undefined;
    return { factor: this.params.verbOnlyVerdict, verb: verbWord, word: requestWord(q.query, object[0]!) };
  }

  /**
   * The verb-as-noun rule, on a tool judged by the fit model in a catalog whose tool names start with their
   * verb (the first word of at least `nameVerbMinTools` names: get, calculate; a prefix repeating the family
   * left out): the request's imperative verb, followed by a determiner or a number, is a word of what the top tool acts on (its name after its verb: getVideoSurveillance**Feed**, estimate**Walking**Time),
   * not its verb, the tool's action class is not the request's, and no tool just behind starts its name with the
   * request's verb: the tool is about the thing the request's verb names, not doing it ("feed the ducks at the
   * pond", "walk the dog").
   */
  private verbNounRule(q: JudgeInput): Judgement["verbNoun"] {
    const { verb: verbWord, action } = q.request;
    if (verbWord === undefined || !verbTakesObject(q.query, verbWord)) return undefined;
    const verb = encode(verbWord);
    const [toolVerb, ...rest] = nameWords(q.top);
    if (toolVerb === undefined || !rest.some((w) => encode(w).some((t) => verb.includes(t)))) return undefined;
    if (this.nameVerbCount(toolVerb) < STAGE_LIMITS.nameVerbMinTools) return undefined;
    const table = this.index.data.actions!;
    if (fitOf(action, this.toolAction(q.top, table)) === Fit.same) return undefined;
    const startsWithVerb = (t: CatalogTool) => encode(nameWords(t)[0] ?? "").some((x) => verb.includes(x));
    if (q.runnersUp().some(startsWithVerb)) return undefined;
    return { factor: this.params.verbNounVerdict, verb: verbWord, toolVerb };
  }

  /** How many of the catalog's tool names start with `word` (their last segment's first word), counted once per catalog. */
  private nameVerbCount(word: string): number {
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
  private namesObject(object: readonly Group[], terms: ReadonlySet<string>): boolean {
    const vocab = this.index.terms;
    return object.some((g) =>
      g.members.some((m) => {
        const term = vocab[m.term]!;
        const space = term.indexOf(" ");
        return terms.has(term) || (space > 0 && (terms.has(term.slice(0, space)) || terms.has(term.slice(space + 1))));
      }),
    );
  }

  /**
   * What a tool acts on, from its name: the words of its last segment after its verb (its first word) and
   * before a preposition of ownership (issues.delete-comment → comment; repos.list-for-authenticated-user → nothing), or,
   * when none is left, the segment before (gists.create, issues.list-for-repo: the family names the
   * thing). `name`: every encoded word of the last segment. Once per tool.
   */
  private toolObject(t: CatalogTool): ToolObject {
    let part = this.toolObjects.get(t);
    if (!part) {
      const { words, last } = operationObject(t.name);
      part = { text: words.join(" "), terms: new Set(words.flatMap((w) => encode(w))), name: new Set(encode(last)) };
      this.toolObjects.set(t, part);
    }
    return part;
  }

  /**
   * The top-action rule, in an API's catalog or one judged by its authors' hints: the request asks for an action (its imperative's verb,
   * "add this repo to my star list" → create), the top tool does another (a list, a read), and none of
   * the tools just behind it does the asked one: the catalog's best matches for its words do not do
   * what it asks (the rerank's action rule lowers such a tool only on short requests, and only to
   * reorder). When a tool just behind does it and meets a specific word of the request besides its verb,
   * the ranking erred and the verdict holds back.
   */
  private actionRule(q: JudgeInput): Judgement["action"] {
    const table = this.index.data.actions!;
    // The top tool's action is known once per tool: most requests stop here or at the request's first word.
    const tool = this.toolAction(q.top, table);
    if (tool === undefined) return undefined;
    const { action, actionWord } = q.request;
    if (action === undefined || actionWord === undefined || fitOf(action, tool) !== Fit.conflict) return undefined;
    // A tool behind that does the asked action is an alternative only when it meets the request beyond its verb in a
    // specific word: "set the server's timezone to UTC" is not served by kv.set, met by "set" alone, nor "delete the
    // old log files" by notes.delete, met besides in "old".
    const verb = encode(actionWord);
    const beyondVerb = (t: CatalogTool) => q.matches(t).some((m) => encode(m.word).some((w) => !verb.includes(w) && !COMMON_WORDS.has(w)));
    if (q.runnersUp().some((t) => fitOf(action, this.toolAction(t, table)) === Fit.same && beyondVerb(t))) return undefined;
    return { factor: this.params.actionVerdict, word: actionWord, request: action, tool };
  }

  /** A tool's action class (actions.ts `toolActionOf`, else `READ_ONLY` when declared read-only), once per tool. */
  private toolAction(t: CatalogTool, table: NonNullable<SearchIndex["data"]["actions"]>): string | undefined {
    let act = this.toolActs.get(t);
    // A tool whose words name no action but whose author declared it read-only changes nothing ("git.rev_parse").
    if (act === undefined) this.toolActs.set(t, (act = toolActionOf(t, table) ?? (t.governance.read_only ? READ_ONLY : null)));
    return act ?? undefined;
  }

  /**
   * The scope rule: the request names whose things it is about (the caller's own, an organisation's, a
   * repository's), the top tool's scope conflicts with it, and a tool just behind serves it: the catalog
   * has operations of the request's scope and the best match is not one of them ("turn on two-factor
   * for my account" → an organisation's member list, the caller's own accounts just behind).
   */
  private scopeRule(q: JudgeInput): Judgement["scope"] {
    const table = this.index.data.actions;
    if (!table || !this.scopedCatalog(table)) return undefined;
    const request = q.request.scope ?? 0;
    const tool = this.scopeOfTool(q.top);
    if (scopeFit(request, tool) !== Fit.conflict) return undefined;
    const other = q.runnersUp().find((t) => scopeFit(request, this.scopeOfTool(t)) === Fit.same);
    return other ? { factor: this.params.scopeVerdict, request, tool, other: other.name } : undefined;
  }

  /** Whether enough of the catalog's tool names hold a scope word (`STAGE_LIMITS.scopedCatalogShare`), once. */
  private scopedCatalog(table: NonNullable<SearchIndex["data"]["actions"]>): boolean {
    this.scoped ??= scopedCatalog(this.index, table, STAGE_LIMITS.scopedCatalogShare);
    return this.scoped;
  }

  private scopeOfTool(t: CatalogTool): number {
    let bits = this.toolScopes.get(t);
    if (bits === undefined) {
      const table = this.index.data.actions!;
      this.toolScopes.set(t, (bits = toolScopeOf(t, table)));
    }
    return bits;
  }

  /**
   * The opposite rule: a request word is an opposite-making prefix and a word of the top tool's name
   * ("unread" = un + "read" of mark-notifications-as-read) and the catalog never says it: the tool
   * does what the request asks to undo, and no tool speaks of the undoing. (A word the catalog says,
   * "display" beside a tool named "play", is the catalog's own word, not an opposite.)
   */
  private oppositeRule(q: JudgeInput): Judgement["opposite"] {
    // Most requests hold no word starting with a prefix: one test of the text (split as actionWords splits it) first.
    if (!OPPOSITE_START.test(q.query.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase())) return undefined;
    const name = new Set(actionWords(q.top.name));
    for (const word of actionWords(q.query)) {
      const prefix = lists.opposites.prefixes.find((p) => word.startsWith(p));
      if (prefix === undefined || name.has(word)) continue;
      const toolWord = word.slice(prefix.length);
      if (toolWord.length < STAGE_LIMITS.oppositeMinLetters || !name.has(toolWord)) continue;
      // Last, as the dearest checks: a word the catalog says is its own, not an opposite (encoding the word);
      if (encode(word).some((t) => this.index.termOf(t) !== undefined)) continue;
      // a clause that removes the undone state asks for the thing ("just clear out all my unread notifications": mark them read).
      if (this.removes(q.query, word)) continue;
      return { factor: this.params.oppositeVerdict, word, toolWord };
    }
    return undefined;
  }

  /** Whether the clause of `query` (up to a comma, a full stop or a semicolon) that holds `word` asks first for a delete. */
  private removes(query: string, word: string): boolean {
    const clause = query.split(/[,.;:!?]+/).find((c) => actionWords(c).includes(word));
    return clause !== undefined && actionOf(actionWords(clause), this.index.data.actions!) === "delete";
  }

  /**
   * The description-body rule: every specific word (not everyday English) the request met the top tool
   * in is only in the body of its long description (after its first sentence), where words are often
   * incidental ("retry a failed payment" → a webhook whose description says deliveries are retried).
   * Returns the first such word (undefined: the rule does not fire).
   */
  private bodyWord(q: JudgeInput): string | undefined {
    const parts = this.descriptionParts(q.top);
    if (!parts.long) return undefined;
    const specific = q.matches(q.top).filter((m) => encode(m.word).some((t) => !COMMON_WORDS.has(t)));
    return specific.length > 0 && !specific.some((m) => anchored(m, parts)) ? specific[0]!.word : undefined;
  }

  /** A tool's description split into its first sentence's words and whether the rest (with `details`) is long; once per tool. */
  private descriptionParts(t: CatalogTool): DescriptionParts {
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

  /** The first hint rule that fires on the request's top tool, in the order of their strength. */
  private hintRule(q: JudgeInput): HintFinding {
    const p = this.params;
    // Evidence the model cannot see on a small catalog: a match the tool's author did not anticipate,
    if (p.hintStray < 1 && strayMatch(q.matches(q.top, AUTHORED_FIELDS))) return { hint: { rule: "hint-stray", factor: p.hintStray } };
    const hits = q.matches(q.top);
    // or one that meets the tool in a single word while another is foreign or unmatched (`oneWordRule`),
    const { hint, input } = this.oneWordRule(q, hits);
    if (hint) return { hint };
    // or one in everyday words only ("get", "show", "list", "latest") while the request names something the
    // catalog lacks ("get me the latest bitcoin price" → kv.get), unless a tool just behind meets a specific word.
    if (p.hintEveryday < 1) {
      const word = this.everyday(q, hits);
      if (word !== undefined) return { hint: { rule: "everyday-words", factor: p.hintEveryday, word } };
    }
    return input ? { input } : {};
  }

  /**
   * The request's action class when it is the top tool's too and the tool met every specific word of
   * what the request asks for (its words before the first preposition) other than the action word
   * itself: then the request's other words are what it gives the tool. Undefined otherwise.
   */
  private askedAction(q: JudgeInput, hits: MatchedWord[]): string | undefined {
    const table = this.index.data.actions;
    if (!table) return undefined;
    const { action, actionWord } = q.request;
    if (action === undefined || actionWord === undefined) return undefined;
    if (fitOf(action, this.toolAction(q.top, table)) !== Fit.same) return undefined;
    const verb = new Set(encode(actionWord));
    const met = matchedWords(hits);
    return askedWords(q.query).every((t) => verb.has(t) || met.has(t)) ? action : undefined;
  }

  /**
   * The one-word rule: the request meets the top tool in a single word while another word is foreign to
   * the whole catalog ("load the dishwasher" → system.load, "hand me the remote" → git.remotes), or, when
   * that word is not one the tool is named by (its name, its aliases), another specific word the tool did
   * not match ("order a pizza" → random.shuffle's "random order"). Not when that word is the request's
   * input: it asks for the tool's own action and the tool met all it asks for ("remind me | to water the plants").
   */
  private oneWordRule(q: JudgeInput, matched?: MatchedWord[]): HintFinding {
    const factor = this.params.hintOneHit;
    if (factor >= 1) return {};
    const all = matched ?? q.matches(q.top);
    // Beside a word met elsewhere, one met only in a long description's body is incidental there ("goes" in a
    // paragraph on forks): not a second hit. (When every hit is in the body, that is the description-body rule's case.)
    const parts = this.descriptionParts(q.top);
    const outside = parts.long ? all.filter((m) => anchored(m, parts)) : all;
    const hits = outside.length ? outside : all;
    const word = this.oneWord(q.query, hits);
    if (word === undefined) return {};
    const action = this.askedAction(q, all);
    return action === undefined ? { hint: { rule: "one-word", factor, word } } : { input: { action, word } };
  }

  /** Whether the catalog's tool names say whose things they are about (an API's operations), when it has an action table. */
  private apiCatalog(): boolean {
    const table = this.index.data.actions;
    return table !== undefined && this.scopedCatalog(table);
  }

  /** The one-word rule's word: the request's word that shows the top tool met it in one word only (undefined: the rule does not fire). */
  private oneWord(query: string, hits: MatchedWord[]): string | undefined {
    if (hits.length > 1) return undefined;
    const foreign = this.words.foreignWord(query);
    if (foreign !== undefined) return foreign;
    const named = hits.some((m) => m.fields.includes("name") || m.fields.includes("aliases"));
    return named ? undefined : this.words.unmatchedWord(query, matchedWords(hits));
  }

  /** The everyday-words rule: the word the request names that the catalog lacks (undefined: the rule does not fire). */
  private everyday(q: JudgeInput, hits: MatchedWord[]): string | undefined {
    if (specificHit(hits)) return undefined;
    const object = this.words.unknownObject(q.query, matchedWords(hits));
    if (object === undefined) return undefined;
    return q
      .runnersUp()
      .slice(0, STAGE_LIMITS.everydayLook)
      .every((t) => !specificHit(q.matches(t)))
      ? object
      : undefined;
  }
}
