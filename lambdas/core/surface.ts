// The one surface policy (REST, MCP and unattended runs share it): what a session advertises.
// Narrowing is measured: only when the granted catalog crosses the tool-count or schema-byte bound.
import type { CatalogTool, FamilyInfo } from "../../registry/contract/artifact.js";
import { META_TOOLS, modelName, modelNameOf, verbOf } from "../../registry/contract/names.js";
import type { Artifact, Pin, SurfaceBounds } from "./ports.js";
import { globMatcher } from "../../registry/contract/globs.js";
import { isMetaToolName, metaToolDefinition } from "../contract/meta-tools.js";
import type { BeltReason, ManifestFamily, SizeFigure, Surface, SurfaceTool } from "../contract/sessions.js";

export type { BeltReason, ManifestFamily, SizeFigure, Surface, SurfaceTool };

export type SurfaceInput = {
  artifact: Pick<Artifact, "tools" | "families" | "byName">;
  granted: (name: string) => boolean;
  isAlwaysLoaded: (name: string) => boolean;
  /** The brief's declaration: tool names or `*` globs (intersected with the grants here). */
  declared: readonly string[];
  pins: readonly Pin[];
  bounds: SurfaceBounds;
};

type Entry = Omit<SurfaceTool, "on_belt">;

export function toolEntry(t: Pick<CatalogTool, "name" | "model_name" | "description" | "input_schema" | "output_schema">): Entry {
  return {
    name: t.name,
    model_name: modelNameOf(t),
    description: t.description,
    input_schema: t.input_schema,
    ...(t.output_schema ? { output_schema: t.output_schema } : {}),
  };
}

const encoder = new TextEncoder();
export const byteSize = (value: unknown): number => encoder.encode(JSON.stringify(value)).length;
/** What a tool costs on a surface: its serialized entry (name, description, schemas). Pins are budgeted with it. */
export const toolBytes = (t: Parameters<typeof toolEntry>[0]): number => byteSize(toolEntry(t));
const figure = (tools: number, bytes: number): SizeFigure => ({ tools, bytes, approx_tokens: Math.ceil(bytes / 4) });

const EXAMPLES_PER_FAMILY = 4;

function capabilityManifest(families: readonly FamilyInfo[], grantedTools: readonly CatalogTool[]): ManifestFamily[] {
  const byFamily = new Map<string, CatalogTool[]>();
  for (const t of grantedTools) {
    const list = byFamily.get(t.family);
    if (list) list.push(t);
    else byFamily.set(t.family, [t]);
  }
  return families
    .filter((f) => byFamily.has(f.name))
    .map((f) => {
      const tools = byFamily.get(f.name) ?? [];
      const grantedVerbs = new Set(tools.map((t) => verbOf(t.name)));
      // The registry's chosen examples first (only granted ones), then the rest in name order.
      const examples = [...f.examples.filter((v) => grantedVerbs.has(v)), ...[...grantedVerbs].sort()];
      return {
        name: f.name,
        description: f.description,
        tool_count: tools.length,
        examples: [...new Set(examples)].slice(0, EXAMPLES_PER_FAMILY),
      };
    });
}

/** The per-principal part of a surface: depends only on the artifact and the grants, so callers may cache it. */
export type GrantedView = {
  grantedTools: CatalogTool[];
  metaEntries: Entry[];
  grantedEntries: Entry[];
  grantedBytes: number;
  manifest: { families: ManifestFamily[] };
  catalog: SizeFigure;
};

export function grantedView(artifact: SurfaceInput["artifact"], granted: (name: string) => boolean): GrantedView {
  const meta = new Set(META_TOOLS);
  const grantedTools = artifact.tools.filter((t) => granted(t.name) && !meta.has(t.name));
  const metaEntries: Entry[] = META_TOOLS.map((name) => {
    const t = artifact.byName.get(name);
    if (t) return toolEntry(t);
    // The contract's definition when the catalog does not carry the meta-tool.
    const def = isMetaToolName(name) ? metaToolDefinition(name) : { description: name, input_schema: { type: "object" } };
    return { name, model_name: modelName(name), ...def };
  });
  const grantedEntries = grantedTools.map(toolEntry);
  const manifest = { families: capabilityManifest(artifact.families, grantedTools) };
  return {
    grantedTools,
    metaEntries,
    grantedEntries,
    grantedBytes: byteSize(grantedEntries),
    manifest,
    catalog: figure(metaEntries.length + grantedEntries.length, byteSize({ tools: [...metaEntries, ...grantedEntries], manifest })),
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

type BeltRules = {
  narrowed: boolean;
  overCount: boolean;
  overBytes: boolean;
  /** Why a granted, non-meta tool is on the belt, or undefined when it is not. */
  reasonOf: (name: string) => BeltReason | undefined;
};

/** The belt rules computeSurface and beltNames share: narrowing by the bounds, then always-loaded, declared, pinned. */
function beltRules(input: SurfaceInput, view: GrantedView): BeltRules {
  const { bounds, isAlwaysLoaded } = input;
  const overCount = view.grantedTools.length > bounds.maxTools;
  const overBytes = view.grantedBytes > bounds.maxSchemaBytes;
  const narrowed = overCount || overBytes;
  const isDeclared = declarationMatcher(input.declared);
  const pinned = new Set(input.pins.map((p) => p.name));
  const reasonOf = (name: string): BeltReason | undefined =>
    isAlwaysLoaded(name) ? "always" : isDeclared(name) ? "declared" : pinned.has(name) ? "pinned" : narrowed ? undefined : "granted";
  return { narrowed, overCount, overBytes, reasonOf };
}

/** The names computeSurface would put on the belt, in the same order, without building entries or measuring bytes. */
export function beltNames(input: SurfaceInput & { view?: GrantedView }): string[] {
  const view = input.view ?? grantedView(input.artifact, input.granted);
  const { reasonOf } = beltRules(input, view);
  const names = view.metaEntries.map((e) => e.name);
  for (const t of view.grantedTools) if (reasonOf(t.name)) names.push(t.name);
  return names;
}

export function computeSurface(input: SurfaceInput & { view?: GrantedView }): Surface {
  const { bounds, granted } = input;
  const view = input.view ?? grantedView(input.artifact, granted);
  const { grantedTools, grantedEntries, metaEntries, grantedBytes, manifest } = view;
  const { narrowed, overCount, overBytes, reasonOf } = beltRules(input, view);
  const reason = overCount
    ? `granted catalog has ${grantedTools.length} tools, over the bound of ${bounds.maxTools}`
    : overBytes
      ? `granted catalog schemas take ${grantedBytes} bytes, over the bound of ${bounds.maxSchemaBytes}`
      : `granted catalog (${grantedTools.length} tools, ${grantedBytes} bytes) is under both bounds: everything is advertised`;

  // The view's entries are reused as they are (grantedEntries[i] is grantedTools[i]'s entry); `entries` is the
  // surface without the on_belt field, as it is measured.
  const entries: Entry[] = [...metaEntries];
  const tools: SurfaceTool[] = metaEntries.map((e) => ({ ...e, on_belt: "meta" }));
  grantedTools.forEach((t, i) => {
    const why = reasonOf(t.name);
    if (!why) return;
    const e = grantedEntries[i] ?? toolEntry(t);
    entries.push(e);
    tools.push({ ...e, on_belt: why });
  });

  const livePins = input.pins.filter((p) => granted(p.name) && input.artifact.byName.has(p.name));
  return {
    narrowed,
    reason,
    bounds: { max_tools: bounds.maxTools, max_schema_bytes: bounds.maxSchemaBytes, pin_budget_bytes: bounds.pinBudgetBytes },
    tools,
    manifest,
    pins: { used_bytes: livePins.reduce((n, p) => n + p.bytes, 0), budget_bytes: bounds.pinBudgetBytes, tools: livePins },
    size: {
      surface: figure(tools.length, byteSize({ tools: entries, manifest })),
      catalog: view.catalog,
    },
  };
}
