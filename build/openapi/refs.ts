// `$ref`s of an OpenAPI document, found without following any outside it: an imported document (a URL
// anyone may serve) must not make the importer read `file:///etc/passwd` or another host into a tool.
import { isRecord } from "../validate/finding.js";

/** `#`, `#/components/…`: a reference inside the document itself. */
export const isInternalRef = (ref: string) => ref.startsWith("#");

/** The value a `#/…` JSON pointer names in `doc`, or undefined. */
export function pointer(doc: unknown, ref: string): unknown {
  let v = doc;
  for (const seg of ref.slice(2).split("/")) {
    const key = seg.replace(/~1/g, "/").replace(/~0/g, "~");
    v = isRecord(v) && Object.hasOwn(v, key) ? v[key] : undefined;
  }
  return v;
}

/**
 * Every `$ref` reachable from `value`, following internal ones into `doc` once each; external ones are
 * listed, never followed. Iterative, so a deeply nested document cannot overflow the stack.
 */
export function reachableRefs(doc: unknown, value: unknown): string[] {
  const seen = new Set<string>();
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    // Children pushed last first, so they are visited in document order (no spread: arrays may be huge).
    if (Array.isArray(v)) for (let i = v.length - 1; i >= 0; i--) stack.push(v[i]);
    if (!isRecord(v)) continue;
    const entries = Object.entries(v);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [k, x] = entries[i]!;
      if (k !== "$ref" || typeof x !== "string") stack.push(x);
      else if (!seen.has(x)) {
        seen.add(x);
        if (x.startsWith("#/")) stack.push(pointer(doc, x));
      }
    }
  }
  return [...seen];
}
