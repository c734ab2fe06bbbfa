// The example CDK app outside the repository's stack (examples/cdk-app) synthesized the way a user's app
// runs: the package built (`buildPackage`, as `npm run build:package`), packed with `npm pack`, unpacked
// into the app's node_modules/toolbelt, and imported as the README shows (`toolbelt/infra`, the compiled
// entry). The app's node_modules holds only the package's declared dependencies and the app's own, linked
// from this clone's node_modules (no network): an undeclared import fails here as it would for a user.
import { execFile } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Match, Template } from "aws-cdk-lib/assertions";
import { buildPackage, PACKAGE_CODE_DIR } from "../../infra/package-build.js";
import { PROJECT_ROOT } from "../../infra/toolbelt-gateway.js";
import { healthFromAsset } from "./bundle-harness.js";

const run = promisify(execFile);
const EXAMPLE = join(PROJECT_ROOT, "examples/cdk-app");
type Manifest = { dependencies?: Record<string, string>; devDependencies?: Record<string, string> };
const readJson = <T>(file: string) => JSON.parse(readFileSync(file, "utf8")) as T;

let tmp: string;
let app: string;
let out: string;
let template: Template;
let warnings: string[];
// biome-ignore lint/suspicious/noExplicitAny: CloudFormation JSON, read loosely.
let resources: Record<string, { Type: string; Properties: Record<string, any>; Metadata?: Record<string, string> }>;

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), "toolbelt-example-"));
  const pkg = join(tmp, "toolbelt");
  await buildPackage(pkg);
  for (const f of ["package.json", "README.md", "LICENSE"]) cpSync(join(PROJECT_ROOT, f), join(pkg, f));
  const { stdout } = await run("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", tmp], { cwd: pkg });
  const tarball = join(tmp, (JSON.parse(stdout) as { filename: string }[])[0]!.filename);

  app = join(tmp, "app");
  cpSync(EXAMPLE, app, { recursive: true, filter: (f) => !f.includes("node_modules") && !f.includes("cdk.out") });
  const installed = join(app, "node_modules/toolbelt");
  mkdirSync(installed, { recursive: true });
  await run("tar", ["-xzf", tarball, "--strip-components=1", "-C", installed]);
  const own = readJson<Manifest>(join(app, "package.json"));
  const deps = new Set([
    ...Object.keys(readJson<Manifest>(join(PROJECT_ROOT, "package.json")).dependencies ?? {}),
    ...Object.keys({ ...own.dependencies, ...own.devDependencies }),
  ]);
  deps.delete("toolbelt");
  for (const name of deps) {
    mkdirSync(dirname(join(app, "node_modules", name)), { recursive: true });
    symlinkSync(join(PROJECT_ROOT, "node_modules", name), join(app, "node_modules", name), "dir");
  }

  // What `cdk synth` runs (cdk.json's app), writing the cloud assembly where the CLI would tell it to.
  out = join(tmp, "cdk.out");
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("AWS_") && !k.startsWith("CDK_")));
  // The CLI also asks for asset metadata (each function's asset folder).
  const context = JSON.stringify({ "aws:cdk:enable-asset-metadata": true });
  await run(process.execPath, ["--import", "tsx", "app.ts"], {
    cwd: app,
    env: { ...env, CDK_OUTDIR: out, CDK_CONTEXT_JSON: context },
    maxBuffer: 16 * 1024 * 1024,
  });
  const json = readJson<{ Resources: typeof resources }>(join(out, "Agents.template.json"));
  resources = json.Resources;
  template = Template.fromJSON(json);
  // The stack's annotations, in the file the cloud assembly's manifest names for them.
  const assembly = readJson<{ artifacts: Record<string, { additionalMetadataFile?: string }> }>(join(out, "manifest.json"));
  const metadata = readJson<Record<string, { type: string; data: unknown }[]>>(join(out, assembly.artifacts.Agents!.additionalMetadataFile!));
  warnings = Object.values(metadata)
    .flat()
    .filter((m) => m.type === "aws:cdk:warning")
    .map((m) => String(m.data));
  // A package build, a pack and a synth: about 20 s of CPU, minutes on a loaded 2-core machine (timeouts catch hangs).
}, 400_000);

afterAll(() => rm(tmp, { recursive: true, force: true }));

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

  it("type-checks against the package's declarations (tsc on the app, as `npm run typecheck` there)", async () => {
    await expect(run(process.execPath, [join(app, "node_modules/typescript/bin/tsc"), "-p", app], { cwd: app })).resolves.toMatchObject({ stdout: "" });
  });

  it("synthesizes the gateway: three functions with the app's settings, traced, on arm64, with the table and the API", () => {
    expect(functions()).toHaveLength(3);
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
    const bundles = new Set(["api", "call", "mcp"].map((n) => prebuilt(n).toString("base64")));
    for (const fn of functions()) {
      const dir = assetOf(fn);
      expect(readdirSync(dir).sort()).toEqual(["artifact", "index.mjs", "policy.json"]);
      expect(bundles.has(readFileSync(join(dir, "index.mjs")).toString("base64"))).toBe(true);
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
    expect(health.json).toMatchObject({ status: "ok", counts: { families: 2 } });
  });
});
