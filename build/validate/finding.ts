// What a validator reports: a code, a path relative to the thing validated, and words that say what to fix.
import type { Diagnostic, RegistryCode } from "../../registry/contract/diagnostics.js";

export type Segment = string | number;

export type Finding = {
  code: RegistryCode;
  severity?: Diagnostic["severity"];
  /** Path segments relative to the validated object (a tool, a family entry). */
  at: Segment[];
  message: string;
};

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `$.tools[2].input_schema` from `["tools", 2, "input_schema"]`. */
export function jsonPath(segments: readonly Segment[]): string {
  let out = "$";
  for (const s of segments) {
    if (typeof s === "number") out += `[${s}]`;
    else if (IDENT.test(s)) out += `.${s}`;
    else out += `[${JSON.stringify(s)}]`;
  }
  return out;
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
