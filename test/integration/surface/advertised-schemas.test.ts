// Every schema a surface or an MCP tools/list advertises (the example registry, with and without the
// code-review brief, with and without a decider) compiles with ajv, and arguments it accepts are
// accepted by the call gateway's own check of the registry's whole schema: leaving out `examples`
// (and find's decision-mode options) never makes an advertised schema promise a call that fails.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Ajv } from "ajv";
import { parse as parseYaml } from "yaml";
import { beforeAll, describe, expect, it } from "vitest";
import { countTokens } from "../../../build/tokens.js";
import type { Artifact } from "../../../lambdas/artifact.js";
import { DEFAULT_SURFACE_BOUNDS } from "../../../lambdas/config.js";
import { CallInput, ReshapeInput } from "../../../lambdas/contract/call.js";
import { FindInput } from "../../../lambdas/contract/find.js";
import { createSchemaValidator } from "../../../lambdas/core/call/validate.js";
import type { Caller } from "../../../lambdas/core/ports.js";
import { computeSurface } from "../../../lambdas/core/surface.js";
import { CALL_TOOL, CallToolInput, createToolLists, FIND_TOOL, FindToolInput } from "../../../lambdas/mcp/tools.js";
import type { JsonSchema } from "../../../registry/contract/schema-types.js";
import { BriefFile } from "../../../registry/contract/brief.js";
import { globMatcher } from "../../../registry/contract/globs.js";
import { registryArtifact } from "../../helpers/example-registry.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
let artifact: Artifact;
const brief = BriefFile.parse(parseYaml(readFileSync(`${ROOT}registry/briefs/code-review.yaml`, "utf8")));
const caller: Caller = { principal: "dev", admin: false, granted: () => true };
const validator = createSchemaValidator();

type Props = Record<string, { type?: string | string[]; examples?: unknown[]; default?: unknown; enum?: unknown[] }>;

/** Arguments a model could send from the registry's schema: each required property's example, default, enum value or a value of its type. */
function sampleArgs(schema: JsonSchema): Record<string, unknown> {
  const props = (schema.properties ?? {}) as Props;
  const out: Record<string, unknown> = {};
  for (const k of (schema.required ?? []) as string[]) {
    const p = props[k] ?? {};
    const type = Array.isArray(p.type) ? p.type[0] : p.type;
    out[k] =
      p.examples?.[0] ?? p.default ?? p.enum?.[0] ?? (type === "integer" || type === "number" ? 1 : type === "boolean" ? true : type === "object" ? {} : "x");
  }
  return out;
}

/** The meta-tools' arguments, checked by their wire contracts (what REST and MCP parse with). */
const META: Record<string, { args: Record<string, unknown>; accepts: (a: unknown) => boolean }> = {
  "toolbelt.find": { args: { query: "show recent commits", schemas: "top" }, accepts: (a) => FindInput.safeParse(a).success },
  "toolbelt.call": { args: { tool: "git.log", args: {} }, accepts: (a) => CallInput.safeParse(a).success },
  "toolbelt.reshape": { args: { data: { a: 1 }, mapping: { b: "a" } }, accepts: (a) => ReshapeInput.safeParse(a).success },
  [FIND_TOOL]: { args: { query: "show recent commits" }, accepts: (a) => FindToolInput.safeParse(a).success },
  [CALL_TOOL]: { args: { tool: "git_log", args: {} }, accepts: (a) => CallToolInput.safeParse(a).success },
};

beforeAll(async () => {
  artifact = await registryArtifact();
}, 60_000);

/** One advertised schema: it compiles, the sample validates against it, and the gateway's check of the registry's schema agrees. */
function holds(name: string, advertised: JsonSchema, compile: (s: JsonSchema) => (v: unknown) => boolean) {
  const validate = compile(advertised);
  const meta = META[name];
  const tool = artifact.byName.get(name) ?? artifact.tools.find((t) => t.model_name === name);
  const args = meta?.args ?? sampleArgs(tool!.input_schema);
  expect(validate(structuredClone(args)), `${name}: sample arguments ${JSON.stringify(args)}`).toBe(true);
  if (meta) expect(meta.accepts(args), name).toBe(true);
  else expect(validator.check(tool!.input_schema, args, "input").valid, name).toBe(true);
}

describe("advertised schemas of the example registry", () => {
  for (const decisionMode of [false, true]) {
    it(`REST surfaces (decider ${decisionMode ? "configured" : "absent"}): every tool's input schema compiles and a call it accepts passes the gateway's check`, () => {
      const isAlwaysLoaded = globMatcher(artifact.manifest.always_loaded);
      for (const declared of [[], brief.tools]) {
        const s = computeSurface({ artifact, granted: () => true, isAlwaysLoaded, declared, pins: [], bounds: DEFAULT_SURFACE_BOUNDS, decisionMode });
        expect(s.tools.length).toBeGreaterThan(declared.length ? 8 : 2);
        for (const t of s.tools) holds(t.name, t.input_schema, (schema) => (v) => validator.check(schema, v, "input").valid);
      }
    });

    it(`MCP tools/list (decider ${decisionMode ? "configured" : "absent"}): every input and output schema compiles as draft-07, and a call its input schema accepts passes`, () => {
      const ajv = new Ajv({ strict: false });
      const lists = createToolLists(artifact.tools, globMatcher(artifact.manifest.always_loaded), { decisionMode });
      for (const b of [undefined, brief]) {
        const list = lists.list(caller, b);
        expect(list.length).toBeGreaterThan(2);
        for (const t of list) {
          if (t.outputSchema) expect(() => ajv.compile(t.outputSchema!), `${t.name} output`).not.toThrow();
          holds(t.name, t.inputSchema, (schema) => {
            const fn = ajv.compile(schema);
            return (v) => fn(v) === true;
          });
        }
      }
    });
  }
});

describe("the example registry's surface with the code-review brief (8 declared tools)", () => {
  it("regression: it was 1,652 o200k tokens with find's decision-mode options on every surface; it stays within the 1,500 budget", () => {
    const isAlwaysLoaded = globMatcher(artifact.manifest.always_loaded);
    const s = computeSurface({ artifact, granted: () => true, isAlwaysLoaded, declared: brief.tools, pins: [], bounds: DEFAULT_SURFACE_BOUNDS });
    expect(s.tools.filter((t) => t.on_belt === "declared")).toHaveLength(8);
    const served = countTokens(JSON.stringify({ tools: s.tools.map(({ on_belt: _, ...rest }) => rest), manifest: s.manifest }));
    expect(served).toBeLessThanOrEqual(DEFAULT_SURFACE_BOUNDS.maxTokens);
  });
});
