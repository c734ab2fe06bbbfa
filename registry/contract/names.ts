// Name policy shared by the build (collision checks) and the call gateway (tolerant resolution).

/** MCP-compatible tool name characters; full names are `family.verb`. */
export const TOOL_NAME_RE = /^[A-Za-z0-9_.-]{1,128}$/;
/** Family names: lower-case words joined by hyphens or underscores, no dots (the dot separates family from verb). */
export const FAMILY_NAME_RE = /^[a-z][a-z0-9_-]{0,63}$/;
/** A verb: starts with a letter, MCP-compatible characters. */
export const VERB_RE = /^[A-Za-z][A-Za-z0-9_.-]{0,126}$/;
export const MAX_TOOL_NAME = 128;
/** Meta-tools that are always on every surface (the search is never taken off the belt). */
export const META_TOOLS = ["toolbelt.find", "toolbelt.call"];

export function fullName(family: string, verb: string): string {
  return `${family}.${verb}`;
}

/** Names equal under this form collide: case and `_`/`-`/`.` separators do not distinguish tools. */
export function canonicalName(name: string): string {
  return name.toLowerCase().replace(/[-_.]+/g, "_");
}

/** The verb part of a full name (everything after the first dot). */
export function verbOf(name: string): string {
  const dot = name.indexOf(".");
  return dot < 0 ? name : name.slice(dot + 1);
}

export function familyOf(name: string): string {
  const dot = name.indexOf(".");
  return dot < 0 ? "" : name.slice(0, dot);
}
