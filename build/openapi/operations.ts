// OpenAPI operations → http tool definitions of one family, deterministically: the same document and
// options always give the same tools in the same order. Input: a document whose `$ref`s are resolved.
import { createHash } from "node:crypto";
import type * as z from "zod";
import type { FamilyVariable } from "../../registry/contract/family.js";
import { globMatcher } from "../../registry/contract/globs.js";
import { printable } from "../../registry/contract/printable.js";
import { canonicalName, fullName, MAX_TOOL_NAME, RESERVED_ARGUMENT_KEYS } from "../../registry/contract/names.js";
import type { HttpTool } from "../../registry/contract/tool.js";
import { firstSentence, MAX_DESCRIPTION } from "../validate/description.js";
import { isRecord, jsonPath } from "../validate/finding.js";
import { withoutInvalidExamples } from "../validate/values.js";
import { toJsonSchema } from "./schema.js";

type Obj = Record<string, unknown>;
/** An http tool as written in a tool file. */
export type HttpToolYaml = z.input<typeof HttpTool>;

/** The methods an http tool may use; HEAD, OPTIONS and TRACE operations are left out. */
export const METHODS = ["get", "put", "post", "delete", "patch"] as const;
const IGNORED_METHODS = ["head", "options", "trace"];

export type Operation = { id: string | undefined; method: (typeof METHODS)[number]; path: string; item: Obj; op: Obj };
export type Skipped = { operation: string; reason: string };

export type OpenApiFamily = {
  tools: HttpToolYaml[];
  variables: Record<string, Partial<FamilyVariable>>;
  egress: string[];
  skipped: Skipped[];
  /** What the import changed or left out of the document, per tool (examples its schema refuses). */
  warnings: ImportWarning[];
  /** Operations whose operationId is not the tool's verb: agents see the new name. */
  renamed: Renamed[];
};
export type ImportWarning = { tool: string; message: string };
export type Renamed = { from: string; to: string };

/** How messages name an operation: its operationId, else its method and path. */
export const operationLabel = (o: Pick<Operation, "id" | "method" | "path">) => o.id ?? `${o.method.toUpperCase()} ${o.path}`;

/** Every operation of the document in document order, and those whose method no http tool has. */
export function operationsOf(doc: Obj): { operations: Operation[]; skipped: Skipped[] } {
  const operations: Operation[] = [];
  const skipped: Skipped[] = [];
  for (const [path, item] of Object.entries(isRecord(doc.paths) ? doc.paths : {})) {
    if (!isRecord(item)) continue;
    for (const [key, op] of Object.entries(item)) {
      if (!isRecord(op)) continue;
      const id = typeof op.operationId === "string" ? op.operationId : undefined;
      if ((METHODS as readonly string[]).includes(key)) operations.push({ id, method: key as Operation["method"], path, item, op });
      else if (IGNORED_METHODS.includes(key))
        skipped.push({
          operation: operationLabel({ id, method: key as Operation["method"], path }),
          reason: `${key.toUpperCase()} is not a method http tools use`,
        });
    }
  }
  return { operations, skipped };
}

/** Operations whose operationId (or tool verb) matches one of the globs; all of them when none is given. */
export function selectOperations(operations: Operation[], globs: readonly string[]): Operation[] {
  if (globs.length === 0) return operations;
  const match = globMatcher(globs);
  return operations.filter((o) => (o.id !== undefined && match(o.id)) || match(verbOf(o)));
}

/** `GITHUB` for family `github`: the prefix of the variables an imported family declares. */
export const variablePrefix = (family: string) => family.toUpperCase().replace(/[^A-Z0-9]+/g, "_");

const upperSnake = (name: string) =>
  name
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");

/** The tool verb: the operationId with `/` and spaces as dots, else `get_pets_petId` from method and path. */
export function verbOf(o: Pick<Operation, "id" | "method" | "path">): string {
  const raw = o.id ?? `${o.method}_${o.path.replace(/[{}]/g, "").split("/").filter(Boolean).join("_")}`;
  const verb = raw
    .replace(/[/\s]+/g, ".")
    .replace(/[^A-Za-z0-9_.-]+/g, "_")
    .replace(/[_-]*\.[._-]*/g, ".")
    .replace(/^[^A-Za-z]+/, "")
    .replace(/[._-]+$/, "");
  return verb || `${o.method}_operation`;
}

/** Verbs that fit the name policy: at most MAX_TOOL_NAME with the family, distinct under canonicalName. */
function uniqueVerbs(family: string, ops: Operation[]): string[] {
  const seen = new Set<string>();
  return ops.map((o) => {
    let verb = verbOf(o);
    const room = MAX_TOOL_NAME - family.length - 1;
    if (verb.length > room) verb = `${verb.slice(0, room - 9)}_${createHash("sha256").update(verb).digest("hex").slice(0, 8)}`;
    let candidate = verb;
    for (let n = 2; seen.has(canonicalName(fullName(family, candidate))); n++) candidate = `${verb.slice(0, room - 4)}_${n}`;
    seen.add(canonicalName(fullName(family, candidate)));
    return candidate;
  });
}

/** One sentence of at most MAX_DESCRIPTION characters from the summary, else the description, else the route. */
export function toolDescription(o: Operation): string {
  const clean = (v: unknown) => (typeof v === "string" ? firstSentence(v.replace(/\s+/g, " ").trim()) : "");
  // The document's words reach agents and the tool file: control and bidi characters escaped.
  const text = printable(clean(o.op.summary) || clean(o.op.description) || `${o.method.toUpperCase()} ${o.path}.`);
  return text.length > MAX_DESCRIPTION ? `${text.slice(0, MAX_DESCRIPTION - 1).trimEnd()}…` : text;
}

/** The most of a long description a tool's `details` keep: the search reads them at a low weight, and the catalog carries them. */
export const MAX_DETAILS_WORDS = 60;

/**
 * The tool's `details`: the operation's long description as plain text without the sentence the
 * description already says (markdown links, emphasis, code marks, admonition markers, HTML tags and URLs
 * removed), cut at the last sentence end within MAX_DETAILS_WORDS words; undefined when nothing is left.
 * find indexes them as a field of their own, well below the description: a request worded only as the
 * long text words it still reaches the operation, and an incidental word there does not outrank a summary.
 */
export function toolDetails(o: Operation, description: string): string | undefined {
  if (typeof o.op.description !== "string") return undefined;
  const plain = o.op.description
    .replace(/<[^>]*>/g, " ")
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/^\s*>\s*\[![A-Za-z]+\]\s*$/gm, " ")
    .replace(/^\s*(?:>\s*)+/gm, "")
    .replace(/^\s*(?:[*+-]|\d+\.)\s+/gm, "")
    .replace(/https?:\/\/\S+/g, " ")
    .replace(/[`*_#]+/g, "")
    .replace(/\s+/g, " ")
    .trim();
  const first = firstSentence(plain);
  const norm = (s: string) =>
    s
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, " ")
      .trim();
  const rest = norm(first) === norm(description) ? plain.slice(first.length).trim() : plain;
  const words = rest.split(" ").filter(Boolean);
  if (words.length === 0) return undefined;
  if (words.length <= MAX_DETAILS_WORDS) return printable(rest);
  const cut = words.slice(0, MAX_DETAILS_WORDS).join(" ");
  const end = Math.max(cut.lastIndexOf(". "), cut.endsWith(".") ? cut.length - 1 : -1);
  return printable(end > 0 ? cut.slice(0, end + 1) : `${cut}…`);
}

const INPUT_NAME_RE = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;
/** A name `{{input.x}}` can reference and the gateway accepts as an argument. */
const inputName = (raw: string) => {
  let n = raw.replace(/[^A-Za-z0-9_$-]+/g, "_").replace(/_+$/, "");
  if (!INPUT_NAME_RE.test(n)) n = `p_${n}`;
  return RESERVED_ARGUMENT_KEYS.includes(n) ? `${n}_` : n;
};

const JSON_TYPE_RE = /^application\/(?:[\w.+-]+\+)?json\b/i;
/** The first JSON media type of a content map, and its media object. */
const firstJson = (content: unknown): { type: string; media: Obj } | undefined => {
  if (!isRecord(content)) return undefined;
  const type = Object.keys(content).find((k) => JSON_TYPE_RE.test(k));
  const media = type !== undefined ? content[type] : undefined;
  return type !== undefined && isRecord(media) ? { type, media } : undefined;
};

const FORM_TYPES = { "application/x-www-form-urlencoded": "urlencoded", "multipart/form-data": "multipart" } as const;
/** A form media type of a content map (url-encoded first), when it has no JSON one. */
const firstForm = (content: Obj): { type: string; media: Obj; form: "urlencoded" | "multipart" } | undefined => {
  for (const [type, form] of Object.entries(FORM_TYPES)) {
    const key = Object.keys(content).find((k) => k.toLowerCase().split(";")[0]!.trim() === type);
    const media = key !== undefined ? content[key] : undefined;
    if (isRecord(media)) return { type, media, form };
  }
  return undefined;
};

/**
 * A file part as an argument: its bytes in base64, with the file name and media type the upload carries
 * (the http backend sends it as a file part of the multipart body).
 */
export const FILE_PART_SCHEMA = {
  type: "object",
  additionalProperties: false,
  required: ["content_base64"],
  properties: {
    content_base64: { type: "string", contentEncoding: "base64", description: "The file's bytes, base64-encoded" },
    filename: { type: "string", description: "The file name sent with the part" },
    content_type: { type: "string", description: "The file's media type (default application/octet-stream)" },
  },
} as const;

/** OpenAPI's ways of saying a property is a file: 3.0 `format: binary`/`base64`, 3.1 `contentMediaType` or `contentEncoding`. */
const isFile = (s: unknown): boolean =>
  isRecord(s) && (s.format === "binary" || s.format === "base64" || typeof s.contentMediaType === "string" || typeof s.contentEncoding === "string");

/** A multipart body's schema, its file properties (and arrays of them) as FILE_PART_SCHEMA objects. */
function multipartSchema(raw: unknown): Record<string, unknown> | boolean {
  const converted = toJsonSchema(raw);
  if (!isRecord(raw) || !isRecord(raw.properties) || typeof converted === "boolean" || !isRecord(converted.properties)) return converted;
  const props: Obj = { ...converted.properties };
  for (const [name, p] of Object.entries(raw.properties)) {
    if (!Object.hasOwn(props, name) || !isRecord(p)) continue;
    const described = typeof p.description === "string" ? { description: printable(p.description.trim(), { multiline: true }) } : {};
    if (isFile(p)) props[name] = { ...FILE_PART_SCHEMA, ...described };
    else if (p.type === "array" && isFile(p.items)) props[name] = { type: "array", items: FILE_PART_SCHEMA, ...described };
  }
  return { ...converted, properties: props };
}

/** A parameter's schema with its description and example, as an input property. */
function parameterSchema(p: Obj): Obj | boolean {
  const media = isRecord(p.content) ? Object.values(p.content).find(isRecord) : undefined;
  const converted = toJsonSchema(p.schema ?? media?.schema ?? { type: "string" });
  if (typeof converted === "boolean") return converted;
  const out: Obj = { ...converted };
  if (typeof p.description === "string" && p.description.trim()) out.description = printable(p.description.trim(), { multiline: true });
  if (out.examples === undefined) {
    const named = isRecord(p.examples) ? Object.values(p.examples).flatMap((e) => (isRecord(e) && "value" in e ? [e.value] : [])) : [];
    if (p.example !== undefined) out.examples = [p.example];
    else if (named.length > 0) out.examples = named;
  }
  if (p.deprecated === true) out.deprecated = true;
  return out;
}

type Auth = {
  headers: Record<string, string>;
  query: Record<string, string>;
  /** `name=${VAR}` pairs of the Cookie header. */
  cookies: string[];
  /** `in name` (lower case) of the parameters the scheme sends, so a parameter declaring the same one is no argument. */
  covered: Set<string>;
  variables: Record<string, Partial<FamilyVariable>>;
};
const noAuth = (): Auth => ({ headers: {}, query: {}, cookies: [], covered: new Set(), variables: {} });

/**
 * A parameter that is plainly a credential (STAPI's `apiKey` query parameter, an `X-API-Key` header)
 * even without a security scheme: the model must never see nor choose it, so it becomes a declared secret.
 */
const CREDENTIAL_PARAM_RE =
  /^(?:x[-_]?)?(?:api[-_]?key|apikey|api[-_]?token|access[-_]?token|auth[-_]?token|client[-_]?secret|subscription[-_]?key|app[-_]?key)$/i;
const isCredentialParameter = (name: string) => CREDENTIAL_PARAM_RE.test(name);

/**
 * The credentials an operation sends: its first security requirement whose schemes this importer can
 * express (each a declared secret), none when the document allows anonymous calls (`{}`) first or only.
 */
function authOf(doc: Obj, o: Operation, prefix: string): Auth | string {
  const requirements = Array.isArray(o.op.security) ? o.op.security : Array.isArray(doc.security) ? doc.security : [];
  const schemes = isRecord(doc.components) && isRecord(doc.components.securitySchemes) ? doc.components.securitySchemes : {};
  const reasons: string[] = [];
  const inCookie = (req: unknown) => isRecord(req) && Object.keys(req).some((n) => isRecord(schemes[n]) && schemes[n].in === "cookie");
  // A cookie is the last resort: a header or query alternative survives redirects and proxies better.
  for (const req of [...requirements.filter((r) => !inCookie(r)), ...requirements.filter(inCookie)]) {
    if (!isRecord(req)) continue;
    const auth = noAuth();
    let ok = true;
    for (const name of Object.keys(req)) {
      const s = schemes[name];
      const variable = `${prefix}_${upperSnake(name) || "CREDENTIAL"}`;
      const ref = `\${${variable}}`;
      const declare = (description: string) => (auth.variables[variable] = { secret: true, description });
      const type = isRecord(s) ? s.type : undefined;
      const httpScheme = isRecord(s) && typeof s.scheme === "string" ? s.scheme.toLowerCase() : "";
      if (type === "http" && httpScheme === "bearer") {
        auth.headers.Authorization = `Bearer ${ref}`;
        declare(`Bearer token for the security scheme \`${name}\``);
      } else if (type === "http" && httpScheme === "basic") {
        auth.headers.Authorization = `Basic ${ref}`;
        declare(`Base64 of \`user:password\` for the security scheme \`${name}\``);
      } else if (type === "oauth2" || type === "openIdConnect") {
        auth.headers.Authorization = `Bearer ${ref}`;
        declare(`OAuth access token for the security scheme \`${name}\``);
      } else if (type === "apiKey" && isRecord(s) && typeof s.name === "string" && (s.in === "header" || s.in === "query" || s.in === "cookie")) {
        if (s.in === "cookie") auth.cookies.push(`${s.name}=${ref}`);
        else (s.in === "header" ? auth.headers : auth.query)[s.name] = ref;
        auth.covered.add(`${s.in} ${s.name.toLowerCase()}`);
        declare(`API key sent as the ${s.in} \`${s.name}\` (security scheme \`${name}\`)`);
      } else {
        ok = false;
        reasons.push(`security scheme \`${name}\` (${String(type)}${isRecord(s) && s.in ? ` in ${String(s.in)}` : httpScheme ? ` ${httpScheme}` : ""})`);
      }
    }
    if (ok) return auth;
  }
  return reasons.length > 0 ? `needs ${reasons.join(" or ")}, which an http tool cannot send` : noAuth();
}

/** The http tool for one operation, or why there is none. */
function toolOf(
  doc: Obj,
  o: Operation,
  verb: string,
  base: string,
  prefix: string,
): { tool: HttpToolYaml; variables: Auth["variables"]; warnings: string[] } | string {
  if (o.op.deprecated === true) return "deprecated";
  const auth = authOf(doc, o, prefix);
  if (typeof auth === "string") return auth;
  // Operation parameters override path-item ones with the same name and location.
  const params = new Map<string, Obj>();
  for (const p of [...(Array.isArray(o.item.parameters) ? o.item.parameters : []), ...(Array.isArray(o.op.parameters) ? o.op.parameters : [])]) {
    if (isRecord(p) && typeof p.name === "string" && typeof p.in === "string") params.set(`${p.in} ${p.name}`, p);
  }
  const properties: Obj = {};
  const required: string[] = [];
  const query: Record<string, string> = {};
  const headers: Record<string, string> = {};
  const pathArgs = new Map<string, string>();
  const claim = (raw: string, where: string) => {
    let n = inputName(raw);
    if (Object.hasOwn(properties, n)) n = inputName(`${raw}_${where}`);
    return n;
  };
  for (const p of params.values()) {
    const name = p.name as string;
    if (auth.covered.has(`${p.in} ${name.toLowerCase()}`)) continue;
    if (isCredentialParameter(name) && (p.in === "query" || p.in === "header" || p.in === "cookie")) {
      const variable = `${prefix}_${upperSnake(name)}`;
      const ref = `\${${variable}}`;
      if (p.in === "cookie") auth.cookies.push(`${name}=${ref}`);
      else (p.in === "query" ? query : headers)[name] = ref;
      auth.variables[variable] = {
        secret: true,
        description: `API key sent as the ${p.in} \`${name}\`${p.required === true ? "" : " (optional for the API)"}`,
      };
      continue;
    }
    if (p.in === "cookie") {
      if (p.required === true) return `needs the cookie \`${name}\`, which an http tool cannot send`;
      continue;
    }
    if (p.in === "header" && ["accept", "content-type", "authorization"].includes(name.toLowerCase())) continue;
    const arg = claim(name, String(p.in));
    properties[arg] = parameterSchema(p);
    if (p.required === true || p.in === "path") required.push(arg);
    const ref = `{{input.${arg}}}`;
    if (p.in === "path") pathArgs.set(name, arg);
    else if (p.in === "query") query[name] = ref;
    else if (p.in === "header") headers[name] = ref;
  }
  let missing: string | undefined;
  const path = o.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const arg = pathArgs.get(name);
    if (arg === undefined) missing ??= name;
    return `{{input.${arg}}}`;
  });
  if (missing !== undefined) return `path parameter \`{${missing}}\` is not declared`;

  let body: unknown;
  const rb = isRecord(o.op.requestBody) ? o.op.requestBody : undefined;
  if (rb && isRecord(rb.content) && Object.keys(rb.content).length > 0) {
    const chosen: { type: string; media: Obj; form?: string } | undefined = firstJson(rb.content) ?? firstForm(rb.content);
    if (!chosen) return `its request body is ${Object.keys(rb.content).join(", ")}, neither JSON nor a form`;
    // The backend sends application/json unless told otherwise: the Content-Type names the encoding
    // (merge-patch+json and other JSON types, a url-encoded or multipart form).
    if (chosen.type.toLowerCase() !== "application/json") headers["Content-Type"] = chosen.type;
    const schema = chosen.form === "multipart" ? multipartSchema(chosen.media.schema ?? {}) : toJsonSchema(chosen.media.schema ?? {});
    const props = isRecord(schema) && isRecord(schema.properties) ? schema.properties : undefined;
    const bodyRequired = isRecord(schema) && Array.isArray(schema.required) ? (schema.required as string[]) : [];
    // An object body becomes top-level arguments when nothing is lost: plain properties, no name taken.
    const flat =
      isRecord(schema) &&
      props !== undefined &&
      (schema.type === "object" || schema.type === undefined) &&
      !["allOf", "anyOf", "oneOf", "not", "if", "additionalProperties", "patternProperties"].some((k) => k in schema) &&
      Object.keys(props).every((k) => INPUT_NAME_RE.test(k) && !RESERVED_ARGUMENT_KEYS.includes(k) && !Object.hasOwn(properties, k)) &&
      (rb.required === true || bodyRequired.length === 0);
    if (flat) {
      Object.assign(properties, props);
      required.push(...bodyRequired);
      body = Object.fromEntries(Object.keys(props).map((k) => [k, `{{input.${k}}}`]));
    } else {
      const arg = claim("body", "request");
      properties[arg] =
        typeof schema === "boolean"
          ? schema
          : { ...schema, ...(typeof rb.description === "string" ? { description: printable(rb.description.trim(), { multiline: true }) } : {}) };
      if (rb.required === true) required.push(arg);
      body = `{{input.${arg}}}`;
    }
  }

  const method = o.method.toUpperCase() as HttpToolYaml["method"];
  const allHeaders = { ...headers, ...auth.headers, ...(auth.cookies.length ? { Cookie: auth.cookies.join("; ") } : {}) };
  const allQuery = { ...query, ...auth.query };
  const description = toolDescription(o);
  const details = toolDetails(o, description);
  const tool: HttpToolYaml = {
    name: verb,
    kind: "http",
    method,
    url: `${base}${path}`,
    ...(Object.keys(allHeaders).length ? { headers: allHeaders } : {}),
    ...(Object.keys(allQuery).length ? { query: allQuery } : {}),
    ...(body !== undefined ? { body } : {}),
    output: outputOf(o.op),
    description,
    ...(details !== undefined ? { details } : {}),
    ...(Array.isArray(o.op.tags) && o.op.tags.length ? { tags: o.op.tags.filter((t): t is string => typeof t === "string").map((t) => printable(t)) } : {}),
    ...(method === "GET" ? { read_only: true, idempotent: true } : {}),
    ...(method === "PUT" ? { idempotent: true } : {}),
    ...(method === "DELETE" ? { destructive: true, idempotent: true } : {}),
  };
  // Examples the schema itself refuses would teach agents arguments the gateway then refuses.
  const checked = withoutInvalidExamples(
    { type: "object", additionalProperties: false, ...(required.length ? { required: [...new Set(required)] } : {}), properties },
    ["input_schema"],
  );
  tool.input_schema = checked.schema;
  const warnings = checked.dropped.map((f) => `${jsonPath(f.at)}: ${f.message} (left out)`);
  return { tool, variables: auth.variables, warnings };
}

/** `json` unless the first success response has content and none of it is JSON. */
function outputOf(op: Obj): "json" | "text" {
  const responses = isRecord(op.responses) ? op.responses : {};
  const success = Object.keys(responses)
    .filter((k) => /^2/.test(k))
    .sort()
    .map((k) => responses[k])
    .find((r) => isRecord(r) && isRecord(r.content) && Object.keys(r.content).length > 0);
  return isRecord(success) && !firstJson(success.content) ? "text" : "json";
}

/** The first server's URL with its variables at their defaults, for the base URL variable's description. */
export function serverUrl(doc: Obj): string | undefined {
  const s = Array.isArray(doc.servers) ? doc.servers.find(isRecord) : undefined;
  if (!s || typeof s.url !== "string") return undefined;
  const vars = isRecord(s.variables) ? s.variables : {};
  return s.url.replace(/\{([^}]+)\}/g, (m, name: string) => {
    const v = vars[name];
    return isRecord(v) && typeof v.default === "string" ? v.default : m;
  });
}

/** The family an OpenAPI document's selected operations make: tools, the variables they read, egress. */
export function familyFromOpenApi(doc: Obj, family: string, ops: Operation[]): OpenApiFamily {
  const prefix = variablePrefix(family);
  const baseVar = `${prefix}_BASE_URL`;
  const base = `\${${baseVar}}`;
  const server = serverUrl(doc);
  const variables: OpenApiFamily["variables"] = {
    [baseVar]: {
      description: `Base URL of the API without a trailing slash${server ? `; the document's first server is ${server}` : ""}`,
    },
  };
  const skipped: Skipped[] = [];
  const tools: HttpToolYaml[] = [];
  const warnings: ImportWarning[] = [];
  const renamed: Renamed[] = [];
  const verbs = uniqueVerbs(family, ops);
  ops.forEach((o, i) => {
    const r = toolOf(doc, o, verbs[i]!, base, prefix);
    if (typeof r === "string") skipped.push({ operation: operationLabel(o), reason: r });
    else {
      tools.push(r.tool);
      Object.assign(variables, r.variables);
      const name = fullName(family, r.tool.name);
      warnings.push(...r.warnings.map((message) => ({ tool: name, message })));
      if (o.id !== undefined && o.id !== r.tool.name) renamed.push({ from: printable(o.id), to: name });
    }
  });
  tools.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  // Variable descriptions quote scheme names and the server URL from the document.
  for (const v of Object.values(variables)) if (v.description !== undefined) v.description = printable(v.description);
  return { tools, variables, egress: [base], skipped, warnings, renamed };
}
