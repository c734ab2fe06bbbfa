// `credentials: per_principal`: only a family whose every tool calls an upstream over HTTP (an mcp
// source, or a tools folder of http tools) can send the caller's own token; the header it goes in is a
// real header name the HTTP layer does not own, and no template of the family writes it too.
import type { CatalogTool } from "../../registry/contract/artifact.js";
import { HTTP_TOKEN_RE, normaliseCredentials, RESERVED_CREDENTIAL_HEADERS } from "../../registry/contract/credentials.js";
import type { FamilyDef } from "../../registry/contract/family.js";
import type { Finding, Segment } from "./finding.js";

/** The declaration itself and the family's source (a JSONL catalog runs nothing upstream). */
export function checkCredentialsDecl(def: FamilyDef, at: Segment[]): Finding[] {
  if (def.credentials === undefined) return [];
  const c = normaliseCredentials(def.credentials).per_principal;
  const out: Finding[] = [];
  const bad = (where: Segment[], message: string) => out.push({ code: "INVALID_VALUE", at: [...at, ...where], message });
  if (!HTTP_TOKEN_RE.test(c.header)) bad(["per_principal", "header"], `\`${c.header}\` is not an HTTP header name (letters, digits and !#$%&'*+.^_\`|~-)`);
  else if (RESERVED_CREDENTIAL_HEADERS.includes(c.header.toLowerCase())) {
    bad(["per_principal", "header"], `\`${c.header}\` is set by the HTTP layer: send the token in \`Authorization\` or the upstream's own key header`);
  }
  if (c.scheme !== undefined && !HTTP_TOKEN_RE.test(c.scheme))
    bad(["per_principal", "scheme"], `\`${c.scheme}\` is not an auth scheme (one word, e.g. \`Bearer\`)`);
  if ("jsonl" in def.source) bad([], "a JSONL catalog calls no upstream: `credentials` is for families of http tools or an mcp source");
  if ("mcp" in def.source) out.push(...headerClash(Object.keys(def.source.mcp.headers ?? {}), c.header, [...at.slice(0, -1), "source", "mcp", "headers"]));
  return out;
}

/** A `tools` family's loaded tools: all http, none writing the credential header itself. */
export function checkCredentialsTools(def: FamilyDef, tools: readonly CatalogTool[], at: Segment[]): Finding[] {
  if (def.credentials === undefined || !("tools" in def.source)) return [];
  const { header } = normaliseCredentials(def.credentials).per_principal;
  const out: Finding[] = [];
  const kinds = [...new Set(tools.filter((t) => t.backend.kind !== "http").map((t) => `${t.name} (${t.backend.kind})`))];
  if (kinds.length > 0) {
    out.push({
      code: "INVALID_VALUE",
      at,
      message: `\`credentials: per_principal\` is for http and mcp families; these tools do not call an HTTP upstream: ${kinds.slice(0, 5).join(", ")}${kinds.length > 5 ? ", ..." : ""}`,
    });
  }
  for (const t of tools) {
    if (t.backend.kind === "http") out.push(...headerClash(Object.keys(t.backend.headers ?? {}), header, at, t.name));
  }
  return out;
}

function headerClash(headers: readonly string[], header: string, at: Segment[], tool?: string): Finding[] {
  const clash = headers.find((h) => h.toLowerCase() === header.toLowerCase());
  if (clash === undefined) return [];
  const who = tool ? `tool \`${tool}\`` : "the MCP source";
  return [
    {
      code: "INVALID_VALUE",
      at,
      message: `${who} writes \`${clash}\`, the header \`credentials: per_principal\` fills with the caller's own token: remove it from the templates`,
    },
  ];
}
