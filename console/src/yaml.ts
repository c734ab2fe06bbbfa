// The registry snippet an operator pastes into a tool's YAML to teach find or the call-name resolver a
// miss: `aliases` (names callers try) or `examples` (requests in the user's words). Values are written as
// JSON strings, which YAML reads as double-quoted scalars whatever characters they hold.

/** The registry's bounds on search hints (registry/contract/tool.ts SEARCH_HINT_LIMITS). */
export const HINT_LIMITS = { aliases: 40, examples: 120 } as const;

export type HintKind = keyof typeof HINT_LIMITS;

/** Where the snippet goes and what it says: the tool's family file, the tool's entry, the new hints. */
export function hintSnippet(tool: string, kind: HintKind, values: readonly string[]): { yaml: string; tooLong: string[] } {
  const dot = tool.indexOf(".");
  const family = dot > 0 ? tool.slice(0, dot) : tool;
  const local = dot > 0 ? tool.slice(dot + 1) : tool;
  const unique = [...new Set(values.map((v) => v.trim()).filter(Boolean))];
  const yaml = [
    `# registry/families/${family}/<file>.yaml, the entry of ${tool}: add to its ${kind}`,
    "tools:",
    `  - name: ${JSON.stringify(local)}`,
    `    ${kind}:`,
    ...unique.map((v) => `      - ${JSON.stringify(v)}`),
    "",
  ].join("\n");
  return { yaml, tooLong: unique.filter((v) => v.length > HINT_LIMITS[kind]) };
}
