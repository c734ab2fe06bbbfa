// printable: no control or bidi character survives, safe text is untouched, and on JSON text the escapes
// keep it valid and decode back to the original data.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { printable } from "../../../../registry/contract/printable.js";

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const CONTROLS = [0x00, 0x07, 0x08, 0x0a, 0x0d, 0x1b, 0x7f, 0x85, 0x9b, 0x061c, 0x200e, 0x200f, 0x202a, 0x202e, 0x2066, 0x2069];
/** Strings where control and bidi characters are common, among ordinary and astral ones. */
const hostile = fc
  .array(fc.oneof(fc.string({ unit: "grapheme", maxLength: 3 }), fc.constantFrom(...CONTROLS.map((c) => String.fromCharCode(c))), fc.constant("\t")), {
    maxLength: 30,
  })
  .map((parts) => parts.join(""));

describe("printable", () => {
  it("leaves no unsafe character, and no newline in line mode", () => {
    fc.assert(
      fc.property(hostile, (s) => {
        expect(printable(s)).not.toMatch(UNSAFE);
        expect(printable(s)).not.toContain("\n");
        expect(printable(s, { multiline: true })).not.toMatch(UNSAFE);
      }),
    );
  });

  it("is the identity on safe text, so applying it twice changes nothing", () => {
    fc.assert(
      fc.property(hostile, (s) => {
        const once = printable(s, { multiline: true });
        expect(printable(once, { multiline: true })).toBe(once);
        if (!UNSAFE.test(s)) expect(once).toBe(s);
      }),
    );
  });

  it("keeps JSON text valid and equal to the original data", () => {
    fc.assert(
      fc.property(fc.dictionary(hostile, hostile, { maxKeys: 4 }), (data) => {
        const text = printable(JSON.stringify(data, null, 2), { multiline: true });
        expect(text).not.toMatch(UNSAFE);
        expect(JSON.parse(text)).toEqual(data);
      }),
    );
  });

  it("escapes as JSON does", () => {
    expect(printable("a\u001b[31mb\u202ec\nd\te")).toBe("a\\u001b[31mb\\u202ec\\u000ad\te");
    expect(printable("a\r\nb", { multiline: true })).toBe("a\\u000d\nb");
  });
});
