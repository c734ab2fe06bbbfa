// Text from registries and upstreams made safe to print or embed: control and bidi characters become
// visible `\uXXXX` escapes, so a hostile name cannot move a terminal's cursor, hide text or reorder a line.

/** C0 controls but tab and newline, DEL, C1 controls, and the bidi marks, embeddings, overrides and isolates. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const UNSAFE_TEXT = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
/** The same and newline: one line of output stays one line. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const UNSAFE_LINE = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

const escaped = (ch: string) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`;

/**
 * `text` with every unsafe character escaped; tab kept, newline kept only when `multiline`. The escapes
 * are JSON's, so applied to JSON text they keep it valid and decode back to the original characters.
 */
export function printable(text: string, opts: { multiline?: boolean } = {}): string {
  return text.replace(opts.multiline ? UNSAFE_TEXT : UNSAFE_LINE, escaped);
}
