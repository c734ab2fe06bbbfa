// The example CDK app outside the repository's stack (examples/cdk-app), following its README in a copy
// outside the repository: the package built (`buildPackage`, as `npm run build:package`) and packed with
// `npm pack` beside a copy of examples/cdk-app laid out as in the clone (its package.json names
// ../../toolbelt-0.1.0.tgz), then `npm install`, `npm run typecheck` and `npm run synth` there: the real
// cdk CLI, which hands the app its relative outdir (cdk.out). The install runs offline from the npm cache
// (example-app-install.ts locks the clone's versions); an undeclared import fails here as for a user.
import { execFile } from "node:child_process";
import { cpSync, existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join, relative, sep } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Match, Template } from "aws-cdk-lib/assertions";
import { buildPackage, PACKAGE_CODE_DIR } from "../../infra/package-build.js";
import { ENDPOINT_GROUPS, PROJECT_ROOT } from "../../infra/toolbelt-gateway.js";
import { healthFromAsset } from "./bundle-harness.js";
import { writeExampleLockfile } from "./example-app-install.js";

const run = promisify(execFile);
const EXAMPLE = join(PROJECT_ROOT, "examples/cdk-app");
const readJson = <T>(file: string) => JSON.parse(readFileSync(file, "utf8")) as T;

let tmp: string;
let app: string;
let out: string;
let template: Template;
let metadataText: string;
let warnings: string[];
const seconds: Record<string, number> = {};
// biome-ignore lint/suspicious/noExplicitAny: CloudFormation JSON, read loosely.
let resources: Record<string, { Type: string; Properties: Record<string, any>; Metadata?: Record<string, string> }>;

/** Runs `file args` in the app's folder, timed under `name`, without AWS_ or CDK_ variables (synth needs no account). */
async function step(name: string, file: string, args: string[]): Promise<{ stdout: string; stderr: string }> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("AWS_") && !k.startsWith("CDK_")));
  const started = performance.now();
  try {
    return await run(file, args, { cwd: app, env, maxBuffer: 16 * 1024 * 1024 });
  } catch (err) {
    const { stdout = "", stderr = "" } = err as { stdout?: string; stderr?: string };
    throw new Error(`${name} failed in ${app}:\n${`${stdout}${stderr}`.trim().slice(-3000)}`);
  } finally {
    seconds[name] = Math.round(performance.now() - started) / 1000;
  }
}

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), "toolbelt-example-"));
  // In the Toolbelt clone: `npm run build:package && npm pack` (the tarball at the clone's root).
  const pkg = join(tmp, "toolbelt");
  let started = performance.now();
  await buildPackage(pkg);
  for (const f of ["package.json", "README.md", "LICENSE"]) cpSync(join(PROJECT_ROOT, f), join(pkg, f));
  const { stdout } = await run("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", tmp], { cwd: pkg });
  const tarball = join(tmp, (JSON.parse(stdout) as { filename: string }[])[0]!.filename);
  seconds["build:package and pack"] = Math.round(performance.now() - started) / 1000;

  // The example, where the clone keeps it relative to the tarball; then the README's commands there.
  app = join(tmp, "examples/cdk-app");
  cpSync(EXAMPLE, app, {
    recursive: true,
    filter: (f) =>
      !relative(EXAMPLE, f)
        .split(sep)
        .some((p) => p === "node_modules" || p === "cdk.out"),
  });
  started = performance.now();
  writeExampleLockfile(app, tarball, PROJECT_ROOT);
  seconds.lockfile = Math.round(performance.now() - started) / 1000;
  await step("npm install", "npm", ["install", "--offline", "--no-audit", "--no-fund"]);
  await step("npm run synth", "npm", ["run", "synth"]);

  out = join(app, "cdk.out");
  const json = readJson<{ Resources: typeof resources }>(join(out, "Agents.template.json"));
  resources = json.Resources;
  template = Template.fromJSON(json);
  // The stack's annotations, in the file the cloud assembly's manifest names for them.
  const assembly = readJson<{ artifacts: Record<string, { additionalMetadataFile?: string }> }>(join(out, "manifest.json"));
  metadataText = readFileSync(join(out, assembly.artifacts.Agents!.additionalMetadataFile!), "utf8");
  warnings = Object.values(JSON.parse(metadataText) as Record<string, { type: string; data: unknown }[]>)
    .flat()
    .filter((m) => m.type === "aws:cdk:warning")
    .map((m) => String(m.data));
  // A package build, a pack, an install and a synth: under a minute alone, minutes on a loaded 2-core machine (timeouts catch hangs).
}, 400_000);

afterAll(async () => {
  // The setup's steps timed, for the reader of a slow run (the npm install is most of it).
  process.stdout.write(
    `example app: ${Object.entries(seconds)
      .map(([k, v]) => `${k} ${v} s`)
      .join(", ")}\n`,
  );
  await rm(tmp, { recursive: true, force: true });
});

const functions = () => Object.values(resources).filter((r) => r.Type === "AWS::Lambda::Function");
const assetOf = (fn: { Metadata?: Record<string, string> }) => join(out, fn.Metadata!["aws:asset:path"]!);

describe("the example CDK app, with the construct installed as a package", () => {
  it("imports the compiled entry: the installed package holds JavaScript and declarations, no TypeScript source", () => {
    const installed = join(app, "node_modules/toolbelt");
    expect(readJson<{ exports: Record<string, unknown> }>(join(installed, "package.json")).exports["./infra"]).toBeDefined();
    expect(existsSync(join(installed, PACKAGE_CODE_DIR, "infra/toolbelt-gateway.js"))).toBe(true);
    expect(existsSync(join(installed, PACKAGE_CODE_DIR, "infra/toolbelt-gateway.d.ts"))).toBe(true);
    const files = readdirSync(installed, { recursive: true }).map(String);
    expect(files.filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"))).toEqual([]);
  });

  it("type-checks against the package's declarations (`npm run typecheck` there)", async () => {
    await expect(step("npm run typecheck", "npm", ["run", "typecheck"])).resolves.toBeDefined();
  });

  // The CLI hands the app `cdk.out`, relative: staged files and the registry's build land there, not in the package.
  it("synthesizes with the CLI's relative outdir, building the registry into the app's cdk.out", () => {
    expect(existsSync(join(out, "toolbelt-staging"))).toBe(true);
    expect(existsSync(join(app, "node_modules/toolbelt", PACKAGE_CODE_DIR, "cdk.out"))).toBe(false);
  });

  it("runs every function on nodejs24.x, with no runtime finding (AwsSolutions-L1, W2531) suppressed", () => {
    expect(functions().map((fn) => fn.Properties.Runtime)).toEqual(Object.keys(ENDPOINT_GROUPS).map(() => "nodejs24.x"));
    expect(JSON.stringify(template.toJSON())).not.toMatch(/AwsSolutions-L1|W2531/);
    expect(metadataText).not.toMatch(/AwsSolutions-L1|W2531/);
  });

  it("synthesizes the gateway: a function per endpoint group with the app's settings, traced, on arm64, with the table and the API", () => {
    expect(functions()).toHaveLength(Object.keys(ENDPOINT_GROUPS).length);
    template.resourceCountIs("AWS::DynamoDB::Table", 1);
    template.resourceCountIs("AWS::ApiGatewayV2::Api", 1);
    for (const fn of functions()) {
      expect(fn.Properties.TracingConfig).toEqual({ Mode: "Active" });
      expect(fn.Properties.Architectures).toEqual(["arm64"]);
      expect(fn.Properties.Handler).toBe("index.handler");
      expect(fn.Properties.Environment.Variables).toMatchObject({ WEATHER_API_URL: "https://weather.example.com" });
    }
    template.hasResourceProperties("AWS::IAM::Policy", {
      PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({ Action: "ssm:GetParameter", Resource: Match.anyValue() })]) },
    });
    // The call timeout follows the weather tool's 10 s (the builtin reshape waits on nothing): no warning.
    template.hasResourceProperties("AWS::Lambda::Function", { Description: Match.stringLikeRegexp("call gateway"), Timeout: 13 });
    expect(warnings.filter((w) => w.includes("tool-timeout"))).toEqual([]);
    template.hasOutput("ToolsUrl", { Value: Match.anyValue() });
  });

  it("ships the package's prebuilt bundles (no esbuild at the user's synth) with the registry built at synth beside them", () => {
    const prebuilt = (name: string) => readFileSync(join(app, "node_modules/toolbelt", PACKAGE_CODE_DIR, "bundles", name, "index.mjs"));
    // Each function gets its own group's bundle.
    for (const group of Object.values(ENDPOINT_GROUPS)) {
      const dir = assetOf(functions().find((f) => f.Properties.Description === group.description)!);
      expect(readdirSync(dir).sort()).toEqual(["artifact", "index.mjs", "policy.json"]);
      expect(readFileSync(join(dir, "index.mjs")).equals(prebuilt(basename(group.entry, ".ts"))), group.entry).toBe(true);
    }
  });

  it("leaves out the optional family whose settings the app does not provide, and says so", () => {
    expect(warnings.filter((w) => w.includes("optional family `everything` lacks EVERYTHING_MCP_URL"))).toHaveLength(1);
    const manifest = readJson<{ skipped_families: string[]; counts: { families: number } }>(join(assetOf(functions()[0]!), "artifact/manifest.json"));
    expect(manifest.skipped_families).toEqual(["everything"]);
    expect(manifest.counts.families).toBe(2);
  });

  it("produces an api asset that answers from its own folder, as Lambda runs it", async () => {
    const health = await healthFromAsset(assetOf(functions().find((f) => f.Properties.Description.includes("find"))!));
    expect(health.statusCode).toBe(200);
    // Its upstream (weather.example.com) is not reachable from here: degraded, and still serving.
    expect(health.json).toMatchObject({ status: expect.stringMatching(/^(ok|degraded)$/), counts: { families: 2 } });
  });
});
