// The one surface policy (REST, MCP and unattended runs share it): what a session advertises.
// Narrowing is measured: only when the granted catalog crosses the tool-count or schema-byte bound.
import { deprecationOf } from "./deprecated.js";
import type { CatalogTool, FamilyInfo } from "../../registry/contract/artifact.js";
import { META_TOOLS } from "../../registry/contract/names.js";
import { manifestEntry, surfaceEntry } from "../../registry/contract/surface-entry.js";
import type { Artifact, Pin, SurfaceBounds } from "./ports.js";
import { globMatcher } from "../../registry/contract/globs.js";
import { isCallable } from "../../registry/contract/callable.js";
import { advertisedFindSchema, isMetaToolName, metaToolDefinition } from "../contract/meta-tools.js";
import type { BeltReason, Manifest, ManifestFamily, SizeFigure, Surface, SurfaceTool } from "../contract/sessions.js";

export type { BeltReason, Manifest, ManifestFamily, SizeFigure, Surface, SurfaceTool };

export type SurfaceInput = {
  artifact: Pick<Artifact, "tools" | "families" | "byName">;
  granted: (name: string) => boolean;
  isAlwaysLoaded: (name: string) => boolean;
  /** The brief's declaration: tool names or `*` globs (intersected with the grants here). */
  declared: readonly string[];
  pins: readonly Pin[];
  bounds: SurfaceBounds;
  /** A decider is configured: toolbelt.find advertises its decision-mode options (meta-tools.ts DECISION_OPTIONS). */
  decisionMode?: boolean;
};

type Entry = Omit<SurfaceTool, "on_belt">;

/** A tool's surface entry (the shape the build counts tokens in: registry/contract/surface-entry.ts). */
export const toolEntry = (t: Parameters<typeof surfaceEntry>[0]): Entry => surfaceEntry(t);

const encoder = new TextEncoder();
export const byteSize = (value: unknown): number => encoder.encode(JSON.stringify(value)).length;
/** What a tool costs on a surface: its serialized entry (name, description, schemas). Pins are budgeted with it. */
export const toolBytes = (t: Parameters<typeof toolEntry>[0]): number => byteSize(toolEntry(t));

/**
 * A size figure. `o200k_tokens` adds up parts, no tokenizer on the request path (gpt-tokenizer's ranks cost
 * 0.5-1 s of cold start and 2.4 MB of bundle; counting the served JSON, ~1 ms a request): the build's count of
 * each tool entry (without `on_belt`), of each family entry (with all the family's tools granted), and the
 * closing line at bytes / 3.5. The JSON around and between the parts and the `on_belt` fields are not counted
 * and have no fixed cost (BPE merges `"},{"` across parts): measured, the code-review session's answer is
 * 1,524 tokens for a figure of 1,447 (on_belt 74, the closing line 71 for 67, the JSON around -1).
 * `tokenCounts` is undefined where the artifact has no counts.
 */
function figure(tools: number, bytes: number, tokenCounts: readonly (number | undefined)[]): SizeFigure {
  const approx = Math.ceil(bytes / 4);
  if (tokenCounts.some((n) => n === undefined)) return { tools, bytes, approx_tokens: approx };
  const o200k = (tokenCounts as number[]).reduce((a, n) => a + n, 0);
  return { tools, bytes, approx_tokens: approx, o200k_tokens: o200k, approx_error_pct: Math.round(((approx - o200k) / o200k) * 1000) / 10 };
}

function capabilityManifest(families: readonly FamilyInfo[], grantedTools: readonly CatalogTool[]): ManifestFamily[] {
  const byFamily = new Map<string, string[]>();
  for (const t of grantedTools) {
    const list = byFamily.get(t.family);
    if (list) list.push(t.name);
    else byFamily.set(t.family, [t.name]);
  }
  return families.filter((f) => byFamily.has(f.name)).map((f) => manifestEntry(f, byFamily.get(f.name) ?? []));
}

/** What an entry costs: the build's o200k_base count, or bytes / 4 (which overstates, so a budget still holds). */
export const costOf = (tokens: number | undefined, value: unknown) => tokens ?? Math.ceil(byteSize(value) / 4);

/** The closing line: what was left out, the first of it by name, and that find reaches it all. */
function closing(total: number, omitted: readonly ManifestFamily[], named: number): Pick<Manifest, "omitted" | "note"> {
  const tools = omitted.reduce((n, f) => n + f.tool_count, 0);
  const names = omitted.slice(0, named).map((f) => `${f.name} (${f.tool_count})`);
  if (named > 0 && named < omitted.length) names.push(`${omitted.length - named} others`);
  const list = names.length > 1 ? `${names.slice(0, -1).join(", ")} and ${names.at(-1)}` : (names[0] ?? "");
  const n = omitted.length;
  const note =
    n === 0
      ? `Every family you may use is listed (${total}); toolbelt.find searches all their tools.`
      : `${n} more ${n === 1 ? "family" : "families"} (${tools} tools)${list ? `: ${list}` : ""}. toolbelt.find searches them all.`;
  return { omitted: { families: omitted.length, tools }, note };
}

/**
 * The closing line's cost: short, digit- and punctuation-heavy JSON, where bytes / 4 undercounts (measured:
 * 34-60 tokens for 130-190 bytes). The budget takes bytes / 3 (never under), the size figure bytes / 3.5 (nearest).
 */
const closingCost = (rest: Pick<Manifest, "omitted" | "note">, per = 3) => Math.ceil(byteSize(rest) / per);

/** What naming families adds to the closing line besides the names: ": ", " and ", "976 others". */
const NAMES_TAIL_TOKENS = 6;
/** Room kept for the tail and about three names when not every family is listed in full. */
const NAMES_RESERVE_TOKENS = NAMES_TAIL_TOKENS + 24;

/** A family named in the closing line: name, count and separators are short pieces, so bytes / 3 plus the punctuation. */
const nameCost = (f: ManifestFamily) => Math.ceil(f.name.length / 3) + 4;

/**
 * The capability manifest within `room` tokens: families most relevant first (the brief's declared
 * tools, then the session's pins, most recent first, then the principal's largest granted families,
 * then registry order), in full while they fit, then by name in the closing line while those fit; the
 * closing line counts what was left out. The order is the session's, so it is computed per surface (a
 * sort of the granted families, no tokenizer).
 */
function budgetedManifest(
  view: GrantedView,
  room: number,
  isDeclared: (name: string) => boolean,
  pins: readonly Pin[],
): { manifest: Manifest; tokens: number[] } {
  const declared = new Map<string, number>();
  for (const t of view.grantedTools) if (isDeclared(t.name)) declared.set(t.family, (declared.get(t.family) ?? 0) + 1);
  const pinned = new Map<string, number>();
  for (const p of pins) {
    const family = view.familyOf.get(p.name);
    if (family !== undefined) pinned.set(family, Math.max(pinned.get(family) ?? 0, p.last_used));
  }
  const all = view.manifest.families;
  const order = all.map((_, i) => i);
  order.sort((a, b) => {
    const fa = all[a]!.name;
    const fb = all[b]!.name;
    return (
      (declared.get(fb) ?? 0) - (declared.get(fa) ?? 0) || (pinned.get(fb) ?? 0) - (pinned.get(fa) ?? 0) || all[b]!.tool_count - all[a]!.tool_count || a - b
    );
  });
  // The budget counts conservatively (a separator per entry, names at bytes / 3); `tokens` are the best estimates the size figure adds up.
  const tokens: number[] = [];
  // The closing line is always there: its form without names is reserved first.
  const closingReserve = closingCost(closing(all.length, all, 0)) + 4;
  const fill = (limit: number) => {
    let used = closingReserve;
    let full = 0;
    for (; full < order.length; full++) {
      const i = order[full]!;
      const cost = costOf(view.manifestTokens[i], all[i]);
      if (used + cost + 1 > limit) break;
      used += cost + 1;
    }
    return { used, full };
  };
  // Families that do not all fit leave room to name a few more in the closing line (a name costs a fifth of an entry).
  let { used, full } = fill(room);
  if (full < order.length) ({ used, full } = fill(room - NAMES_RESERVE_TOKENS));
  for (let k = 0; k < full; k++) tokens.push(costOf(view.manifestTokens[order[k]!], all[order[k]!]));
  const omitted = order.slice(full).map((i) => all[i]!);
  // Naming families also adds the line's tail (": … and 976 others").
  let named = 0;
  while (named < omitted.length && used + NAMES_TAIL_TOKENS + nameCost(omitted[named]!) <= room) used += nameCost(omitted[named++]!);
  const families = order.slice(0, full).map((i) => all[i]!);
  const rest = closing(all.length, omitted, named);
  tokens.push(closingCost(rest, 3.5));
  return { manifest: { families, ...rest }, tokens };
}

/** The per-principal part of a surface: depends only on the artifact and the grants, so callers may cache it. */
export type GrantedView = {
  grantedTools: CatalogTool[];
  metaEntries: Entry[];
  grantedEntries: Entry[];
  grantedBytes: number;
  /** Every granted family's manifest entry, in registry order (the full catalog's manifest). */
  manifest: Manifest;
  familyOf: ReadonlyMap<string, string>;
  /** The build's token counts of the meta entries and of the manifest's families, in their order. */
  metaTokens: (number | undefined)[];
  manifestTokens: (number | undefined)[];
  catalog: SizeFigure;
};

/**
 * A meta-tool as surfaces advertise it (REST's entry, MCP's find_tool and call_tool): the catalog's entry
 * (the registry's toolbelt family), else the contract's; toolbelt.find without its tuning options, and
 * without its decision-mode options unless a decider is configured. `tokens`: the build's count of it, when the catalog has one.
 */
export function metaEntry(t: CatalogTool | undefined, name: string, decisionMode: boolean): { entry: Entry; tokens: number | undefined } {
  const def = isMetaToolName(name) ? metaToolDefinition(name) : { description: name, input_schema: { type: "object" } };
  // Without `examples`, as every surface entry: the contract's name the example registry's tools (time.now), which another registry may lack.
  const entry = toolEntry(t ?? { name, ...def });
  if (name !== "toolbelt.find") return { entry, tokens: t?.tokens };
  const lean = advertisedFindSchema(entry.input_schema, decisionMode);
  return { entry: { ...entry, input_schema: lean.schema }, tokens: t?.tokens === undefined ? undefined : t.tokens - lean.savedTokens };
}

export function grantedView(artifact: SurfaceInput["artifact"], granted: (name: string) => boolean, decisionMode = false): GrantedView {
  const meta = new Set(META_TOOLS);
  // Retired tools are on no surface: a call to one is refused (410) or only warned.
  const grantedTools = artifact.tools.filter((t) => granted(t.name) && !meta.has(t.name) && !deprecationOf(t));
  const metas = META_TOOLS.map((name) => metaEntry(artifact.byName.get(name), name, decisionMode));
  const metaEntries = metas.map((m) => m.entry);
  const metaTokens = metas.map((m) => m.tokens);
  const grantedEntries = grantedTools.map(toolEntry);
  const families = capabilityManifest(artifact.families, grantedTools);
  const manifest = { families, ...closing(families.length, [], 0) };
  const familyTokens = new Map(artifact.families.map((f) => [f.name, f.tokens]));
  const manifestTokens = manifest.families.map((f) => familyTokens.get(f.name));
  return {
    grantedTools,
    metaEntries,
    grantedEntries,
    grantedBytes: byteSize(grantedEntries),
    manifest,
    familyOf: new Map(grantedTools.map((t) => [t.name, t.family])),
    metaTokens,
    manifestTokens,
    catalog: figure(metaEntries.length + grantedEntries.length, byteSize({ tools: [...metaEntries, ...grantedEntries], manifest }), [
      ...metaTokens,
      ...grantedTools.map((t) => t.tokens),
      ...manifestTokens,
      closingCost(closing(families.length, [], 0), 3.5),
    ]),
  };
}

const declarationCache = new Map<string, (name: string) => boolean>();

/** A matcher for a brief's declaration, compiled once per distinct declaration (briefs are few). */
export function declarationMatcher(patterns: readonly string[]): (name: string) => boolean {
  const key = patterns.join("\n");
  let m = declarationCache.get(key);
  if (!m) {
    if (declarationCache.size >= 256) declarationCache.clear();
    declarationCache.set(key, (m = globMatcher(patterns)));
  }
  return m;
}

/**
 * Why a tool stands on every belt of a brief, pins and narrowing aside (the REST belt and MCP's fixed
 * tools/list): callable, and always-loaded or declared.
 */
export function standingReason(
  t: CatalogTool,
  isAlwaysLoaded: (name: string) => boolean,
  isDeclared: (name: string) => boolean,
): "always" | "declared" | undefined {
  if (!isCallable(t)) return undefined;
  if (isAlwaysLoaded(t.name)) return "always";
  return isDeclared(t.name) ? "declared" : undefined;
}

type BeltRules = {
  isDeclared: (name: string) => boolean;
  narrowed: boolean;
  overCount: boolean;
  overBytes: boolean;
  /** Why a granted, non-meta tool is on the belt, or undefined when it is not. */
  reasonOf: (tool: CatalogTool) => BeltReason | undefined;
};

/** The belt rules computeSurface and beltNames share: narrowing by the bounds, then always-loaded, declared, pinned. */
function beltRules(input: SurfaceInput, view: GrantedView): BeltRules {
  const { bounds, isAlwaysLoaded } = input;
  const overCount = view.grantedTools.length > bounds.maxTools;
  const overBytes = view.grantedBytes > bounds.maxSchemaBytes;
  const narrowed = overCount || overBytes;
  const isDeclared = declarationMatcher(input.declared);
  const pinned = new Set(input.pins.map((p) => p.name));
  // A tool the gateway cannot run (an imported catalog entry) is never on a belt, whatever lists it: its schema would cost
  // every surface for a call that can only answer 501, and MCP has no way to mark a listed tool as not callable.
  // find still shows it, flagged callable: false.
  const reasonOf = (t: CatalogTool): BeltReason | undefined => {
    if (!isCallable(t)) return undefined;
    return standingReason(t, isAlwaysLoaded, isDeclared) ?? (pinned.has(t.name) ? "pinned" : narrowed ? undefined : "granted");
  };
  return { isDeclared, narrowed, overCount, overBytes, reasonOf };
}

/** The names computeSurface would put on the belt, in the same order, without building entries or measuring bytes. */
export function beltNames(input: SurfaceInput & { view?: GrantedView }): string[] {
  const view = input.view ?? grantedView(input.artifact, input.granted, input.decisionMode);
  const { reasonOf } = beltRules(input, view);
  const names = view.metaEntries.map((e) => e.name);
  for (const t of view.grantedTools) if (reasonOf(t)) names.push(t.name);
  return names;
}

/**
 * The capability manifest within what `usedTokens` leave of the surface's budget, up to the manifest's own
 * cap: REST's surface passes its tools' cost, MCP its tools/list's and the instructions' own words.
 */
export function fitManifest(input: SurfaceInput & { view?: GrantedView }, usedTokens: number): { manifest: Manifest; tokens: number[] } {
  const view = input.view ?? grantedView(input.artifact, input.granted, input.decisionMode);
  const room = Math.min(input.bounds.manifestMaxTokens, input.bounds.maxTokens - usedTokens);
  return budgetedManifest(view, room, declarationMatcher(input.declared), input.pins);
}

export function computeSurface(input: SurfaceInput & { view?: GrantedView }): Surface {
  const { bounds, granted } = input;
  const view = input.view ?? grantedView(input.artifact, granted, input.decisionMode);
  const { grantedTools, grantedEntries, metaEntries, grantedBytes } = view;
  const { narrowed, overCount, overBytes, reasonOf } = beltRules(input, view);
  const reason = overCount
    ? `granted catalog has ${grantedTools.length} tools, over the bound of ${bounds.maxTools}`
    : overBytes
      ? `granted catalog schemas take ${grantedBytes} bytes, over the bound of ${bounds.maxSchemaBytes}`
      : `granted catalog (${grantedTools.length} tools, ${grantedBytes} bytes) is under both bounds: every tool it can run is advertised`;

  // The view's entries are reused as they are (grantedEntries[i] is grantedTools[i]'s entry); `entries` is the
  // surface without the on_belt field, as it is measured.
  const entries: Entry[] = [...metaEntries];
  const tokenCounts = [...view.metaTokens];
  const tools: SurfaceTool[] = metaEntries.map((e) => ({ ...e, on_belt: "meta" }));
  grantedTools.forEach((t, i) => {
    const why = reasonOf(t);
    if (!why) return;
    const e = grantedEntries[i] ?? toolEntry(t);
    entries.push(e);
    tokenCounts.push(t.tokens);
    tools.push({ ...e, on_belt: why });
  });
  const toolTokens = entries.reduce((n, e, i) => n + costOf(tokenCounts[i], e) + 1, 0);
  const { manifest, tokens: manifestTokens } = fitManifest({ ...input, view }, toolTokens);
  tokenCounts.push(...manifestTokens);

  const livePins = input.pins.filter((p) => granted(p.name) && input.artifact.byName.has(p.name) && !deprecationOf(input.artifact.byName.get(p.name)!));
  return {
    narrowed,
    reason,
    bounds: {
      max_tools: bounds.maxTools,
      max_schema_bytes: bounds.maxSchemaBytes,
      pin_budget_bytes: bounds.pinBudgetBytes,
      max_tokens: bounds.maxTokens,
      manifest_max_tokens: bounds.manifestMaxTokens,
    },
    tools,
    manifest,
    pins: { used_bytes: livePins.reduce((n, p) => n + p.bytes, 0), budget_bytes: bounds.pinBudgetBytes, tools: livePins },
    size: {
      surface: figure(tools.length, byteSize({ tools: entries, manifest }), tokenCounts),
      catalog: view.catalog,
    },
  };
}
