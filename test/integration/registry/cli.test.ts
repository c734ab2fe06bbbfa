// The registry CLI: its exit status and output formats, through `run(argv, io)` in this process,
// and once as CI runs it, a child process through tsx.
import { mkdtemp, rm, writeFile, mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { isExampleFile } from "../../helpers/example-registry.js";
import { cli, spawnCli } from "./cli-helpers.js";

const FIX = "test/fixtures/registries";
const temps: string[] = [];
afterAll(async () => {
  await Promise.all(temps.map((d) => rm(d, { recursive: true, force: true })));
});

describe("registry:check CLI", () => {
  it("runs as a process: diagnostics on stdout, exit status 1 (the npm scripts' way in)", async () => {
    const r = await spawnCli(["check", "--registry", `${FIX}/unknown-key`]);
    expect(r).toEqual({
      code: 1,
      stdout:
        "test/fixtures/registries/unknown-key/families/demo/tools.yaml:7: error UNKNOWN_KEY demo.sleep $.tools[0].timeout_sec: unknown key `timeout_sec` (did you mean `timeout_secs`?)\n1 error, 0 warnings\n",
      stderr: "",
    });
  });

  it("exits 0 on a clean registry, listing the settings its families declare", async () => {
    // Its prompt tool's role has a model: nothing to warn about.
    const r = await cli(["check", "--registry", `${FIX}/valid`], { TOOLBELT_MODELS: '{"prompt": {"provider": "bedrock", "model": "m"}}' });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.stdout).toMatchInlineSnapshot(`
      "settings the families declare (a required family without one stops npm start and synth; an optional one is left out):
        EVERYTHING_MCP_URL         everything
        EVERYTHING_TOKEN (secret)  everything
        WEATHER_API_KEY (secret)   weather
        WEATHER_TOKEN (secret)     weather
        WEATHER_URL                weather
      registry OK: 9 tools in 5 families
      "
    `);
  });

  it("warns, still exiting 0, about the model roles the registry's prompt tools ask and TOOLBELT_MODELS leaves unset", async () => {
    const unset = await cli(["check"], { TOOLBELT_MODELS: "" });
    expect(unset.code).toBe(0);
    expect(unset.stdout).toContain(
      'registry/families/writing/tools.yaml: warning MODEL_ROLE_UNSET writing.summarize $.model: model role "prompt" is unset: writing.summarize, writing.classify_support_message, writing.extract_action_items answer 503 MODEL_NOT_CONFIGURED until TOOLBELT_MODELS maps it to a model',
    );
    const set = await cli(["check"], { TOOLBELT_MODELS: JSON.stringify({ prompt: { provider: "openai", url: "http://127.0.0.1:9/v1", model: "m" } }) });
    expect(set.stdout).not.toContain("MODEL_ROLE_UNSET");
  });

  it("exits 0 with warnings when only optional families are skipped", async () => {
    const r = await cli(["check", "--registry", `${FIX}/optional-family-skipped`]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("registry OK: 1 tool in 1 family (4 warnings)");
  });

  it("exits 1 and names file, line, tool, path and code in text format", async () => {
    const r = await cli(["check", "--registry", `${FIX}/unknown-key`]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe(
      "test/fixtures/registries/unknown-key/families/demo/tools.yaml:7: error UNKNOWN_KEY demo.sleep $.tools[0].timeout_sec: unknown key `timeout_sec` (did you mean `timeout_secs`?)\n1 error, 0 warnings\n",
    );
  });

  it("writes GitHub annotations with escaped properties", async () => {
    const r = await cli(["check", "--registry", `${FIX}/affects-not-required`, "--format", "github"]);
    expect(r.code).toBe(1);
    expect(r.stdout.split("\n")).toEqual([
      "::error file=test/fixtures/registries/affects-not-required/families/demo/tools.yaml,line=7,title=AFFECTS_NOT_REQUIRED::demo.send-email $.tools[0].affects: `affects` names `to`, which the input_schema does not list in `required`",
      "::error file=test/fixtures/registries/affects-not-required/families/demo/tools.yaml,line=14,title=AFFECTS_NOT_REQUIRED::demo.charge $.tools[1].affects: `affects` names `customer`, which is not a property of the input_schema",
      "2 errors, 0 warnings",
      "",
    ]);
  });

  it("writes JSON diagnostics", async () => {
    const r = await cli(["check", "--registry", `${FIX}/impact-out-of-bounds`, "--format", "json"]);
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout) as { ok: boolean; errors: number; diagnostics: { code: string; tool: string; path: string }[] };
    expect(out.ok).toBe(false);
    expect(out.errors).toBe(2);
    expect(out.diagnostics.map((d) => [d.code, d.tool, d.path])).toEqual([
      ["IMPACT_OUT_OF_BOUNDS", "demo.wipe", "$.tools[0].impact"],
      ["IMPACT_OUT_OF_BOUNDS", "demo.nudge", "$.tools[1].impact"],
    ]);
  });

  it("answers `<command> --help` with the usage and exit 0 (it was a usage error)", async () => {
    for (const args of [["check", "--help"], ["build", "-h"], ["--help"]]) {
      const r = await cli(args);
      expect(r.code, args.join(" ")).toBe(0);
      expect(r.stdout).toContain("usage:");
    }
  });

  it("exits 2 on usage errors", async () => {
    for (const args of [["check", "--format", "xml"], ["check", "--nope"], ["frobnicate"], [], ["pull", "--family", "x"]]) {
      const r = await cli(args);
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr).toContain("usage:");
    }
  });

  it("answers malformed YAML and a missing registry with diagnostics, not a stack trace", async () => {
    const dir = await mkdtemp(join(tmpdir(), "toolbelt-cli-"));
    temps.push(dir);
    await writeFile(join(dir, "families.yaml"), "families:\n  - name: [unclosed\n\t- tab: {\n");
    const bad = await cli(["check", "--registry", dir]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/families\.yaml:\d+: error YAML_SYNTAX \$: YAML syntax: /);
    expect(bad.stdout + bad.stderr).not.toMatch(/\n\s+at /);
    const missing = await cli(["check", "--registry", join(dir, "nowhere")]);
    expect(missing.code).toBe(1);
    // A folder that is not a registry yet: the answer says how to start one.
    expect(missing.stdout).toContain(
      "error FILE_UNREADABLE $: cannot read: no such file or folder (not a registry yet? npm run registry:init -- --registry DIR starts one)",
    );
  });
});

describe("registry:schema and registry:migrate CLI", () => {
  it("schema --check passes on the committed JSON Schemas", async () => {
    const r = await cli(["schema", "--check"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("up to date: registry/schema/families.schema.json");
  });

  it("migrate --check names unversioned files and exits 1; the example registry is current", async () => {
    const old = await cli(["migrate", "--check", "--registry", `${FIX}/valid`]);
    expect(old.code).toBe(1);
    expect(old.stdout).toContain("needs migration: families/meta/tools.yaml (no version → 1)");
    // The shipped families only: a file someone added to registry/ is theirs to migrate.
    const current = await cli(["migrate", "--check"]);
    expect([...current.stdout.matchAll(/needs migration: (\S+)/g)].map((m) => m[1] ?? "").filter(isExampleFile)).toEqual([]);
    expect(current.stderr).toBe("");
  });
});

describe("build:artifact CLI", () => {
  it("writes nothing and exits 1 when the registry has errors", async () => {
    const out = await mkdtemp(join(tmpdir(), "toolbelt-art-"));
    temps.push(out);
    await mkdir(join(out, "a"));
    const r = await cli(["build", "--registry", `${FIX}/contradictory`, "--out", join(out, "a", "artifact")]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("build failed: nothing written");
    const { readdir } = await import("node:fs/promises");
    expect(await readdir(join(out, "a"))).toEqual([]);
  });

  it("builds the same bytes twice from the same registry", async () => {
    const out = await mkdtemp(join(tmpdir(), "toolbelt-art-"));
    temps.push(out);
    const a = await cli(["build", "--registry", `${FIX}/valid`, "--out", join(out, "one")]);
    const b = await cli(["build", "--registry", `${FIX}/valid`, "--out", join(out, "two")]);
    expect(a.code).toBe(0);
    expect(b.code).toBe(0);
    expect(a.stdout).toMatch(/^artifact written to .*one: 9 tools in 5 families, registry [0-9a-f]{12}\n$/);
    const { readFile, readdir } = await import("node:fs/promises");
    // built-from.json names the registry beside the artifact (never deployed): the artifact is the other four.
    const files = (await readdir(join(out, "one"))).filter((f) => f !== "built-from.json").sort();
    expect(files).toEqual(["catalog.json", "index.json", "manifest.json", "names.json"]);
    for (const f of files) expect((await readFile(join(out, "two", f))).equals(await readFile(join(out, "one", f))), f).toBe(true);
  });
});
