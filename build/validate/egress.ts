// Egress rules: an http tool's scheme, host and port are the registry's, never the caller's; a family's
// `egress` lists bare origins; every http tool of a family that declares `egress` points inside it.
import { EGRESS_PROTOCOLS, originOf, splitUrlTemplate } from "../../registry/contract/egress.js";
import { ENV_REF_RE } from "../../registry/contract/tool.js";
import type { Finding, Segment } from "./finding.js";

const hasEnvRef = (text: string) => new RegExp(ENV_REF_RE.source).test(text);
const FIX =
  "write the origin literally (`https://api.example.com`) or as a `${VAR}` base URL followed by `/`, and let the input fill only path segments or query values";

/** Literal origins compare after URL normalisation (`HTTPS://Api.Example.com:443` is `https://api.example.com`). */
const normalise = (origin: string) => (hasEnvRef(origin) ? origin : (originOf(origin) ?? origin));

const hasOrigin = (origin: string) => hasEnvRef(origin) || originOf(origin) !== undefined;

/** An http tool's URL template: its origin part is fixed text or `${VAR}`s, never `{{input.*}}`. */
export function checkUrlOrigin(url: string, at: Segment[]): Finding[] {
  const { origin } = splitUrlTemplate(url);
  if (origin.includes("{{")) {
    return [
      {
        code: "URL_ORIGIN_FROM_INPUT",
        at,
        message: `the URL's scheme, host or port (\`${origin}\`) comes from the input, so a caller could send the request anywhere: ${FIX}`,
      },
    ];
  }
  if (!hasOrigin(origin)) {
    const found = origin === "" ? `\`${url}\` has none` : `not \`${origin}\``;
    return [{ code: "INVALID_VALUE", at, message: `the URL must start with an http(s) origin (\`https://host[:port]\`) or a \`\${VAR}\` base URL: ${found}` }];
  }
  return [];
}

/** A family's `egress`: each entry a bare origin (`scheme://host[:port]`, literal or with `${VAR}`s), no input. */
export function checkEgressList(egress: readonly string[] | undefined, at: Segment[]): Finding[] {
  const out: Finding[] = [];
  (egress ?? []).forEach((entry, i) => {
    const { origin, path, tail } = splitUrlTemplate(entry);
    const bad = (message: string) => out.push({ code: "EGRESS_NOT_ORIGIN", at: [...at, i], message });
    if (entry.includes("{{"))
      bad(`egress entry \`${entry}\` uses \`{{...}}\`: an allow-list cannot depend on the input; write the origin literally or as a \`\${VAR}\``);
    else if (path !== "" || tail !== "")
      bad(`egress entry \`${entry}\` is not a bare origin: drop everything after \`${origin}\` (an allow-list is scheme, host and port)`);
    else if (hasEnvRef(entry)) return;
    else if (/@/.test(entry)) bad(`egress entry \`${entry}\` carries user information: write only \`scheme://host[:port]\``);
    else if (originOf(entry) === undefined) {
      bad(`egress entry \`${entry}\` is not an origin: write \`scheme://host[:port]\` with scheme ${EGRESS_PROTOCOLS.map((p) => p.slice(0, -1)).join(" or ")}`);
    }
  });
  return out;
}

/** When the family declares `egress`, the tool's URL origin must be one of its entries (written the same way). */
export function checkUrlInEgress(url: string, egress: readonly string[] | undefined, at: Segment[]): Finding[] {
  if (egress === undefined) return [];
  const { origin } = splitUrlTemplate(url);
  if (origin.includes("{{") || !hasOrigin(origin)) return []; // reported by checkUrlOrigin
  const allowed = egress.map(normalise);
  if (allowed.includes(normalise(origin))) return [];
  const list = egress.length ? egress.map((e) => `\`${e}\``).join(", ") : "nothing (the list is empty)";
  return [
    {
      code: "EGRESS_NOT_DECLARED",
      at,
      message: `the URL's origin \`${origin}\` is not in the family's \`egress\`, which allows ${list}: add it there, or point the URL at an allowed origin`,
    },
  ];
}
