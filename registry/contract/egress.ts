// Where an http tool may send a request. A URL template's origin part (scheme, host, port) is written
// by the registry author, never filled from the caller's input; the build rejects templates that break
// this and the http backend checks every resolved URL against the tool's allow-list (`egress`).
// Shared by build and runtime: no dependencies.

export type UrlTemplateParts = {
  /** `https://api.example.com`, `${BASE_URL}`: everything before the first `/`, `\`, `?` or `#` after `scheme://`. */
  origin: string;
  /** From the end of the origin part to the first `?` or `#`: where input values are path segments. */
  path: string;
  /** The query and fragment, if the template writes them. */
  tail: string;
};

const SCHEME_RE = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//;
/** The schemes an http tool may use; any other URL has an opaque origin that compares as "null". */
export const EGRESS_PROTOCOLS: readonly string[] = ["http:", "https:"];

function indexOfAny(text: string, chars: string, from: number): number {
  for (let i = from; i < text.length; i++) if (chars.includes(text[i]!)) return i;
  return text.length;
}

/**
 * Splits a URL template. Neither `{{input.x}}` nor `${VAR}` can hold `/`, `?` or `#`, so a plain scan
 * finds the boundaries; `\` ends the origin too because URL parsers treat it as `/` in http URLs.
 */
export function splitUrlTemplate(template: string): UrlTemplateParts {
  const scheme = SCHEME_RE.exec(template);
  const end = indexOfAny(template, "/\\?#", scheme ? scheme[0].length : 0);
  const query = indexOfAny(template, "?#", end);
  return { origin: template.slice(0, end), path: template.slice(end, query), tail: template.slice(query) };
}

/** The default allow-list of a tool whose family declares no `egress`: the origin part of its own URL. */
export const derivedEgress = (urlTemplate: string): string[] => [splitUrlTemplate(urlTemplate).origin];

/** `http://h:8080` from a resolved origin or base URL (its path ignored); undefined unless http(s) with a host. */
export function originOf(resolved: string): string | undefined {
  let url: URL;
  try {
    url = new URL(resolved);
  } catch {
    return undefined;
  }
  return EGRESS_PROTOCOLS.includes(url.protocol) && url.host !== "" ? url.origin : undefined;
}
