// Which find results carry schemas by default: the best few above the bar, within the answer's token
// budget, never those on the caller's belt, always a tool asked for by its exact name; without
// `examples` (complete for calling), the registry's whole schemas with schemas: "all".
import { describe, expect, it } from "vitest";
import { countTokens } from "../../../../../build/tokens.js";
import { FIND_MAX_TOKENS } from "../../../../../lambdas/contract/find.js";
import { createSchemaValidator } from "../../../../../lambdas/core/call/validate.js";
import { createFinder } from "../../../../../lambdas/core/find/index.js";
import { shape } from "../../../../../lambdas/core/find/present.js";
import { lightCost } from "../../../../../lambdas/core/find/schemas.js";
import { memoryTestArtifact, testArtifactInput, testTool } from "../../../../helpers/artifact.js";

/** An object schema of n described string fields, each with an example. */
const big = (n: number) => ({
  type: "object",
  properties: Object.fromEntries(
    Array.from({ length: n }, (_, i) => [`field_${i}`, { type: "string", description: `Field number ${i} of the huge form.`, examples: [`value ${i}`] }]),
  ),
  required: ["field_0"],
});
const others = Array.from({ length: 30 }, (_, i) => testTool(`other.thing_${i}`, { description: `Unrelated chore number ${i}.` }));
const finderOf = async (tools: ReturnType<typeof testTool>[]) =>
  createFinder(await memoryTestArtifact(testArtifactInput([...tools, ...others], { always_loaded: [] }), { countTokens: true }));
const tokens = (v: unknown) => countTokens(JSON.stringify(v));

describe("find's schemas by default", () => {
  it("regression: the largest default answer was 1,519 tokens (the best result's schema was always given): the answer stays within its budget and names what it left out", async () => {
    const f = await finderOf(["a", "b", "c"].map((v) => testTool(`huge.form_${v}`, { description: `Submit the huge tax form ${v}.`, input_schema: big(45) })));
    const r = await f.find({ query: "submit the huge tax form" });
    expect(tokens(r)).toBeLessThanOrEqual(FIND_MAX_TOKENS);
    const withSchema = r.tools.filter((t) => t.input_schema).map((t) => t.name);
    const leftOut = r.tools
      .slice(0, 3)
      .filter((t) => !t.input_schema)
      .map((t) => t.name);
    expect(withSchema.length).toBeGreaterThan(0);
    expect(leftOut.length).toBeGreaterThan(0);
    expect(r.note).toBe(
      `Input schema${leftOut.length > 1 ? "s" : ""} of ${leftOut.join(", ")} left out to keep this answer within 1,500 tokens: find a tool by its exact name (or with schemas: "all") to get its schema.`,
    );
    // Asked for, every schema comes, with its examples.
    const all = await f.find({ query: "submit the huge tax form", limit: 3, schemas: "all" });
    expect(all.tools.every((t) => JSON.stringify(t.input_schema).includes('"examples"'))).toBe(true);
    expect(all.note).toBeUndefined();
  });

  it("gives a tool asked for by its exact name its schema, whatever it costs", async () => {
    const f = await finderOf([testTool("huge.form_a", { description: "Submit the huge tax form.", input_schema: big(200) })]);
    const r = await f.find({ query: "huge.form_a" });
    expect(r.tools[0]).toMatchObject({ name: "huge.form_a", score: 1 });
    expect(Object.keys(r.tools[0]!.input_schema!.properties as object)).toHaveLength(200);
    expect(tokens(r)).toBeGreaterThan(FIND_MAX_TOKENS);
    expect(r.note).toBeUndefined();
  });

  it("leaves out the schemas of tools on the caller's belt (its surface has them) and gives the next ones theirs", async () => {
    const forms = ["a", "b", "c"].map((v) => testTool(`tax.form_${v}`, { description: `Submit the tax form ${v}.` }));
    const f = await finderOf(forms);
    const plain = await f.find({ query: "submit the tax form" });
    const first = plain.tools[0]!.name;
    expect(plain.tools.slice(0, 3).every((t) => t.input_schema)).toBe(true);
    const r = await f.find({ query: "submit the tax form" }, () => true, { onBelt: (name) => name === first });
    expect(r.tools.map((t) => t.name)).toEqual(plain.tools.map((t) => t.name));
    expect(r.tools[0]).not.toHaveProperty("input_schema");
    expect(r.tools[0]!.description).toBe(plain.tools[0]!.description);
    expect(r.tools.slice(1, 3).every((t) => t.input_schema)).toBe(true);
  });

  it("gives schemas without examples that still accept a call the registry's examples describe", async () => {
    const schema = big(5);
    const f = await finderOf([testTool("tax.form", { description: "Submit the tax form.", input_schema: schema })]);
    const shown = (await f.find({ query: "submit the tax form" })).tools[0]!.input_schema!;
    expect(JSON.stringify(shown)).not.toContain('"examples"');
    const args = { field_0: "value 0", field_3: "value 3" };
    const validator = createSchemaValidator();
    expect(validator.check(shown, args, "input").valid).toBe(true);
    expect(validator.check(schema, args, "input").valid).toBe(true);
    expect(validator.check(shown, { field_3: "x" }, "input").valid).toBe(false);
  });

  it("sizes the light answer from each tool's cached size exactly as serializing it would (explain's results and unknown tools serialized)", async () => {
    const tools = [
      testTool("tax.form", { description: "Submit the tax form — déclaration d'impôts, 税表.", input_schema: big(3) }),
      testTool("tax.list", { description: "x".repeat(400), callable: false } as Partial<ReturnType<typeof testTool>>),
      ...others.slice(0, 5),
    ];
    const byName = new Map(tools.map((t) => [t.name, t]));
    const serialized = (found: readonly object[]) =>
      Math.ceil(new TextEncoder().encode(JSON.stringify({ mode: "keyword", verdict: "match", tools: found })).length / 3.4) + 8;
    const scores = [1, 0.4, 0.1234, 1e-7, 0.99995, 0];
    const light = tools.map((t, i) => ({ ...shape(t, false), score: scores[i % scores.length]! }));
    expect(lightCost(light, byName)).toBe(serialized(light));
    expect(lightCost([], byName)).toBe(serialized([]));
    const odd = [
      { ...light[0]!, explain: [{ word: "tax", fields: ["name" as const] }] },
      { ...shape(tools[1]!, false), description: "changed", score: 0.5 },
      { score: 0.5, ...shape(tools[2]!, false) },
      { name: "not.in.catalog", model_name: "not_in_catalog", family: "not", description: "", score: 0.5 },
      light[3]!,
    ];
    expect(lightCost(odd, byName)).toBe(serialized(odd));
  });
});
