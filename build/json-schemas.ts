// `registry:schema`: publish the registry format as JSON Schema, generated from the zod schemas (the single
// source), so editors validate YAML while it is typed (`# yaml-language-server: $schema=...`).
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { BriefFile } from "../registry/contract/brief.js";
import { FamiliesFile } from "../registry/contract/family.js";
import { PolicyFile } from "../registry/contract/policy.js";
import { SnapshotFile } from "../registry/contract/snapshot.js";
import { ToolFile } from "../registry/contract/tool.js";

const SCHEMAS = {
  "families.schema.json": { schema: FamiliesFile, title: "Toolbelt family list (registry/families.yaml)" },
  "tools.schema.json": { schema: ToolFile, title: "Toolbelt tool file (registry/families/<family>/*.yaml)" },
  "brief.schema.json": { schema: BriefFile, title: "Toolbelt brief (registry/briefs/*.yaml)" },
  "policy.schema.json": { schema: PolicyFile, title: "Toolbelt grants and principals policy" },
  "snapshot.schema.json": { schema: SnapshotFile, title: "Toolbelt MCP server snapshot (registry/snapshots/*.json)" },
} as const;

/** File name → JSON text, as committed under registry/schema/. */
export function renderJsonSchemas(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [file, { schema, title }] of Object.entries(SCHEMAS)) {
    // Input side: fields with defaults are optional to the author.
    const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" });
    out[file] = JSON.stringify({ ...json, title }, null, 2) + "\n";
  }
  return out;
}

export async function writeJsonSchemas(dir: string, opts: { check: boolean }): Promise<{ files: string[]; stale: string[] }> {
  const rendered = renderJsonSchemas();
  const stale: string[] = [];
  if (!opts.check) await mkdir(dir, { recursive: true });
  for (const [file, text] of Object.entries(rendered)) {
    const path = join(dir, file);
    if (opts.check) {
      const current = await readFile(path, "utf8").catch(() => undefined);
      if (current !== text) stale.push(path);
    } else await writeFile(path, text);
  }
  return { files: Object.keys(rendered).map((f) => join(dir, f)), stale };
}
