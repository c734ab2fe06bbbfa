// The README's "API in one page" is held to the contract: each route's request and answer fields
// (optional ones marked `?`, nested objects and arrays of objects too) and the limits it states.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { AdminSessionResponse, AuditListResponse, AuditStatsResponse, CatalogResponse } from "../../../../lambdas/contract/admin.js";
import { CALL_LIMITS, CallBody, CallResponse } from "../../../../lambdas/contract/call.js";
import { FIND_LIMITS, FindBody, FindResponse } from "../../../../lambdas/contract/find.js";
import { jsonSchema } from "../../../../lambdas/contract/schema.js";
import { OpenSessionBody, SessionResponse } from "../../../../lambdas/contract/sessions.js";
import type * as z from "../../../../lambdas/core/zod-mini.js";

const readme = readFileSync("docs/api.md", "utf8");
const page = readme.slice(readme.indexOf("## The API in one page"), readme.indexOf("\n## ", readme.indexOf("## The API in one page") + 1));

const CONTRACT: Record<string, { request?: z.ZodMiniType; answer: z.ZodMiniType }> = {
  "POST /v1/find": { request: FindBody, answer: FindResponse },
  "POST /v1/sessions": { request: OpenSessionBody, answer: SessionResponse },
  "GET /v1/sessions/{id}/surface": { answer: SessionResponse },
  "POST /v1/call": { request: CallBody, answer: CallResponse },
  // The console's data routes (their query parameters are listed in the path, as the page writes them).
  "GET /v1/admin/catalog": { answer: CatalogResponse },
  "GET /v1/admin/sessions/{id}": { answer: AdminSessionResponse },
  "GET /v1/admin/audit?since=<ISO>&principal=&tool=&family=&outcome=&limit=&cursor=": { answer: AuditListResponse },
  "GET /v1/admin/audit/stats?minutes=60": { answer: AuditStatsResponse },
};

/** `{a, b?, c: [{d}], e: {f}}` → the fields at each level, optional ones with `?`, as sorted strings. */
function fieldsOf(text: string, prefix = ""): string[] {
  const inner = text.trim().replace(/^\{/, "").replace(/\}$/, "");
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < inner.length; i++) {
    const ch = inner[i];
    if (ch === "{" || ch === "[") depth++;
    else if (ch === "}" || ch === "]") depth--;
    else if (ch === "," && depth === 0) {
      parts.push(inner.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(inner.slice(start));
  return parts.flatMap((part) => {
    const [, key, optional, value] = /^\s*(\w+)(\?)?\s*(?::\s*([\s\S]*))?$/.exec(part) ?? [];
    if (!key) throw new Error(`cannot read ${JSON.stringify(part)} in the README`);
    const nested = value?.trim().replace(/^\[/, "").replace(/\]$/, "").trim();
    const own = `${prefix}${key}${optional ?? ""}`;
    return nested?.startsWith("{") ? [own, ...fieldsOf(nested, `${prefix}${key}.`)] : [own];
  });
}

/** The same listing from a JSON Schema, for the fields the README spells out (`only`: its nesting). */
function fieldsOfSchema(schema: Record<string, unknown>, only: string[], prefix = ""): string[] {
  const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const required = new Set((schema.required ?? []) as string[]);
  return Object.entries(properties).flatMap(([key, sub]) => {
    const own = `${prefix}${key}${required.has(key) ? "" : "?"}`;
    const path = `${prefix}${key}.`;
    if (!only.some((f) => f.startsWith(path))) return [own];
    const object = (sub.type === "array" ? sub.items : sub) as Record<string, unknown>;
    return [own, ...fieldsOfSchema(object, only, path)];
  });
}

const routes = [...page.matchAll(/`(GET|POST) (\/v1\/[^\s`]+)(?: (\{[^`]*\}))?` → `(\{[^`]*\})`/g)].map(([, method, path, request, answer]) => ({
  route: `${method} ${path}`,
  request,
  answer: answer!,
}));

describe("README: the API in one page", () => {
  it("lists every route with a body or an answer of its own", () => {
    expect(routes.map((r) => r.route).sort()).toEqual(Object.keys(CONTRACT).sort());
  });

  it.each(routes.map((r) => [r.route, r] as const))("%s: the request and answer fields are the contract's", (route, { request, answer }) => {
    const contract = CONTRACT[route]!;
    if (contract.request) {
      const listed = fieldsOf(request ?? "{}");
      expect(listed.sort()).toEqual(fieldsOfSchema(jsonSchema(contract.request, "input"), listed).sort());
    } else expect(request).toBeUndefined();
    const listed = fieldsOf(answer);
    expect(listed.sort()).toEqual(fieldsOfSchema(jsonSchema(contract.answer, "output"), listed).sort());
  });

  it("states the contract's limits", () => {
    expect(page).toContain(`\`query\` ≤ ${FIND_LIMITS.queryChars.toLocaleString("en")} characters, \`limit\` ≤ ${FIND_LIMITS.maxResults}`);
    expect(page).toContain(`(default ${FIND_LIMITS.defaultResults})`);
    expect(page).toContain(`\`chunk_size\` 1–${FIND_LIMITS.maxChunkSize}`);
    expect(page).toContain(`\`tool\` ≤ ${CALL_LIMITS.toolChars}`);
  });
});
