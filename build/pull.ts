// `registry:pull`: snapshot a live MCP server's tools/list (Streamable HTTP) into the registry, so the
// build reads it offline and deterministically.
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { FamilyVariable } from "../registry/contract/family.js";
import { printable } from "../registry/contract/printable.js";
import { ENV_REF_RE, FORMAT_VERSION } from "../registry/contract/tool.js";
import { SnapshotFile } from "../registry/contract/snapshot.js";
import { driftOf, pinnedForm, upstreamDigest } from "../registry/contract/tool-digest.js";
import { readFamiliesFile } from "./load/families-file.js";
import { diskFs } from "./registry-fs.js";
import { assertFamilyName, upsertFamily, type FamilyEdit, type ScalarEdit } from "./families-edit.js";
import { networkCause } from "./net-error.js";
import { DEFAULT_SCHEMA_LIMITS, schemaLimitProblem, type SchemaLimits } from "./validate/schema-limits.js";

export type PullOptions = {
  /** Endpoint; `${ENV}` references are expanded for the request and kept verbatim in families.yaml. */
  url: string;
  family: string;
  registry: string;
  /** Snapshot path; default `<registry>/snapshots/<family>.json`. */
  out?: string;
  headers?: Record<string, string>;
  env?: NodeJS.ProcessEnv;
  /** Rewrite the family's entry when it exists with another source. */
  replace?: boolean;
  /** A tool schema over these refuses the pull (the check would refuse the snapshot). */
  schemaLimits?: SchemaLimits;
};

const MAX_PAGES = 1000;

export function expandEnv(text: string, env: NodeJS.ProcessEnv): string {
  return text.replace(ENV_REF_RE, (_, name: string) => {
    // Own string values only: process.env inherits `constructor`, which is not a set variable.
    const v = Object.hasOwn(env, name) ? env[name] : undefined;
    if (typeof v !== "string") throw new Error(`environment variable ${name} is not set`);
    return v;
  });
}

export async function fetchSnapshot(url: string, headers: Record<string, string> = {}): Promise<SnapshotFile> {
  const client = new Client({ name: "toolbelt-registry-pull", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  await client.connect(transport);
  try {
    const tools: SnapshotFile["tools"] = [];
    const cursors = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const res = await client.listTools(cursor ? { cursor } : {});
      for (const t of res.tools) {
        // Names stay as sent (the check refuses a bad one by the name policy); text meant for people is escaped.
        tools.push(pinnedForm(t as Parameters<typeof pinnedForm>[0]));
      }
      cursor = res.nextCursor;
      // A server that repeats a cursor would page forever.
      if (!cursor || cursors.has(cursor)) break;
      cursors.add(cursor);
    }
    tools.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const server = client.getServerVersion();
    return { version: FORMAT_VERSION, server: { name: printable(server?.name ?? "unknown"), version: printable(server?.version ?? "unknown") }, tools };
  } finally {
    await client.close();
  }
}

/** A snapshot the check would refuse for a schema over the limits is not written: the first such schema, by tool and field. */
function assertSchemaLimits(snapshot: SnapshotFile, limits: SchemaLimits): void {
  for (const t of snapshot.tools) {
    for (const field of ["inputSchema", "outputSchema"] as const) {
      const problem = t[field] === undefined ? undefined : schemaLimitProblem(t[field], limits);
      if (problem) throw new Error(`tool \`${printable(t.name)}\` ${field}: ${problem}; nothing written`);
    }
  }
}

/** The variables a pulled family reads: a header's are credentials (redacted from answers), the URL's are not. */
export function pulledVariables(url: string, headers: Record<string, string> = {}): Record<string, Partial<FamilyVariable>> {
  const out: Record<string, Partial<FamilyVariable>> = {};
  for (const m of url.matchAll(ENV_REF_RE)) out[m[1]!] = {};
  for (const v of Object.values(headers)) for (const m of v.matchAll(ENV_REF_RE)) out[m[1]!] = { secret: true };
  return out;
}

/** The URL as written and, when it reads variables, where they pointed (origin and path: no query, no credentials). */
function where(template: string, url: string): string {
  if (template === url) return template;
  let shown = "an invalid URL";
  try {
    const u = new URL(url);
    shown = `${u.origin}${u.pathname}`;
  } catch {}
  return `${template} (${shown})`;
}

/**
 * A re-pull of the same family and snapshot from another URL (a server on a new port) updates the
 * entry's `url` in place; other headers or new variables need `--replace`.
 */
function refreshEdits(existing: Record<string, unknown>, snapshot: string, o: PullOptions): ScalarEdit[] | undefined {
  const source = existing.source as { mcp?: { snapshot?: unknown; headers?: unknown } } | undefined;
  if (source?.mcp?.snapshot !== snapshot) return undefined;
  if (JSON.stringify(source.mcp.headers ?? {}) !== JSON.stringify(o.headers ?? {})) return undefined;
  const declared = Object.keys((existing.variables as Record<string, unknown> | undefined) ?? {});
  if (!Object.keys(pulledVariables(o.url, o.headers)).every((v) => declared.includes(v))) return undefined;
  return [{ path: ["source", "mcp", "url"], value: o.url }];
}

export async function pullSnapshot(o: PullOptions): Promise<{ file: string; tools: number; server: string; familyAdded: boolean; family?: FamilyEdit }> {
  assertFamilyName(o.family);
  const env = o.env ?? process.env;
  const headers = Object.fromEntries(Object.entries(o.headers ?? {}).map(([k, v]) => [k, expandEnv(v, env)]));
  const url = expandEnv(o.url, env);
  let snapshot: SnapshotFile;
  try {
    snapshot = await fetchSnapshot(url, headers);
  } catch (e) {
    throw new Error(`cannot pull tools/list from ${where(o.url, url)}: ${networkCause(e)}`, { cause: e });
  }
  // Before JSON.stringify below, which recurses: a 3,000-level schema would overflow the stack.
  assertSchemaLimits(snapshot, o.schemaLimits ?? DEFAULT_SCHEMA_LIMITS);
  const file = o.out ?? join(o.registry, "snapshots", `${o.family}.json`);
  await mkdir(dirname(file), { recursive: true });
  // JSON's own escapes for the characters left (names, schema text): the same data, nothing raw for a terminal or a diff.
  await writeFile(file, printable(JSON.stringify(snapshot, null, 2), { multiline: true }) + "\n");
  const rel = relative(o.registry, file).split(sep).join("/");
  let family: FamilyEdit | undefined;
  if (!rel.startsWith("..")) {
    family = await upsertFamily(
      o.registry,
      {
        name: o.family,
        description: `Tools of the MCP server ${snapshot.server.name}.`,
        source: { mcp: { snapshot: rel, url: o.url, ...(o.headers && Object.keys(o.headers).length ? { headers: o.headers } : {}) } },
        variables: pulledVariables(o.url, o.headers),
      },
      { replace: o.replace ?? false, refresh: (existing) => refreshEdits(existing, rel, o) },
    );
  }
  return {
    file,
    tools: snapshot.tools.length,
    server: `${snapshot.server.name} ${snapshot.server.version}`,
    familyAdded: family === "added",
    ...(family ? { family } : {}),
  };
}

/** One tool whose live definition is not the snapshot's: the parts that changed, or `added` / `removed` upstream. */
export type SnapshotDrift = { tool: string; changed: string[] };
export type FamilyCheck = { family: string; snapshot: string; drift: SnapshotDrift[] };

/**
 * `registry:pull --check`: each MCP family's live tools/list (or only `family`'s) against its snapshot,
 * by the digests the build pins; the endpoint and headers are the family's in families.yaml unless given.
 */
export async function checkSnapshots(o: {
  registry: string;
  family?: string;
  url?: string;
  headers?: Record<string, string>;
  env?: NodeJS.ProcessEnv;
}): Promise<FamilyCheck[]> {
  const env = o.env ?? process.env;
  const read = await readFamiliesFile(diskFs(o.registry), []);
  if (!read) throw new Error(`cannot read ${join(o.registry, "families.yaml")}: run \`registry:check\` for the problems`);
  const families = read.defs.map((d) => d.def).filter((d) => "mcp" in d.source && (o.family === undefined || d.name === o.family));
  if (o.family !== undefined && families.length === 0) throw new Error(`no MCP family \`${printable(o.family)}\` in ${join(o.registry, "families.yaml")}`);
  const out: FamilyCheck[] = [];
  for (const def of families) {
    const src = (def.source as { mcp: { snapshot: string; url: string; headers?: Record<string, string> } }).mcp;
    const pinned = SnapshotFile.parse(JSON.parse(await readFile(join(o.registry, src.snapshot), "utf8")));
    const template = o.url ?? src.url;
    const url = expandEnv(template, env);
    const headers = Object.fromEntries(Object.entries(o.headers ?? src.headers ?? {}).map(([k, v]) => [k, expandEnv(v, env)]));
    let live: SnapshotFile;
    try {
      live = await fetchSnapshot(url, headers);
    } catch (e) {
      throw new Error(`cannot list the tools of \`${def.name}\` at ${where(template, url)}: ${networkCause(e)}`, { cause: e });
    }
    const now = new Map(live.tools.map((t) => [t.name, t]));
    const drift: SnapshotDrift[] = [];
    for (const t of pinned.tools) {
      const changed = driftOf(upstreamDigest(t), now.get(t.name));
      if (changed.length) drift.push({ tool: t.name, changed });
    }
    const known = new Set(pinned.tools.map((t) => t.name));
    for (const t of live.tools) if (!known.has(t.name)) drift.push({ tool: t.name, changed: ["added"] });
    out.push({ family: def.name, snapshot: src.snapshot, drift });
  }
  return out;
}
