// registry:init (issue #10): a new registry to edit into your own, one family of each tool kind,
// which the check accepts and the build turns into an artifact.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadRegistry } from "../../../build/load.js";
import { reshape } from "../../../lambdas/backends/builtin.js";
import { metaToolDefinition } from "../../../lambdas/contract/meta-tools.js";
import { CONVENTION_CODES } from "../../../build/validate/conventions.js";
import { TOOL_KINDS } from "../../../registry/contract/tool.js";
import { cli } from "./cli-helpers.js";

describe("registry:init", () => {
  it("starts a registry with one family of each kind that checks without a problem", async () => {
    const dir = join(mkdtempSync(join(tmpdir(), "toolbelt-init-")), "mine");
    const r = await cli(["init", "--registry", dir]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("families.yaml");
    // The settings of the required http family: npm start stops without them, so the next step names them.
    expect(r.stdout).toContain(`then WEATHER_API_KEY=… WEATHER_API_URL=… npm start -- --registry ${dir}`);
    const reg = await loadRegistry(dir);
    // Warnings about settings a deployment provides (unset model roles) are fine; errors and conventions the template breaks are not.
    expect(reg.diagnostics.filter((d) => d.severity === "error" || CONVENTION_CODES.includes(d.code) || d.code === "DESCRIPTION_NOT_ONE_SENTENCE")).toEqual([]);
    expect(new Set(reg.catalog.tools.map((t) => t.backend.kind))).toEqual(new Set(TOOL_KINDS));
    expect(reg.briefs.map((b) => b.name)).toEqual(["starter"]);
  });

  it("reshape tool of the template takes the handler's arguments (it advertised value and expression, and every call was refused)", async () => {
    const reg = await loadRegistry(join(import.meta.dirname, "../../../build/template"));
    const tool = reg.catalog.tools.find((t) => t.backend.kind === "builtin" && t.backend.handler === "reshape")!;
    const schema = tool.input_schema as { required: string[]; properties: Record<string, { examples: unknown[] }> };
    expect(schema.required).toEqual(metaToolDefinition("toolbelt.reshape").input_schema.required);
    // What an agent sends from the advertised examples is what the handler answers.
    const args = Object.fromEntries(Object.entries(schema.properties).map(([k, p]) => [k, p.examples[0]]));
    expect(reshape(args, tool.name)).toEqual({ b: 1 });
  });

  it("refuses a directory that already has files", async () => {
    const dir = mkdtempSync(join(tmpdir(), "toolbelt-init-full-"));
    writeFileSync(join(dir, "families.yaml"), "families: []\n");
    const r = await cli(["init", "--registry", dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("is not empty");
  });
});
