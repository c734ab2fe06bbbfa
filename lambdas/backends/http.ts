// The http backend: render the tool's URL, query, headers and body templates, call the upstream
// with the gateway's abort signal, and turn every failure into a structured error.
import type { CatalogTool } from "../../registry/contract/artifact.js";
import type { BackendContext, BackendOutput, ToolBackend } from "../core/call/types.js";
import { ToolbeltError } from "../core/errors.js";
import { renderJson, renderString, renderValue, Secrets, stringify, type EnvMap, type RenderContext } from "./templates.js";

export type HttpBackendOptions = {
  /** Where `${VAR}` references are read from (the handler passes its environment). */
  env: EnvMap;
  /** Larger responses are refused rather than buffered. */
  maxResponseBytes?: number;
};

export const DEFAULT_MAX_RESPONSE_BYTES = 4 * 1024 * 1024;
const EXCERPT = 500;

const excerpt = (text: string, secrets: Secrets) => {
  const t = secrets.redact(text);
  return t.length > EXCERPT ? `${t.slice(0, EXCERPT)}...` : t;
};

async function readCapped(res: Response, max: number, tool: string): Promise<string> {
  if (!res.body) return "";
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => undefined);
      throw new ToolbeltError("UPSTREAM_BAD_OUTPUT", `${tool} answered with more than ${max} bytes, which this gateway does not accept`, {
        tool,
        max_bytes: max,
      });
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

export function createHttpBackend(options: HttpBackendOptions): ToolBackend {
  const maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  return {
    async invoke(tool: CatalogTool, args: Record<string, unknown>, ctx: BackendContext): Promise<BackendOutput> {
      const b = tool.backend;
      if (b.kind !== "http") throw new ToolbeltError("INTERNAL", `${tool.name} is not an http tool`);
      const secrets = new Secrets();
      const rc: RenderContext = { input: args, env: options.env, secrets, tool: tool.name };

      let url: URL;
      try {
        url = new URL(renderString(b.url, rc, encodeURIComponent));
      } catch (e) {
        if (e instanceof ToolbeltError) throw e;
        throw new ToolbeltError("UNAVAILABLE", `${tool.name} has a URL template that does not render to a valid URL; tell the operator`, { tool: tool.name });
      }
      for (const [key, template] of Object.entries(b.query ?? {})) {
        const v = renderValue(template, rc);
        if (v === undefined) continue;
        for (const item of Array.isArray(v) ? v : [v]) url.searchParams.append(key, stringify(item));
      }
      const headers = new Headers();
      for (const [key, template] of Object.entries(b.headers ?? {})) headers.set(key, renderString(template, rc));
      if (!headers.has("accept")) headers.set("accept", b.output === "json" ? "application/json" : "*/*");
      let body: string | undefined;
      if (b.body !== undefined && b.method !== "GET") {
        body = JSON.stringify(renderJson(b.body, rc));
        if (!headers.has("content-type")) headers.set("content-type", "application/json");
      }

      let res: Response;
      try {
        res = await fetch(url, { method: b.method, headers, ...(body !== undefined ? { body } : {}), signal: ctx.signal });
      } catch (e) {
        if (ctx.signal.aborted) throw ctx.signal.reason;
        const cause = (e as { cause?: { code?: string } }).cause?.code ?? (e as Error).name;
        throw new ToolbeltError("UPSTREAM_ERROR", `${tool.name} could not reach its upstream (${cause}); retry later`, { tool: tool.name });
      }
      const text = await readCapped(res, maxBytes, tool.name);
      if (!res.ok) {
        throw new ToolbeltError("UPSTREAM_ERROR", `${tool.name}'s upstream answered HTTP ${res.status}: ${excerpt(text, secrets)}`, {
          tool: tool.name,
          status: res.status,
          body: excerpt(text, secrets),
        });
      }
      if (b.output === "text") return { result: { text: secrets.redact(text) } };
      if (text.trim() === "") return { result: null };
      try {
        return { result: secrets.redactDeep(JSON.parse(text)) };
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
