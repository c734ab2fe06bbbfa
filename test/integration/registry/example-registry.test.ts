// The example registry that `npm start` serves must pass the same check CI runs, and build.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { buildRegistryArtifact } from "../../../build/build.js";
import { loadArtifact } from "../../../lambdas/artifact.js";
import { cli, ROOT } from "./cli-helpers.js";

const temps: string[] = [];
afterAll(async () => {
  await Promise.all(temps.map((d) => rm(d, { recursive: true, force: true })));
});

describe("example registry", () => {
  it("checks clean with the CLI (exit 0, no errors)", async () => {
    const r = await cli(["check", "--format", "json"]);
    const out = JSON.parse(r.stdout) as { errors: number; diagnostics: unknown[] };
    expect(out.diagnostics.filter((d) => (d as { severity: string }).severity === "error")).toEqual([]);
    expect(r.code).toBe(0);
  });

  it("builds an artifact the Lambdas load, with every kind and at least 8 families and 60 tools", async () => {
    const out = await mkdtemp(join(tmpdir(), "toolbelt-example-"));
    temps.push(out);
    const result = await buildRegistryArtifact(join(ROOT, "registry"), out);
    expect(result.ok).toBe(true);
    const artifact = loadArtifact(out);
    expect(artifact.manifest.counts.families).toBeGreaterThanOrEqual(8);
    expect(artifact.manifest.counts.tools).toBeGreaterThanOrEqual(60);
    const kinds = new Set(artifact.tools.map((t) => t.kind));
    for (const kind of ["http", "mcp", "exec", "builtin"]) expect(kinds, kind).toContain(kind);
    expect(artifact.byName.get("toolbelt.find")?.kind).toBe("builtin");
  });
});
