// Reading an upstream's answer (an http tool's, a model's) with a ceiling: past it the body is
// cancelled and refused, so one oversized answer cannot take the gateway's memory.

/** The largest answer read from any upstream unless a caller says otherwise. */
export const DEFAULT_MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

/** The body as UTF-8 text, or `tooLarge()` thrown as soon as it (or its declared length) exceeds `max` bytes. */
export async function readCapped(res: Response, max: number, tooLarge: () => Error): Promise<string> {
  if (!res.body) return "";
  // A declared length over the cap is refused before a byte is read.
  if (Number(res.headers.get("content-length") ?? 0) > max) {
    await res.body.cancel().catch(() => undefined);
    throw tooLarge();
  }
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}
