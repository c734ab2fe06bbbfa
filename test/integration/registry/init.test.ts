// registry:init (issue #10): a new registry to edit into your own, one family of each tool kind,
// which the check accepts and the build turns into an artifact.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadRegistry } from "../../../build/load.js";
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

  it("refuses a directory that already has files", async () => {
    const dir = mkdtempSync(join(tmpdir(), "toolbelt-init-full-"));
    writeFileSync(join(dir, "families.yaml"), "families: []\n");
    const r = await cli(["init", "--registry", dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("is not empty");
  });
});
