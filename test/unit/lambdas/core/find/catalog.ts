// A small catalog for the find tests, built through the real emitArtifact.
import { expect } from "vitest";
import { emitArtifact } from "../../../../../build/artifact.js";
import { catalogFromJsonl } from "../../../../../build/sources/jsonl.js";
import type { CatalogTool, FamilyInfo } from "../../../../../registry/contract/artifact.js";
import { artifactFromFiles } from "../../../../../lambdas/artifact.js";
import { createFinder } from "../../../../../lambdas/core/find/index.js";
import type { QueryParams } from "../../../../../registry/contract/find-tuning.js";
import type { Finder } from "../../../../../lambdas/core/find/types.js";

type Hints = Pick<CatalogTool, "aliases" | "examples">;

type Spec = { desc: string; params?: Record<string, string>; tags?: string[]; aliases?: string[]; examples?: string[] };

const FAMILIES: Record<string, [string, Record<string, Spec>]> = {
  weather: [
    "Weather forecasts and current conditions.",
    {
      get_forecast: { desc: "Get the weather forecast for a city for the next days.", params: { city: "City name", days: "Number of days" } },
      current_conditions: { desc: "Current temperature, wind and humidity at a location.", params: { location: "Place or coordinates" } },
    },
  ],
  files: [
    "Local file system access.",
    {
      read_file: { desc: "Read the contents of a file from disk.", params: { path: "Path of the file" } },
      write_file: { desc: "Write text to a file, creating it if needed.", params: { path: "Path of the file", content: "Text to write" } },
      list_directory: { desc: "List the entries of a directory.", params: { path: "Directory path" } },
    },
  ],
  mail: [
    "Email: send and search messages.",
    {
      send_email: {
        desc: "Send an email message to one or more recipients.",
        params: { to: "Recipient addresses", subject: "Subject line", body: "Message body" },
      },
      searchInbox: { desc: "Look through the mailbox for messages matching a query.", params: { query: "Words to look for" } },
    },
  ],
  docs: [
    "Office documents.",
    {
      convertToPdf: { desc: "Convert a Word document into a portable file.", params: { filename: "Document to convert" } },
    },
  ],
  bing: [
    "必应中文搜索",
    {
      bing_search: { desc: "使用必应搜索指定的关键词，并返回搜索结果列表", params: { query: "搜索关键词" } },
    },
  ],
  calendar: [
    "Calendars.",
    {
      createEvent: { desc: "Create a calendar event with a title, start and end time.", params: { title: "Event title", start: "Start time" } },
    },
  ],
  stocks: [
    "Market data.",
    {
      get_share_price: { desc: "Get the latest share price for a ticker symbol.", params: { symbol: "Ticker" }, tags: ["quote", "stock"] },
    },
  ],
  system: [
    "Facts about the machine.",
    {
      memory: { desc: "Show the total and free memory of the machine.", aliases: ["RAM"] },
      quantity: { desc: "Convert a quantity between units.", params: { value: "Amount" }, examples: ["how many feet is three meters"] },
    },
  ],
  builtin: [
    "Tools implemented in the gateway.",
    {
      infer: { desc: "Ask a model to summarize or transform text." },
      reshape: { desc: "Reshape JSON data with a mapping." },
    },
  ],
};

export function catalog(): { families: FamilyInfo[]; tools: CatalogTool[] } {
  const families: FamilyInfo[] = [];
  const tools: CatalogTool[] = [];
  for (const [family, [description, verbs]] of Object.entries(FAMILIES)) {
    families.push({ name: family, description, required: true, tool_count: Object.keys(verbs).length, examples: Object.keys(verbs) });
    for (const [verb, spec] of Object.entries(verbs)) {
      const properties = Object.fromEntries(Object.entries(spec.params ?? {}).map(([k, d]) => [k, { type: "string", description: d }]));
      tools.push({
        name: `${family}.${verb}`,
        family,
        kind: "builtin",
        description: spec.desc,
        input_schema: { type: "object", properties },
        ...(verb === "get_share_price" ? { output_schema: { type: "object", properties: { price: { type: "number" } } } } : {}),
        governance: {},
        timeout_ms: 60_000,
        ...(spec.tags ? { tags: spec.tags } : {}),
        ...(spec.aliases ? { aliases: spec.aliases } : {}),
        ...(spec.examples ? { examples: spec.examples } : {}),
        backend: { kind: "builtin", handler: verb },
        source: `test/${family}`,
      });
    }
  }
  return { families, tools };
}

export const emitTestArtifact = () => emitArtifact({ ...catalog(), always_loaded: ["builtin.infer", "builtin.reshape"] });

/** A finder over a few builtin tools (family.verb → description, or with search hints), built through the real emitArtifact. */
export async function smallFinder(
  specs: Record<string, string | ({ description: string } & Hints & Partial<Pick<CatalogTool, "input_schema">>)>,
  query: Partial<QueryParams> = {},
): Promise<Finder> {
  const tools = Object.entries(specs).map(
    ([name, spec]): CatalogTool => ({
      name,
      family: name.split(".")[0]!,
      kind: "builtin",
      input_schema: { type: "object" },
      ...(typeof spec === "string" ? { description: spec } : spec),
      governance: {},
      timeout_ms: 60_000,
      backend: { kind: "builtin", handler: name.split(".")[1]! },
      source: `test/${name}`,
    }),
  );
  const families = tools.map((t) => ({ name: t.family, description: `${t.family} tools`, required: true, tool_count: 1, examples: [] }));
  return createFinder(artifactFromFiles(await emitArtifact({ families, tools, always_loaded: [] })), { query });
}

/** A finder over an imported API's operations (name → description rows), read as a JSONL catalog is, through the real emitArtifact. */
export async function apiFinder(rows: readonly (readonly string[])[], query?: Partial<QueryParams>): Promise<Finder> {
  const tools = rows.map(([name, description]) => ({ name: name!, description: description!, input_schema: { type: "object", properties: {} } }));
  const catalog = catalogFromJsonl(tools, { source: "api.jsonl" });
  const artifact = artifactFromFiles(await emitArtifact({ families: catalog.families, tools: catalog.tools, always_loaded: [] }));
  return createFinder(artifact, { alwaysLoaded: [], ...(query ? { query } : {}) });
}

/**
 * Asserts that a judge rule turns a request's match into none on an API's operations: with the rule's
 * knob `off` the request matched `before` first; with it, the answer is none and the verdict's reasons
 * hold `reason` (stage judge).
 */
export async function expectRuleTurnsNone(
  rows: readonly (readonly string[])[],
  query: string,
  off: Partial<QueryParams>,
  before: string,
  reason: { rule: string; effect: string; detail: unknown },
): Promise<void> {
  // Prepare
  const [judged, without] = [await apiFinder(rows), await apiFinder(rows, off)];
  // Act
  const [r, old] = [await judged.find({ query, schemas: false, explain: true }), await without.find({ query, schemas: false })];
  // Assess
  expect({ verdict: old.verdict, top: old.tools[0]?.name }).toEqual({ verdict: "match", top: before });
  expect(r.verdict).toBe("none");
  expect(r.verdict_reasons).toContainEqual({ stage: "judge", ...reason });
}
