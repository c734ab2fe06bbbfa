// GET /v1/tools/export and POST /v1/tools/search on `npm start`'s app: only granted tools, deferred but for
// the belt, input_examples that validate, every search name in the export, none and completeness signals.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ExportAnswer, SearchAnswer } from "../../../lambdas/contract/model-apis.js";
import { createSchemaValidator } from "../../../lambdas/core/call/validate.js";
import { NONE_NOTE } from "../../../lambdas/contract/find.js";
import { globMatcher } from "../../../registry/contract/globs.js";
import { modelNameOf } from "../../../registry/contract/names.js";
import { exportOffline } from "../../../lambdas/local/export-tools.js";
import { loadConfig } from "../../../lambdas/config.js";
import { exampleArtifact } from "../../helpers/example-registry.js";
import { BRIEF, type Gateway, KEYS, NARROW, startGateway } from "./fixture.js";

let gateway: Gateway;
beforeAll(async () => {
  gateway = await startGateway();
}, 60_000);
afterAll(() => gateway?.close());

async function get<T>(path: string, key: string = KEYS.all): Promise<{ status: number; body: T }> {
  const res = await fetch(`${gateway.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
  return { status: res.status, body: (await res.json()) as T };
}
async function search(body: Record<string, unknown>, key: string = KEYS.all): Promise<{ status: number; body: SearchAnswer }> {
  const res = await fetch(`${gateway.url}/v1/tools/search`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as SearchAnswer };
}
const names = (a: ExportAnswer) => a.tools.flatMap((t) => ("name" in t ? [t.name] : []));
const QUERIES = ["current time in Tokyo", "time zone list", "convert celsius to fahrenheit", "show recent commits", "add days to a date"];

describe("a narrow principal", () => {
  const allowed = globMatcher(NARROW.allow);
  const denied = globMatcher(NARROW.deny);

  it.each(["anthropic", "openai"])("is exported only the tools it may call (%s)", async (format) => {
    const { status, body } = await get<ExportAnswer>(`/v1/tools/export?format=${format}`, KEYS.narrow);
    expect(status).toBe(200);
    const full = Object.values(body.names);
    expect(full.length).toBeGreaterThan(0);
    for (const name of full) expect(allowed(name) && !denied(name), name).toBe(true);
    expect(names(body)).not.toContain("time_zones");
    expect(names(body)).not.toContain("toolbelt_call");
  });

  it("is never found a tool it may not call, and every found name is in its export", async () => {
    const exported = new Set(names((await get<ExportAnswer>("/v1/tools/export?format=anthropic", KEYS.narrow)).body));
    for (const query of QUERIES) {
      const { body } = await search({ format: "anthropic", query, tool_use_id: "toolu_1", limit: 20 }, KEYS.narrow);
      for (const n of body.names) expect(exported.has(n), `${query}: ${n}`).toBe(true);
      expect(body.names).not.toContain("time_zones");
    }
  });
});

describe("the export", () => {
  it("defers every tool but the belt's: always-loaded alone, a brief's declared tools, a session's", async () => {
    const plain = (await get<ExportAnswer<"anthropic">>("/v1/tools/export?format=anthropic")).body;
    const loaded = (a: ExportAnswer<"anthropic">) => a.tools.filter((t) => !t.defer_loading).map((t) => t.name);
    expect(loaded(plain)).toEqual(["toolbelt_search", "toolbelt_reshape"]);
    const brief = (await get<ExportAnswer<"anthropic">>(`/v1/tools/export?format=anthropic&brief=${BRIEF.name}`)).body;
    expect(loaded(brief)).toEqual(expect.arrayContaining(["time_now", "time_convert", "convert_units"]));
    expect(loaded(brief)).not.toContain("convert_temperature");
    const opened = await fetch(`${gateway.url}/v1/sessions`, {
      method: "POST",
      headers: { authorization: `Bearer ${KEYS.all}`, "content-type": "application/json" },
      body: JSON.stringify({ brief: BRIEF.name }),
    });
    const { session } = (await opened.json()) as { session: { id: string } };
    const inSession = (await get<ExportAnswer<"anthropic">>(`/v1/tools/export?format=anthropic&session=${session.id}`)).body;
    expect(loaded(inSession).sort()).toEqual(loaded(brief).sort());
  });

  it("builds input_examples from property examples only, each valid against the tool's schema (checked with ajv)", async () => {
    const artifact = await exampleArtifact();
    const { body } = await get<ExportAnswer<"anthropic">>("/v1/tools/export?format=anthropic");
    const validator = createSchemaValidator();
    let checked = 0;
    for (const t of body.tools) {
      const tool = artifact.byName.get(body.names[t.name] ?? "");
      for (const example of t.input_examples ?? []) {
        expect(validator.check(tool!.input_schema, structuredClone(example), "output").valid, `${t.name} ${JSON.stringify(example)}`).toBe(true);
        // Never the tool-level examples (requests in words for find).
        expect(Object.values(example)).not.toEqual(expect.arrayContaining(tool!.examples ?? ["\u0000"]));
        checked++;
      }
    }
    expect(body.counts.input_examples).toBe(checked);
    expect(checked).toBeGreaterThan(50);
  });

  it("says what it changed for the API: the $schema of an imported MCP tool", async () => {
    const { body } = await get<ExportAnswer<"openai">>("/v1/tools/export?format=openai");
    expect(body.adjusted.everything_echo).toEqual(["dropped $schema"]);
    const echo = body.tools.find((t) => "name" in t && t.name === "everything_echo") as { parameters: Record<string, unknown> };
    expect(echo.parameters.$schema).toBeUndefined();
  });

  it("is what the offline CLI prints for the same grants", async () => {
    const artifact = await exampleArtifact();
    const offline = exportOffline(artifact, { format: "openai", granted: () => true, bounds: loadConfig({}).surface });
    expect((await get<ExportAnswer>("/v1/tools/export?format=openai")).body).toEqual(offline);
  });

  it("refuses a session with a brief, an unknown brief and an unknown format", async () => {
    expect((await get("/v1/tools/export?format=anthropic&brief=x&session=abcdefghijklmnopqrstuvwx")).status).toBe(400);
    expect((await get("/v1/tools/export?format=anthropic&brief=nope")).status).toBe(404);
    expect((await get("/v1/tools/export?format=gemini")).status).toBe(400);
  });
});

describe("the search", () => {
  it("answers tool_reference blocks that all load, and counts the matches it leaves out", async () => {
    const exported = new Set(names((await get<ExportAnswer>("/v1/tools/export?format=anthropic")).body));
    const { status, body } = await search({ format: "anthropic", query: "convert a time between time zones", tool_use_id: "toolu_9", limit: 2 });
    expect(status).toBe(200);
    const result = body.result as { type: string; tool_use_id: string; content: { type: string; tool_name: string }[] };
    expect(result.type).toBe("tool_result");
    expect(result.tool_use_id).toBe("toolu_9");
    expect(result.content).toHaveLength(2);
    for (const c of result.content) expect(c.type === "tool_reference" && exported.has(c.tool_name)).toBe(true);
    expect(body.more).toBe(body.matched - 2);
    expect(body.more).toBeGreaterThan(0);
    expect(body.note).toMatch(/more tools? matched/);
  });

  it("turns a none verdict into the API's empty result with a note", async () => {
    const anthropic = (await search({ format: "anthropic", query: "zzqxv flurblewomp", tool_use_id: "toolu_2" })).body;
    expect(anthropic.verdict).toBe("none");
    expect(anthropic.result).toEqual({ type: "tool_result", tool_use_id: "toolu_2", content: [{ type: "text", text: NONE_NOTE }] });
    const openai = (await search({ format: "openai", query: "zzqxv flurblewomp", call_id: "call_2" })).body;
    expect(openai.result).toEqual({ type: "tool_search_output", execution: "client", call_id: "call_2", status: "completed", tools: [] });
    expect(openai.note).toBe(NONE_NOTE);
  });

  it("loads the same definitions the export sends (OpenAI)", async () => {
    const exported: unknown[] = (await get<ExportAnswer<"openai">>("/v1/tools/export?format=openai")).body.tools;
    const { body } = await search({ format: "openai", query: "convert celsius to fahrenheit", call_id: "call_1" });
    const tools = (body.result as { tools: { name: string }[] }).tools;
    expect(tools.length).toBeGreaterThan(0);
    for (const t of tools) expect(exported).toContainEqual(t);
    expect(tools.map((t) => t.name)).toEqual(body.names);
    expect(body.names[0]).toBe(modelNameOf({ name: "convert.temperature" }));
  });

  it("needs the id of the model's search call", async () => {
    expect((await search({ format: "anthropic", query: "time" })).status).toBe(400);
    expect((await search({ format: "openai", query: "time", tool_use_id: "x" })).status).toBe(400);
  });
});
