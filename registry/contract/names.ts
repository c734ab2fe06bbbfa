// Name policy shared by the build (collision checks) and the call gateway (tolerant resolution).
import { createHash } from "node:crypto";

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

/** What OpenAI and Anthropic accept as a function name; every advertised MCP name matches it too. */
export const MODEL_NAME_RE = /^[a-zA-Z0-9_-]{1,64}$/;
export const MAX_MODEL_NAME = 64;
/** Hex characters of the full name's SHA-256 that end a shortened model name. */
const MODEL_HASH_CHARS = 8;

/**
 * The model-safe projection of a full name: every character outside `[A-Za-z0-9_-]` (the dot) becomes
 * `_`; a result over 64 characters keeps its first 55 and ends with `_` and 8 hex characters of the
 * full name's SHA-256, so it stays deterministic and distinct. Case is kept. The build rejects two
 * tools with one projection, and the artifact's names.json maps it back (`git_log` is `git.log`).
 */
export function modelName(name: string): string {
  const safe = name.replace(/[^A-Za-z0-9_-]/g, "_");
  if (safe.length <= MAX_MODEL_NAME) return safe;
  const hash = createHash("sha256").update(name, "utf8").digest("hex").slice(0, MODEL_HASH_CHARS);
  return `${safe.slice(0, MAX_MODEL_NAME - MODEL_HASH_CHARS - 1)}_${hash}`;
}

/** A tool's model-safe name: the one the artifact's names.json gives it, else the projection (in-memory catalogs). */
export const modelNameOf = (t: { name: string; model_name?: string }): string => t.model_name ?? modelName(t.name);

/**
 * Keys refused anywhere in a call's arguments (the gateway answers 422), so no input_schema may name
 * them: code that copies or merges such keys (a backend, an upstream) can change what every object inherits.
 */
export const RESERVED_ARGUMENT_KEYS: readonly string[] = ["__proto__", "constructor", "prototype"];
