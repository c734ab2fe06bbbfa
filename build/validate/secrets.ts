// Secrets live in the environment: a credential-like header, env or query value must be built from
// `${ENV}` references (or the caller's input), never written into the registry.
import { ENV_REF_RE, TEMPLATE_TOKEN_RE } from "../../registry/contract/tool.js";
import type { Finding, Segment } from "./finding.js";

/** Names whose values are credentials (`GITHUB_TOKEN`, `X-Api-Key`, `Authorization`; not `max_tokens`). */
const SECRET_NAME_PARTS = [
  /authori[sz]ation/i,
  /api[-_]?key/i,
  /(^|[-_])token$/i,
  /^token([-_]|$)/i,
  /secret/i,
  /passw(or)?d|passphrase/i,
  /credential/i,
  /^(set-)?cookie$/i,
  /private[-_]?key/i,
  /access[-_]?key/i,
  /signature/i,
  /^x-auth/i,
  /^auth$/i,
  /session[-_]?id/i,
];
export function isSecretName(name: string): boolean {
  return SECRET_NAME_PARTS.some((re) => re.test(name));
}

/** Values that are credentials whatever they are called (well-known key formats, JWTs, inline basic auth). */
const CREDENTIAL_VALUE_RE = [
  /\b(sk|pk|rk)-[A-Za-z0-9_-]{16,}/, // OpenAI/Stripe-style keys
  /\bgh[pousr]_[A-Za-z0-9]{20,}/, // GitHub tokens
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/, // Slack tokens
  /\bAKIA[0-9A-Z]{16}\b/, // AWS access key ids
  /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/, // JWTs
  /\bglpat-[A-Za-z0-9_-]{16,}/, // GitLab tokens
];

/** An auth scheme word may precede the reference: `Bearer ${TOKEN}`. */
const SCHEME_RE = /^\s*(bearer|basic|token|bot|apikey|api-key|digest)\s+/i;

/** True when nothing is left of the value once `${ENV}` and `{{input.x}}` references and a scheme word are removed. */
export function isReferenceOnly(value: string): boolean {
  const refs = value.replace(ENV_REF_RE, "\0").replace(TEMPLATE_TOKEN_RE, "\0");
  if (!refs.includes("\0")) return false;
  return refs.replace(/\0/g, "").replace(SCHEME_RE, "").trim() === "";
}

export function looksLikeCredential(value: string): boolean {
  const literal = value.replace(ENV_REF_RE, "").replace(TEMPLATE_TOKEN_RE, "");
  return CREDENTIAL_VALUE_RE.some((re) => re.test(literal));
}

/** A Cookie header is `name=value` pairs: each value must be a reference (`session=${SESSION}`). */
const referencesOnly = (name: string, value: string) =>
  name.toLowerCase() === "cookie"
    ? value.split(";").every((pair) => {
        const eq = pair.indexOf("=");
        return eq > 0 && isReferenceOnly(pair.slice(eq + 1));
      })
    : isReferenceOnly(value);

/** Named values: headers, env, query parameters. */
export function checkNamedValues(map: Record<string, string> | undefined, at: Segment[], what: string): Finding[] {
  const out: Finding[] = [];
  for (const [name, value] of Object.entries(map ?? {})) {
    if (typeof value !== "string") continue;
    if ((isSecretName(name) && !referencesOnly(name, value)) || looksLikeCredential(value)) {
      out.push({
        code: "SECRET_LITERAL",
        at: [...at, name],
        message: `${what} \`${name}\` holds a literal credential: write it as a \`\${ENV}\` reference (e.g. \`Bearer \${TOKEN}\`) and set the variable where the gateway runs`,
      });
    }
  }
  return out;
}

/** URLs: no user:password, no credential-named query parameter with a literal value. */
export function checkUrl(url: string, at: Segment[]): Finding[] {
  const out: Finding[] = [];
  const userinfo = /^[a-z][a-z0-9+.-]*:\/\/([^/?#@]*)@/i.exec(url);
  if (userinfo && userinfo[1]!.includes(":") && !isReferenceOnly(userinfo[1]!.split(":").slice(1).join(":"))) {
    out.push({ code: "SECRET_LITERAL", at, message: "the URL carries a literal password: use a `${ENV}` reference" });
  }
  const q = url.indexOf("?");
  if (q >= 0) {
    for (const part of url
      .slice(q + 1)
      .split("#")[0]!
      .split("&")) {
      const eq = part.indexOf("=");
      if (eq < 0) continue;
      const name = decodeSafe(part.slice(0, eq));
      const value = decodeSafe(part.slice(eq + 1));
      if (isSecretName(name) && !isReferenceOnly(value)) {
        out.push({ code: "SECRET_LITERAL", at, message: `query parameter \`${name}\` in the URL holds a literal credential: use a \`\${ENV}\` reference` });
      }
    }
  }
  if (out.length === 0 && looksLikeCredential(url)) {
    out.push({ code: "SECRET_LITERAL", at, message: "the URL contains what looks like a literal credential: use a `${ENV}` reference" });
  }
  return out;
}

/** Any other templated string (args, body leaves, prompts): only well-known credential formats are flagged. */
export function checkFreeText(text: string, at: Segment[]): Finding[] {
  return looksLikeCredential(text) ? [{ code: "SECRET_LITERAL", at, message: "this value looks like a literal credential: use a `${ENV}` reference" }] : [];
}

function decodeSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
