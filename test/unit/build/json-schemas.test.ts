// The published JSON Schemas are generated from the zod schemas and must match what is committed.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { renderJsonSchemas } from "../../../build/json-schemas.js";
import { fixture } from "./helpers.js";

const committed = (file: string) => readFileSync(fileURLToPath(new URL(`../../../registry/schema/${file}`, import.meta.url)), "utf8");

describe("published JSON Schemas", () => {
  const rendered = renderJsonSchemas();

  it("are up to date with the zod schemas (run `npm run registry:schema` when this fails)", () => {
    for (const [file, text] of Object.entries(rendered)) expect(committed(file), file).toBe(text);
  });

  it("let an editor validate registry files: valid files pass, an unknown key fails", () => {
    const ajv = new Ajv2020({ strict: false });
    const tools = ajv.compile(JSON.parse(rendered["tools.schema.json"]!) as object);
    const families = ajv.compile(JSON.parse(rendered["families.schema.json"]!) as object);
    const yaml = (p: string) => parse(readFileSync(`${fixture("valid")}/${p}`, "utf8")) as unknown;
    expect(families(yaml("families.yaml"))).toBe(true);
    expect(tools(yaml("families/weather/tools.yaml"))).toBe(true);
    expect(tools(yaml("families/meta/tools.yaml"))).toBe(true);
    expect(tools(parse(readFileSync(`${fixture("unknown-key")}/families/demo/tools.yaml`, "utf8")))).toBe(false);
  });
});
