// The judge's contract: what it asks of the other stages about a request's top tool, and what it finds.
import type { CatalogTool } from "../../../../registry/contract/artifact.js";
import type { FieldName } from "../../../../registry/contract/search-options.js";
import type { MatchedWord } from "../../../contract/find.js";
import type { Analysis } from "../analyse.js";
import type { VerdictFeatures } from "../verdict.js";

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

/** What the hint rules found: the rule that fired, or the one-word rule held back by the request's input. */
export type HintFinding = { hint?: HintRule; input?: Judgement["input"] };
