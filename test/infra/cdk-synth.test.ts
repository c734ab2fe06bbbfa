// `npm run synth` end to end: the cdk CLI runs infra/app.ts through cdk.json, builds the example
// registry, bundles every group's function and runs cdk-nag, with no AWS credentials in the environment. The
// output folder is given relative to the app's folder, as the CLI hands it on (cdk.json's `cdk.out`).
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENDPOINT_GROUPS, PROJECT_ROOT } from "../../infra/toolbelt-gateway.js";

type Template = {
  Resources: Record<string, { Type: string; Properties: Record<string, unknown>; Metadata?: Record<string, string> }>;
  Outputs: Record<string, { Value: unknown }>;
};

let out: string;
let result: { code: number; stderr: string };

beforeAll(async () => {
  out = await mkdtemp(join(tmpdir(), "toolbelt-synth-"));
  // No AWS_* variables, no profile: synth must not need an account.
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("AWS_") && !k.startsWith("CDK_")));
  result = await new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(PROJECT_ROOT, "node_modules/aws-cdk/bin/cdk"), "synth", "--quiet", "--output", relative(PROJECT_ROOT, out)],
      { cwd: PROJECT_ROOT, env: { ...env, HOME: out }, timeout: 170_000, maxBuffer: 16 * 1024 * 1024 },
      (err, _stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stderr }),
    );
  });
}, 180_000);

afterAll(() => rm(out, { recursive: true, force: true }));

describe("npm run synth (cdk synth through cdk.json)", () => {
  it("succeeds offline with cdk-nag on, and writes the Toolbelt template", () => {
    expect(result.stderr).not.toMatch(/AwsSolutions-[A-Z]+\d+/);
    expect(result.code, result.stderr.slice(-2000)).toBe(0);
    expect(existsSync(join(out, "Toolbelt.template.json"))).toBe(true);
  });

  it("bundles the example registry's artifact into every function", () => {
    const template = JSON.parse(readFileSync(join(out, "Toolbelt.template.json"), "utf8")) as Template;
    const fns = Object.values(template.Resources).filter((r) => r.Type === "AWS::Lambda::Function");
    expect(fns).toHaveLength(Object.keys(ENDPOINT_GROUPS).length);
    const hash = Object.entries(template.Outputs).find(([k]) => k.includes("RegistryHash"))![1].Value;
    for (const fn of fns) {
      const asset = join(out, fn.Metadata!["aws:asset:path"]!);
      expect(existsSync(join(asset, "index.mjs"))).toBe(true);
      const manifest = JSON.parse(readFileSync(join(asset, "artifact/manifest.json"), "utf8")) as { registry_hash: string; counts: { tools: number } };
      expect(manifest.registry_hash).toBe(hash);
      expect(manifest.counts.tools).toBeGreaterThan(0);
    }
  });

  it("runs every function on nodejs24.x, with no runtime finding (AwsSolutions-L1, W2531) suppressed", () => {
    const text = readFileSync(join(out, "Toolbelt.template.json"), "utf8");
    const fns = Object.values((JSON.parse(text) as Template).Resources).filter((r) => r.Type === "AWS::Lambda::Function");
    expect(fns.map((fn) => fn.Properties.Runtime)).toEqual(Object.keys(ENDPOINT_GROUPS).map(() => "nodejs24.x"));
    // cdk-nag suppressions sit in the template; acknowledged validation rules in the stack's metadata.
    expect(text).not.toMatch(/AwsSolutions-L1|W2531/);
    expect(readFileSync(join(out, "Toolbelt.metadata.json"), "utf8")).not.toMatch(/AwsSolutions-L1|W2531/);
  });
});
