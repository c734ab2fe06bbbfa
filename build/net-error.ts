// Why a request failed, in words: `fetch failed` alone names neither the cause nor what to fix.

const HINTS: Record<string, string> = {
  ECONNREFUSED: "connection refused: is the server running, and on that port?",
  ENOTFOUND: "host not found: check the host name",
  EAI_AGAIN: "the host name could not be resolved right now: check the network and retry",
  ECONNRESET: "the connection was reset by the server",
  ETIMEDOUT: "the connection timed out",
  UND_ERR_CONNECT_TIMEOUT: "the connection timed out",
  CERT_HAS_EXPIRED: "the server's TLS certificate has expired",
  DEPTH_ZERO_SELF_SIGNED_CERT: "the server's TLS certificate is self-signed",
};

/** The innermost cause of an error chain with its code, e.g. `ECONNREFUSED (connection refused: …)`. */
export function networkCause(e: unknown): string {
  const chain: unknown[] = [];
  for (let c: unknown = e; c !== undefined && c !== null && chain.length < 8; c = (c as { cause?: unknown }).cause) chain.push(c);
  for (const c of [...chain].reverse()) {
    const code = (c as { code?: unknown }).code;
    if (typeof code !== "string") continue;
    const message = String((c as Error).message ?? "");
    return HINTS[code] ? `${code} (${HINTS[code]})` : message.includes(code) ? message : `${code}: ${message}`.replace(/: $/, "");
  }
  const last = chain[chain.length - 1];
  return last instanceof Error ? last.message : String(last);
}
