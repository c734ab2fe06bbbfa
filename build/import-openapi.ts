// `registry:import-openapi`: operations of an OpenAPI 3.0/3.1 document become http tools of one family,
// written as an ordinary tool folder (`families/<family>/<family>.yaml`) that people may read and edit.
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import SwaggerParser from "@apidevtools/swagger-parser";
import { parse, stringify } from "yaml";
import { FORMAT_VERSION } from "../registry/contract/tool.js";
import { assertFamilyName, upsertFamily, type FamilyEdit } from "./families-edit.js";
import { familyFromOpenApi, operationsOf, selectOperations, type Skipped } from "./openapi/operations.js";
import { networkCause } from "./net-error.js";
import { firstSentence } from "./validate/description.js";
import { isRecord } from "./validate/finding.js";

export type OpenApiImportOptions = {
  /** A file path or an http(s) URL of a JSON or YAML document. */
  spec: string;
  family: string;
  registry: string;
  /** Globs over operationIds (or the tool verbs made from them); all operations when empty. */
  operations?: string[];
  description?: string;
  required?: boolean;
  /** Rewrite the family's tool file and entry when it exists. */
  replace?: boolean;
};

export type OpenApiImport = { file: string; tools: number; selected: number; skipped: Skipped[]; family: FamilyEdit; variables: string[] };

const HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];
/** Top-level fields of a reduced document. */
const KEPT = ["openapi", "info", "jsonSchemaDialect", "servers", "security", "tags", "externalDocs"];
const isUrl = (s: string) => /^https?:\/\//i.test(s);

/** Only what the selected operations reach: paths cut to them, components to the `$ref`s they follow. */
function reduce(doc: Record<string, unknown>, keep: Set<string>): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const [path, item] of Object.entries(isRecord(doc.paths) ? doc.paths : {})) {
    if (!isRecord(item)) continue;
    if (!Object.keys(item).some((k) => keep.has(`${k} ${path}`))) continue;
    paths[path] = Object.fromEntries(Object.entries(item).filter(([k]) => !HTTP_METHODS.includes(k) || keep.has(`${k} ${path}`)));
  }
  const refs = new Set<string>();
  const external = { found: false };
  const follow = (v: unknown): void => {
    if (Array.isArray(v)) {
      for (const x of v) follow(x);
      return;
    }
    if (!isRecord(v)) return;
    for (const [k, x] of Object.entries(v)) {
      if (k === "$ref" && typeof x === "string") {
        if (!x.startsWith("#/")) external.found = true;
        else if (!refs.has(x)) {
          refs.add(x);
          follow(pointer(doc, x));
        }
      } else follow(x);
    }
  };
  follow(paths);
  // Webhooks (and `x-webhooks`) are not operations a gateway calls; security schemes are read by name, not by `$ref`.
  const out: Record<string, unknown> = { ...Object.fromEntries(Object.entries(doc).filter(([k]) => KEPT.includes(k))), paths };
  if (external.found || !isRecord(doc.components)) return out;
  const components: Record<string, Record<string, unknown>> = {};
  for (const ref of refs) {
    const [, , kind, name] = ref.split("/");
    const section = kind !== undefined && isRecord(doc.components) ? doc.components[kind] : undefined;
    const key = name?.replace(/~1/g, "/").replace(/~0/g, "~");
    if (kind === undefined || key === undefined || !isRecord(section) || !Object.hasOwn(section, key)) continue;
    (components[kind] ??= {})[key] = section[key];
  }
  if (isRecord(doc.components.securitySchemes)) components.securitySchemes = doc.components.securitySchemes;
  return { ...out, components };
}

function pointer(doc: unknown, ref: string): unknown {
  let v = doc;
  for (const seg of ref.slice(2).split("/")) {
    const key = seg.replace(/~1/g, "/").replace(/~0/g, "~");
    v = isRecord(v) && Object.hasOwn(v, key) ? v[key] : undefined;
  }
  return v;
}

const FETCH_TIMEOUT_MS = 30_000;
const reason = (e: unknown) => (e instanceof Error ? e.message : String(e)).split("\n")[0];

/** The document as data: fetched or read here so a failure names the URL or file and its cause. */
async function readDocument(spec: string, base: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    if (isUrl(spec)) {
      const res = await fetch(spec, {
        headers: { accept: "application/json, application/yaml;q=0.9, */*;q=0.1" },
        signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
      });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      text = await res.text();
    } else text = await readFile(base, "utf8");
  } catch (e) {
    throw new Error(`cannot read the OpenAPI document ${spec}: ${networkCause(e)}`, { cause: e });
  }
  let value: unknown;
  try {
    // JSON.parse is many times faster than a YAML parser on a 13 MB JSON document.
    value = text.trimStart().startsWith("{") ? JSON.parse(text) : parse(text);
  } catch (e) {
    throw new Error(`${spec} is neither JSON nor YAML: ${reason(e)}`, { cause: e });
  }
  if (!isRecord(value)) throw new Error(`${spec} is not an OpenAPI document (not an object)`);
  return value;
}

export async function importOpenApi(o: OpenApiImportOptions): Promise<OpenApiImport> {
  assertFamilyName(o.family);
  const base = isUrl(o.spec) ? o.spec : resolve(o.spec);
  const parsed = await readDocument(o.spec, base);
  if (typeof parsed.openapi !== "string" || !/^3\.[01]\./.test(parsed.openapi)) {
    const found = typeof parsed.swagger === "string" ? `Swagger ${parsed.swagger}` : `version ${JSON.stringify(parsed.openapi ?? null)}`;
    throw new Error(`${o.spec} is ${found}: OpenAPI 3.0 or 3.1 documents only (convert a Swagger 2.0 document first)`);
  }
  const all = operationsOf(parsed);
  const chosen = selectOperations(all.operations, o.operations ?? []);
  if (chosen.length === 0) {
    throw new Error(
      `${o.spec} has no operation${o.operations?.length ? ` matching ${o.operations.join(", ")}` : ""} to import (${all.operations.length} in all)`,
    );
  }
  // Reading only what the chosen operations use keeps a subset of a large document fast (GitHub's is 13 MB).
  let doc: Record<string, unknown>;
  try {
    const reduced = reduce(parsed, new Set(chosen.map((op) => `${op.method} ${op.path}`)));
    doc = (await SwaggerParser.validate(base, reduced as never, { dereference: { circular: true } })) as unknown as Record<string, unknown>;
  } catch (e) {
    throw new Error(`${o.spec} is not a valid OpenAPI document: ${reason(e)}`, { cause: e });
  }
  const ops = selectOperations(operationsOf(doc).operations, o.operations ?? []);
  const family = familyFromOpenApi(doc, o.family, ops);
  const skipped = [...(o.operations?.length ? [] : all.skipped), ...family.skipped];
  if (family.tools.length === 0)
    throw new Error(`no operation of ${o.spec} could become a tool: ${skipped.map((s) => `${s.operation} (${s.reason})`).join("; ")}`);

  const folder = `families/${o.family}`;
  const dir = join(o.registry, folder);
  const existing = await readdir(dir).catch(() => []);
  if (existing.length > 0 && !o.replace) throw new Error(`${dir} already exists: pass --replace to re-import the family`);
  const info = isRecord(parsed.info) ? parsed.info : {};
  const title = typeof info.title === "string" ? info.title.trim() : o.family;
  const fromInfo = typeof info.description === "string" ? firstSentence(info.description.replace(/\s+/g, " ")) : "";
  const edit = await upsertFamily(
    o.registry,
    {
      name: o.family,
      description: o.description ?? (fromInfo && fromInfo.length <= 200 ? fromInfo : `Operations of the ${title} HTTP API.`),
      ...(o.required === false ? { required: false } : {}),
      source: { tools: folder },
      egress: family.egress,
      variables: family.variables,
    },
    { replace: o.replace ?? false },
  );
  const file = join(dir, `${o.family}.yaml`);
  const header = [
    "# yaml-language-server: $schema=../../schema/tools.schema.json",
    `# Generated by \`npm run registry:import-openapi\` from ${title}${typeof info.version === "string" ? ` ${info.version}` : ""} (OpenAPI ${parsed.openapi}): ${family.tools.length} of ${all.operations.length} operations.`,
    "# Re-importing with --replace rewrites this file.",
  ].join("\n");
  await mkdir(dir, { recursive: true });
  await writeFile(file, `${header}\n${stringify({ version: FORMAT_VERSION, tools: family.tools }, { lineWidth: 0, aliasDuplicateObjects: false })}`);
  return { file, tools: family.tools.length, selected: chosen.length, skipped, family: edit, variables: Object.keys(family.variables) };
}
