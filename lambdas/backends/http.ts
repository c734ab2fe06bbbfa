// The http backend: render the tool's URL, query, headers and body templates, call the upstream
// with the gateway's abort signal, and turn every failure into a structured error. Every request
// (and every redirect followed) stays inside the tool's egress allow-list; input values fill path
// segments, query values and headers only, never the scheme, host or port.
import type { CatalogTool } from "../../registry/contract/artifact.js";
import { derivedEgress, originOf, splitUrlTemplate } from "../../registry/contract/egress.js";
import type { BackendContext, BackendOutput, ToolBackend } from "../core/call/types.js";
import { sentArguments } from "../core/call/validate.js";
import { ToolbeltError } from "../core/errors.js";
import {
  lookup,
  renderJson,
  renderString,
  renderValue,
  Secrets,
  soleInputPath,
  stringify,
  substituteEnv,
  type Encoder,
  type RenderContext,
} from "./templates.js";
import { callerCredentialHeader, type CallerCredentials, type FamilyViews } from "./variables.js";
import { DEFAULT_MAX_RESPONSE_BYTES, readCapped } from "../capped-body.js";

export { DEFAULT_MAX_RESPONSE_BYTES };

export type HttpBackendOptions = {
  /** What `${VAR}` reads: the tool's family's declared variables. */
  views: FamilyViews;
  /** Larger responses are refused rather than buffered. */
  maxResponseBytes?: number;
  /** Families that call their upstream with the caller's own token (`credentials: per_principal`). */
  credentials?: CallerCredentials;
};

const EXCERPT = 500;
/** Redirects followed (each inside the allow-list) before the answer counts as a failure. */
export const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Headers a cross-origin redirect drops, as fetch itself does. */
const ORIGIN_BOUND_HEADERS = ["authorization", "cookie", "proxy-authorization"];
/** Servers may percent-decode more than once: a value still changing after this many rounds is refused. */
const DECODE_ROUNDS = 8;

const argumentName = (path: string) => path.replace(/^\./, "") || "(the whole input)";

function refuseArgument(tool: string, path: string, message: string): never {
  const argument = argumentName(path);
  throw new ToolbeltError("INVALID_ARGUMENTS", `${tool}: \`${argument}\` ${message}`, {
    tool,
    argument,
    problems: [{ path: `$.${argument}`, message, keyword: "egress" }],
  });
}

/** A segment a server may take for `.` or `..`: `..;x` too, since servlet containers drop a `;` parameter before resolving. */
const isDotSegment = (seg: string) => {
  const name = seg.split(";", 1)[0];
  return name === "." || name === "..";
};

/** One run of escapes as UTF-8, with overlong forms of ASCII folded (`%c0%ae` is `.` to the decoders that accept them). */
function decodeEscapes(run: string): string {
  const b = Buffer.from(run.replaceAll("%", ""), "hex");
  const out: number[] = [];
  for (let i = 0; i < b.length; i++) {
    if ((b[i] === 0xc0 || b[i] === 0xc1) && i + 1 < b.length) out.push(((b[i]! & 0x1f) << 6) | (b[++i]! & 0x3f));
    else if (b[i] === 0xe0 && i + 2 < b.length && b[i + 1]! < 0xa0) out.push(((b[++i]! & 0x3f) << 6) | (b[++i]! & 0x3f));
    else out.push(b[i]!);
  }
  return Buffer.from(out).toString("utf8");
}

/**
 * `.` or `..` as a segment (split on `/` and `\\`), in any spelling a server may resolve: percent-encoded
 * any number of times (overlong UTF-8 too), with a `;` parameter, or in Unicode dots and slashes that NFKC folds to ASCII (U+FF0E).
 */
export function climbs(value: string): boolean {
  let v = value;
  for (let round = 0; round <= DECODE_ROUNDS; round++) {
    if (v.normalize("NFKC").split(/[\\/]/).some(isDotSegment)) return true;
    // Lenient, like the servers that decode: one malformed escape must not hide the rest.
    const next = v.replace(/(?:%[0-9A-Fa-f]{2})+/g, decodeEscapes);
    if (next === v) return false;
    v = next;
  }
  return true;
}

/** A path placeholder's value: percent-encoded (so `/`, `?`, `#`, `@` stay data), and never a dot segment. */
const pathSegment =
  (tool: string): Encoder =>
  (value, path) => {
    if (climbs(value)) {
      refuseArgument(
        tool,
        path,
        "fills a path segment of the URL and may not be `.` or `..` (nor their percent-encoded, backslash, `..;` or Unicode forms): send the name itself, not a relative path",
      );
    }
    return encodeURIComponent(value);
  };

/** What fetch sends in a header value (RFC 9110 field-vchar, space, tab; obs-text): any other character makes it throw. */
const NOT_HEADER_VALUE = /[^\t\x20-\x7e\x80-\xff]/;

/** Header values from input: refused here, as the caller's mistake, rather than by fetch as an upstream failure. */
const headerValue =
  (tool: string): Encoder =>
  (value, path) => {
    if (NOT_HEADER_VALUE.test(value)) {
      refuseArgument(
        tool,
        path,
        "is sent as an HTTP header value and may not contain line breaks, NUL, other control characters (tab aside) or characters beyond Latin-1",
      );
    }
    return value;
  };

/** The origins the tool may reach, resolved now (a `${VAR}` base URL counts by its origin). */
function allowedOrigins(tool: CatalogTool, egress: readonly string[], rc: RenderContext): Set<string> {
  const out = new Set<string>();
  for (const entry of egress) {
    const origin = originOf(substituteEnv(entry, rc));
    if (origin === undefined) {
      throw new ToolbeltError("UNAVAILABLE", `${tool.name} has an egress entry (\`${entry}\`) that does not resolve to an http(s) origin; tell the operator`, {
        tool: tool.name,
        egress: entry,
      });
    }
    out.add(origin);
  }
  return out;
}

type Target = { url: URL; egress: readonly string[]; allowed: ReadonlySet<string> };

function egressDenied(tool: string, egress: readonly string[], what: string, fix: string): ToolbeltError {
  return new ToolbeltError("EGRESS_DENIED", `${tool} ${what}, outside its egress allow-list (${egress.join(", ")}); the deployment must ${fix}`, {
    tool,
    egress,
  });
}

/** Render the URL (input only in path and query, each value encoded) and check its origin against the allow-list. */
function resolveTarget(tool: CatalogTool, rc: RenderContext): Target {
  const b = tool.backend;
  if (b.kind !== "http") throw new ToolbeltError("INTERNAL", `${tool.name} is not an http tool`);
  const egress = b.egress ?? derivedEgress(b.url);
  const parts = splitUrlTemplate(b.url);
  // The build rejects this; an artifact built before that rule must not run it either.
  if (parts.origin.includes("{{")) {
    throw egressDenied(
      tool.name,
      egress,
      "takes its URL's scheme, host or port from the input, so it may reach any origin",
      "fix the tool's `url` (the build rejects it) and rebuild the artifact",
    );
  }
  const allowed = allowedOrigins(tool, egress, rc);
  let url: URL;
  try {
    url = new URL(renderString(parts.origin, rc) + renderString(parts.path, rc, pathSegment(tool.name)) + renderString(parts.tail, rc, encodeURIComponent));
  } catch (e) {
    if (e instanceof ToolbeltError) throw e;
    throw new ToolbeltError("UNAVAILABLE", `${tool.name} has a URL template that does not render to a valid URL; tell the operator`, { tool: tool.name });
  }
  const origin = originOf(url.href);
  if (origin === undefined || !allowed.has(origin)) {
    const where = rc.secrets.redact(origin ?? url.protocol);
    throw egressDenied(tool.name, egress, `resolves to ${where}`, "add that origin to the family's `egress`, or correct the variable the URL is built from");
  }
  return { url, egress, allowed };
}

/** Where a redirect points, if the allow-list lets the gateway follow it. */
function redirectTarget(tool: CatalogTool, res: Response, from: URL, target: Target, secrets: Secrets): URL {
  let next: URL;
  try {
    next = new URL(res.headers.get("location") ?? "", from);
  } catch {
    throw new ToolbeltError("UPSTREAM_BAD_OUTPUT", `${tool.name}'s upstream redirected to a location that is not a URL`, { tool: tool.name });
  }
  const origin = originOf(next.href);
  if (origin === undefined || !target.allowed.has(origin)) {
    const where = secrets.redact(origin ?? next.protocol);
    throw egressDenied(
      tool.name,
      target.egress,
      `was redirected by its upstream to ${where} (not followed)`,
      "add that origin to the family's `egress` if the tool is meant to reach it",
    );
  }
  return next;
}

const excerpt = (text: string, secrets: Secrets) => {
  const t = secrets.redact(text);
  return t.length > EXCERPT ? `${t.slice(0, EXCERPT)}...` : t;
};

/**
 * What an upstream's error status means for the caller: 404/410 say the thing asked for does not exist
 * (404), 400/409/413/422 that the upstream refused this input (422), 429 that it is rate limiting (429:
 * retry later, as the caller would retry any 429); the rest (401/403: the deployment's credentials, 5xx)
 * are the upstream's or the deployment's failure (502).
 */
export function upstreamStatusCode(status: number): "UPSTREAM_NOT_FOUND" | "UPSTREAM_REJECTED_INPUT" | "UPSTREAM_RATE_LIMITED" | "UPSTREAM_ERROR" {
  if (status === 404 || status === 410) return "UPSTREAM_NOT_FOUND";
  if (status === 400 || status === 409 || status === 413 || status === 422) return "UPSTREAM_REJECTED_INPUT";
  if (status === 429) return "UPSTREAM_RATE_LIMITED";
  return "UPSTREAM_ERROR";
}

/**
 * An upstream's `Retry-After` as whole seconds from now: delta-seconds, or an HTTP date (RFC 9110
 * §10.2.3; one in the past is 0). Anything else is ignored rather than passed on.
 */
export function retryAfterSecs(value: string | null, now = Date.now()): number | undefined {
  const v = value?.trim() ?? "";
  if (/^\d{1,10}$/.test(v)) return Number(v);
  // An HTTP date names its weekday and month; Date.parse alone would take "1" or "2026" too.
  if (!/^[A-Za-z]{3},? /.test(v)) return undefined;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/** A form field's text: strings as they are, numbers and booleans as JSON writes them, objects as JSON. */
const formText = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v));

/**
 * The body as the tool's Content-Type says: a url-encoded or multipart form (top-level fields, an array
 * as repeated fields), else JSON. A multipart file part is `{content_base64, filename?, content_type?}`;
 * fetch writes the multipart Content-Type itself, with its boundary.
 */
export function encodeBody(tool: string, value: unknown, headers: Headers): string | FormData {
  const type = (headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  const form = type === "application/x-www-form-urlencoded" || type === "multipart/form-data";
  if (!form) {
    if (!headers.has("content-type")) headers.set("content-type", "application/json");
    return JSON.stringify(value);
  }
  const fields = value !== null && typeof value === "object" && !Array.isArray(value) ? Object.entries(value) : [];
  const pairs = fields.flatMap(([k, v]) => (Array.isArray(v) ? v.map((item) => [k, item] as const) : [[k, v] as const]));
  if (type === "application/x-www-form-urlencoded") return new URLSearchParams(pairs.map(([k, v]) => [k, formText(v)])).toString();
  headers.delete("content-type");
  const data = new FormData();
  for (const [k, v] of pairs) {
    const file =
      v !== null && typeof v === "object" && typeof (v as { content_base64?: unknown }).content_base64 === "string"
        ? (v as Record<string, unknown>)
        : undefined;
    if (!file) {
      data.append(k, formText(v));
      continue;
    }
    const bytes = Buffer.from(file.content_base64 as string, "base64");
    if (bytes.toString("base64").replace(/=+$/, "") !== (file.content_base64 as string).replace(/\s+/g, "").replace(/=+$/, "")) {
      refuseArgument(tool, `.${k}`, "is a file part whose `content_base64` is not valid base64");
    }
    const mediaType = typeof file.content_type === "string" ? file.content_type : "application/octet-stream";
    data.append(k, new Blob([bytes], { type: mediaType }), typeof file.filename === "string" ? file.filename : k);
  }
  return data;
}

export function createHttpBackend(options: HttpBackendOptions): ToolBackend {
  const maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  return {
    async invoke(tool: CatalogTool, args: Record<string, unknown>, ctx: BackendContext): Promise<BackendOutput> {
      const b = tool.backend;
      if (b.kind !== "http") throw new ToolbeltError("INTERNAL", `${tool.name} is not an http tool`);
      const view = options.views(tool.family);
      const secrets = new Secrets(view.secrets);
      // Only what the caller sent, plus the values the tool declares for its templates (`defaults`):
      // a schema `default` describes what the upstream assumes, and sending it would reset fields.
      const input = { ...b.defaults, ...sentArguments(args) };
      const rc: RenderContext = { input, env: view.env, secrets, tool: tool.name };
      // First: a caller who has not connected the family hears so before anything is sent.
      const own = await callerCredentialHeader(tool.family, ctx.caller, options.credentials);
      if (own) secrets.add(own.token);

      const target = resolveTarget(tool, rc);
      let url = target.url;
      for (const [key, template] of Object.entries(b.query ?? {})) {
        const v = renderValue(template, rc);
        if (v === undefined) continue;
        for (const item of Array.isArray(v) ? v : [v]) url.searchParams.append(key, stringify(item));
      }
      const headers = new Headers();
      for (const [key, template] of Object.entries(b.headers ?? {})) {
        // A header that is one argument is left out when the caller omits it, as a query parameter is.
        const sole = soleInputPath(template);
        if (sole !== undefined && lookup(input, sole) === undefined) continue;
        headers.set(key, renderString(template, rc, headerValue(tool.name)));
      }
      // Set after the templates (the build refuses a template writing the same header): nothing overrides it.
      if (own) headers.set(own.name, own.value);
      if (!headers.has("accept")) headers.set("accept", b.output === "json" ? "application/json" : "*/*");
      let body: string | FormData | undefined;
      if (b.body !== undefined && b.method !== "GET") {
        body = encodeBody(tool.name, renderJson(b.body, rc), headers);
      }

      const send = async (method: string): Promise<Response> => {
        try {
          // Redirects are followed below, one by one, so none can leave the allow-list.
          return await fetch(url, { method, headers, ...(body !== undefined ? { body } : {}), redirect: "manual", signal: ctx.signal });
        } catch (e) {
          if (ctx.signal.aborted) throw ctx.signal.reason;
          const cause = (e as { cause?: { code?: string } }).cause?.code ?? (e as Error).name;
          throw new ToolbeltError("UPSTREAM_ERROR", `${tool.name} could not reach its upstream (${cause}); retry later`, { tool: tool.name });
        }
      };
      let method: string = b.method;
      let res = await send(method);
      for (let hops = 0; REDIRECT_STATUSES.has(res.status) && res.headers.has("location"); hops++) {
        await res.body?.cancel().catch(() => undefined);
        const next = redirectTarget(tool, res, url, target, secrets);
        if (hops === MAX_REDIRECTS) {
          throw new ToolbeltError("UPSTREAM_ERROR", `${tool.name}'s upstream redirected more than ${MAX_REDIRECTS} times; retry later`, { tool: tool.name });
        }
        // As fetch does: 303 (and 301/302 after POST) become a GET without a body.
        if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === "POST")) {
          method = "GET";
          body = undefined;
          headers.delete("content-type");
        }
        if (next.origin !== url.origin) for (const h of [...ORIGIN_BOUND_HEADERS, ...(own ? [own.name] : [])]) headers.delete(h);
        url = next;
        res = await send(method);
      }
      const text = await readCapped(
        res,
        maxBytes,
        () =>
          new ToolbeltError("UPSTREAM_BAD_OUTPUT", `${tool.name} answered with more than ${maxBytes} bytes, which this gateway does not accept`, {
            tool: tool.name,
            max_bytes: maxBytes,
          }),
      );
      if (!res.ok) {
        const code = upstreamStatusCode(res.status);
        const retryAfter = code === "UPSTREAM_RATE_LIMITED" ? retryAfterSecs(res.headers.get("retry-after")) : undefined;
        const blame = {
          UPSTREAM_ERROR: "",
          UPSTREAM_NOT_FOUND: " (not found: check the arguments)",
          UPSTREAM_REJECTED_INPUT: " (it refused this input: change the arguments)",
          UPSTREAM_RATE_LIMITED: ` (rate limited: retry ${retryAfter !== undefined ? `after ${retryAfter} s` : "later, backing off"})`,
        }[code];
        throw new ToolbeltError(code, `${tool.name}'s upstream answered HTTP ${res.status}${blame}: ${excerpt(text, secrets)}`, {
          tool: tool.name,
          status: res.status,
          body: excerpt(text, secrets),
          // The HTTP answer carries it as `Retry-After` too (lambdas/http/errors.ts).
          ...(retryAfter !== undefined ? { retry_after_secs: retryAfter } : {}),
        });
      }
      const upstream_status = res.status;
      if (b.output === "text") return { result: { text: secrets.redact(text) }, upstream_status };
      if (text.trim() === "") return { result: null, upstream_status };
      try {
        return { result: secrets.redactDeep(JSON.parse(text)), upstream_status };
      } catch {
        throw new ToolbeltError(
          "UPSTREAM_BAD_OUTPUT",
          `${tool.name} promises JSON but its upstream answered ${res.headers.get("content-type") ?? "without a content type"}: ${excerpt(text, secrets)}`,
          { tool: tool.name, content_type: res.headers.get("content-type"), body: excerpt(text, secrets) },
        );
      }
    },
  };
}
