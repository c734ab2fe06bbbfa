// `registry:import-openapi`: operations of an OpenAPI 3.0/3.1 document become http tools of one family,
// written as an ordinary tool folder (`families/<family>/<family>.yaml`) that people may read and edit.
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import SwaggerParser from "@apidevtools/swagger-parser";
import { parse, stringify } from "yaml";
import { printable } from "../registry/contract/printable.js";
import { FORMAT_VERSION } from "../registry/contract/tool.js";
import { assertFamilyName, upsertFamily, type FamilyEdit } from "./families-edit.js";
import {
  familyFromOpenApi,
  operationLabel,
  operationsOf,
  selectOperations,
  type ImportWarning,
  type Operation,
  type Renamed,
  type Skipped,
} from "./openapi/operations.js";
import { networkCause } from "./net-error.js";
import { isInternalRef, reachableRefs } from "./openapi/refs.js";
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

export type OpenApiImport = {
  file: string;
  tools: number;
  selected: number;
  skipped: Skipped[];
  family: FamilyEdit;
  variables: string[];
  /** What the import changed in the document's tools (examples left out), per tool. */
  warnings: ImportWarning[];
  /** operationIds that became another tool name. */
  renamed: Renamed[];
};

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
  const refs = reachableRefs(doc, paths);
  // Webhooks (and `x-webhooks`) are not operations a gateway calls; security schemes are read by name, not by `$ref`.
  const out: Record<string, unknown> = { ...Object.fromEntries(Object.entries(doc).filter(([k]) => KEPT.includes(k))), paths };
  if (!isRecord(doc.components)) return out;
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

/**
 * Only references inside the document are followed: a `$ref` to a file, a URL or a relative path is an
 * error naming it (and the operation that reaches it), and nothing it names is read.
 */
function assertInternalRefs(spec: string, reduced: Record<string, unknown>, chosen: readonly Operation[]): void {
  const refuse = (ref: string, where: string) =>
    new Error(
      `${where} of ${spec} has the external $ref \`${printable(ref)}\`: only references inside the document (#/…) are imported, and nothing outside it is read`,
    );
  for (const o of chosen) {
    const ref = reachableRefs(reduced, [o.item.parameters, o.op]).find((r) => !isInternalRef(r));
    if (ref !== undefined) throw refuse(ref, `operation ${printable(operationLabel(o))}`);
  }
  // The rest of what the parser reads: security schemes, servers, info.
  const ref = reachableRefs(reduced, reduced).find((r) => !isInternalRef(r));
  if (ref !== undefined) throw refuse(ref, "the document");
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
  const reduced = reduce(parsed, new Set(chosen.map((op) => `${op.method} ${op.path}`)));
  assertInternalRefs(o.spec, reduced, chosen);
  let doc: Record<string, unknown>;
  try {
    // No resolver may read a file or a URL, whatever a `$ref` says: assertInternalRefs refused those already.
    const options = { dereference: { circular: true }, resolve: { external: false, file: false, http: false } } as const;
    doc = (await SwaggerParser.validate(base, reduced as never, options as never)) as unknown as Record<string, unknown>;
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
  // The document's words go into families.yaml and a comment line: escaped, so no newline ends the comment.
  const title = typeof info.title === "string" ? printable(info.title.trim()) : o.family;
  const version = typeof info.version === "string" ? ` ${printable(info.version)}` : "";
  const fromInfo = typeof info.description === "string" ? printable(firstSentence(info.description.replace(/\s+/g, " "))) : "";
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
    `# Generated by \`npm run registry:import-openapi\` from ${title}${version} (OpenAPI ${printable(parsed.openapi)}): ${family.tools.length} of ${all.operations.length} operations.`,
    "# Re-importing with --replace rewrites this file.",
  ].join("\n");
  await mkdir(dir, { recursive: true });
  await writeFile(file, `${header}\n${stringify({ version: FORMAT_VERSION, tools: family.tools }, { lineWidth: 0, aliasDuplicateObjects: false })}`);
  return {
    file,
    tools: family.tools.length,
    selected: chosen.length,
    skipped,
    family: edit,
    variables: Object.keys(family.variables),
    warnings: family.warnings,
    renamed: family.renamed,
  };
}
