// Strict YAML reading: duplicate keys, multiple documents and alias bombs are errors with a line number.
import { LineCounter, parseDocument, isNode, type Document } from "yaml";
import type { Diagnostic } from "../registry/contract/diagnostics.js";
import type { Segment } from "./validate/finding.js";

export type ParsedFile = {
  /** The plain value; undefined when the file had syntax errors. */
  value: unknown;
  diagnostics: Diagnostic[];
  /** 1-based line of the node at a path (or of its nearest existing ancestor). */
  lineOf(path: readonly Segment[]): number | undefined;
};

const noLines = () => undefined;
export const YAML_OPTIONS = { uniqueKeys: true, prettyErrors: false, strict: true } as const;
/** Registry files have no reason to expand anchors into huge trees. */
export const MAX_ALIAS_COUNT = 100;

export function parseYaml(text: string, file: string): ParsedFile {
  const lineCounter = new LineCounter();
  let doc: Document.Parsed;
  try {
    doc = parseDocument(text, { ...YAML_OPTIONS, lineCounter });
  } catch (e) {
    return { value: undefined, diagnostics: [syntaxDiagnostic(file, (e as Error).message, 1)], lineOf: noLines };
  }
  const lineAt = (offset: number) => lineCounter.linePos(offset).line;
  if (doc.errors.length > 0) {
    const diagnostics = doc.errors.map((e) => {
      const line = e.linePos?.[0]?.line ?? lineAt(e.pos[0]);
      return syntaxDiagnostic(file, `${e.message.split("\n")[0]} (line ${line})`, line, e.code);
    });
    return { value: undefined, diagnostics, lineOf: noLines };
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (e) {
    return { value: undefined, diagnostics: [syntaxDiagnostic(file, (e as Error).message, 1)], lineOf: noLines };
  }
  const shape = treeProblem(value);
  if (shape) return { value: undefined, diagnostics: [syntaxDiagnostic(file, shape, 1)], lineOf: noLines };
  const lineOf = (path: readonly Segment[]) => {
    for (let n = path.length; n >= 0; n--) {
      let node: unknown;
      try {
        node = n === 0 ? doc.contents : doc.getIn(path.slice(0, n), true);
      } catch {
        node = undefined;
      }
      if (isNode(node) && node.range) return lineAt(node.range[0]);
    }
    return undefined;
  };
  return { value, diagnostics: [], lineOf };
}

/** JSON files (snapshots) get the same treatment: lines of diagnostics, and of a syntax error when Node reports a position. */
export function parseJson(text: string, file: string): ParsedFile {
  try {
    const value = JSON.parse(text) as unknown;
    // JSON is YAML: its lines come from a YAML parse, made only when a diagnostic asks for one.
    let lines: ParsedFile["lineOf"] | undefined;
    return { value, diagnostics: [], lineOf: (path) => (lines ??= parseYaml(text, file).lineOf)(path) };
  } catch (e) {
    const message = (e as Error).message;
    const pos = /position (\d+)/.exec(message);
    const line = pos ? text.slice(0, Number(pos[1])).split("\n").length : undefined;
    return {
      value: undefined,
      diagnostics: [{ severity: "error", code: "JSON_SYNTAX", file, path: "$", message: `not valid JSON: ${message}`, ...(line ? { line } : {}) }],
      lineOf: noLines,
    };
  }
}

/** Registry data must be a finite tree: no alias inside its own anchor, no absurd nesting. */
export const MAX_DEPTH = 100;
export function treeProblem(value: unknown): string | undefined {
  const ancestors = new Set<object>();
  const walk = (v: unknown, depth: number): string | undefined => {
    if (typeof v !== "object" || v === null) return undefined;
    if (ancestors.has(v)) return "an alias refers to its own anchor (recursive data): registry files must be trees";
    if (depth > MAX_DEPTH) return `nested deeper than ${MAX_DEPTH} levels`;
    ancestors.add(v);
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      const problem = walk(child, depth + 1);
      if (problem) return problem;
    }
    ancestors.delete(v);
    return undefined;
  };
  return walk(value, 0);
}

/** Line lookups for a file parsed elsewhere: parse it here on first use only. */
export function lazyLines(text: string): ParsedFile["lineOf"] {
  let lineOf: ParsedFile["lineOf"] | undefined;
  return (path) => (lineOf ??= parseYaml(text, "").lineOf)(path);
}

/**
 * What to do about the YAML library's errors that registry authors meet most: its own words describe the
 * grammar, not the fix (an unquoted `: ` in a description is the usual cause).
 */
const SYNTAX_HINTS: Record<string, string> = {
  BLOCK_AS_IMPLICIT_KEY:
    'a plain value containing ": " (colon and space) reads as a nested key: quote the value (`description: "Returns: the list"`), or check the indentation of the line below',
  BLOCK_IN_FLOW: 'inside `{…}` or `[…]` a ": " or a "- " starts a new entry: quote the value (`{description: "City: Paris"}`)',
  BAD_SCALAR_START: "a value starting with @, ` or another reserved character must be quoted",
  MULTILINE_IMPLICIT_KEY: "a line is indented as if it continued the key above: align it with its siblings or quote the value",
};

export function syntaxDiagnostic(file: string, message: string, line: number, yamlCode?: string): Diagnostic {
  const hint = yamlCode ? SYNTAX_HINTS[yamlCode] : undefined;
  return { severity: "error", code: "YAML_SYNTAX", file, path: "$", message: `YAML syntax: ${message}${hint ? `; ${hint}` : ""}`, line };
}
