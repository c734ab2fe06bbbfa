// A family source from a JSONL catalog:
// one tool per line with `name`, `description`, `input_schema`, optional `family` and `id`.
import type { CatalogTool, FamilyInfo } from "../../registry/contract/artifact.js";
import { UNAVAILABLE_HANDLER } from "../../registry/contract/callable.js";
import { fullName } from "../../registry/contract/names.js";
import { printable } from "../../registry/contract/printable.js";
import type { Finding } from "../validate/finding.js";

export type JsonlTool = {
  id?: string;
  name: string;
  description?: string | null;
  input_schema?: Record<string, unknown> | null;
  family?: string;
  server_description?: string;
  /** Search hints, as in tool files: requests in the user's words and other names for the capability. */
  examples?: string[];
  aliases?: string[];
};

const strings = (v: unknown): string[] | undefined =>
  Array.isArray(v) && v.length && v.every((x) => typeof x === "string") ? v.map((x: string) => x.trim()) : undefined;

const DEFAULT_TIMEOUT_MS = 60_000;

/** Lower-case family name with only the characters the name policy allows. */
export function familyNameOf(raw: string): string {
  const s = raw
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, "-")
    .replace(/^[^a-z]+|-+$/g, "");
  return s || "imported";
}

/** A verb with only MCP-compatible characters. */
export function verbOf(raw: string): string {
  return raw.replace(/[^A-Za-z0-9_.-]+/g, "_");
}

/** Catalog names the gateway serves under another name (`read file/now` → `read_file_now`): agents and people must be told. */
export function renamedTools(rows: readonly JsonlTool[]): { from: string; to: string; line: number }[] {
  return rows.flatMap((r, i) => (verbOf(r.name) !== r.name ? [{ from: printable(r.name), to: verbOf(r.name), line: i }] : []));
}

/** registry:check's warning for a renamed catalog tool (`at` is its row). */
export function renameFinding(raw: JsonlTool, at: Finding["at"]): Finding[] {
  const to = verbOf(raw.name);
  if (to === raw.name) return [];
  return [
    {
      code: "BAD_NAME",
      severity: "warning",
      at,
      message: `\`${printable(raw.name)}\` is served as \`${to}\` (only letters, digits, \`_\`, \`-\` and \`.\` reach MCP clients): rename it in the catalog to make this explicit`,
    },
  ];
}

export function parseJsonl(text: string): { tools: JsonlTool[]; errors: { line: number; message: string }[] } {
  const tools: JsonlTool[] = [];
  const errors: { line: number; message: string }[] = [];
  text.split("\n").forEach((line, i) => {
    if (!line.trim()) return;
    try {
      const v = JSON.parse(line) as JsonlTool;
      if (typeof v?.name !== "string" || !v.name) errors.push({ line: i + 1, message: "each line needs a string `name`" });
      else tools.push(v);
    } catch (e) {
      errors.push({ line: i + 1, message: `not JSON: ${(e as Error).message}` });
    }
  });
  return { tools, errors };
}

/**
 * Project JSONL tools into catalog tools. Imported tools have no backend of their own
 * (kind `builtin`, handler `unavailable`): they are searchable and governed, not callable.
 */
export function catalogFromJsonl(
  rows: JsonlTool[],
  opts: { family?: string; familyDescription?: string; source: string },
): { families: FamilyInfo[]; tools: CatalogTool[] } {
  const tools: CatalogTool[] = rows.map((r) => {
    const family = familyNameOf(opts.family ?? r.family ?? "imported");
    return {
      name: fullName(family, verbOf(r.name)),
      family,
      kind: "builtin",
      // Another party's catalog: its control and bidi characters reach agents escaped, never raw.
      description: printable((r.description ?? "").trim(), { multiline: true }),
      input_schema: r.input_schema ?? { type: "object", properties: {} },
      governance: {},
      timeout_ms: DEFAULT_TIMEOUT_MS,
      backend: { kind: "builtin", handler: UNAVAILABLE_HANDLER },
      source: opts.source,
      ...(r.id ? { id: r.id } : {}),
      ...(strings(r.examples) ? { examples: strings(r.examples)! } : {}),
      ...(strings(r.aliases) ? { aliases: strings(r.aliases)! } : {}),
    };
  });
  const byFamily = new Map<string, { tools: CatalogTool[]; description: string }>();
  rows.forEach((r, i) => {
    const t = tools[i]!;
    const f = byFamily.get(t.family) ?? { tools: [], description: printable(opts.familyDescription ?? r.server_description ?? "", { multiline: true }) };
    f.tools.push(t);
    byFamily.set(t.family, f);
  });
  const families: FamilyInfo[] = [...byFamily].map(([name, f]) => ({
    name,
    // As registry:import words it, never the file's path: a path's words (a home folder, "work", "shared") were
    // indexed with every tool and answered queries, so the same catalog searched differently from another folder.
    description: f.description || `Tools imported from the ${name} catalog.`,
    required: true,
    tool_count: f.tools.length,
    examples: f.tools.slice(0, 5).map((t) => t.name.slice(name.length + 1)),
  }));
  return { families, tools };
}
