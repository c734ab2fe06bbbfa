// One synth with real bundling (esbuild from the sources at synth, no Docker): validates the bundling
// the construct does through CDK's local bundling and the files it copies, then runs the asset CDK produced.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENDPOINT_GROUPS } from "../../infra/endpoint-groups.js";
import { httpApiV2Event } from "../helpers/lambda-events.js";
import { healthFromAsset, invokeAsset } from "./bundle-harness.js";
import { makeArtifact, synthStack, TEST_DIGEST, TEST_KEY, type Fixture } from "./stack-fixture.js";

let fixture: Fixture;
let outdir: string;
let assets: Record<keyof typeof ENDPOINT_GROUPS, string>;

beforeAll(async () => {
  fixture = await makeArtifact();
  outdir = await mkdtemp(join(tmpdir(), "toolbelt-cdkout-"));
  const briefs = join(outdir, "briefs-input.json");
  await writeFile(briefs, JSON.stringify([{ version: 1, name: "git-work", description: "Git chores", tools: ["git.*"] }]));
  const { template } = synthStack({ artifactDir: fixture.artifactDir, briefs }, { bundling: true, outdir });
  const fns = template.findResources("AWS::Lambda::Function") as Record<string, { Properties: { Description: string }; Metadata: Record<string, string> }>;
  const byDescription = (d: string) => Object.values(fns).find((f) => f.Properties.Description === d)!.Metadata["aws:asset:path"]!;
  assets = Object.fromEntries(Object.entries(ENDPOINT_GROUPS).map(([name, g]) => [name, join(outdir, byDescription(g.description))])) as typeof assets;
}, 120_000);

afterAll(async () => {
  await fixture.cleanup();
  await rm(outdir, { recursive: true, force: true });
});

describe("synth with real bundling", () => {
  it("puts exactly the ESM bundle, the artifact's four files, the policy and the briefs in each asset", () => {
    for (const dir of Object.values(assets)) {
      expect(readdirSync(dir).sort()).toEqual(["artifact", "briefs.json", "index.mjs", "policy.json"]);
      expect(readdirSync(join(dir, "artifact")).sort()).toEqual(["catalog.json", "index.json", "manifest.json", "names.json"]);
      expect(readFileSync(join(dir, "index.mjs"), "utf8").startsWith("import { createRequire")).toBe(true);
      expect(existsSync(join(dir, "index.mjs.map"))).toBe(false);
      const policy = JSON.parse(readFileSync(join(dir, "policy.json"), "utf8")) as { principals: { keys: string[] }[] };
      expect(policy.principals[0]!.keys).toEqual([TEST_DIGEST]);
      expect(readFileSync(join(dir, "index.mjs"), "utf8")).not.toContain(TEST_KEY);
    }
  });

  it("regression: gives each function the bundle of its own entry (CDK's asset cache handed every handler of lambdas/handlers/ the api bundle)", () => {
    const bundles = Object.values(assets).map((dir) => readFileSync(join(dir, "index.mjs"), "utf8"));
    expect(new Set(bundles).size).toBe(Object.keys(ENDPOINT_GROUPS).length);
  });

  it("bundles with the credential-provider aliases (the stand-ins are in each asset, the real providers are not)", () => {
    for (const dir of Object.values(assets)) {
      const code = readFileSync(join(dir, "index.mjs"), "utf8");
      // Message of lambdas/stores/aws-credential-links.ts, and two of the real ini and process providers.
      // Booleans, so that a failure does not print a whole bundle.
      expect(code.includes("is not read inside a Lambda bundle"), `${dir}: stand-in`).toBe(true);
      expect(code.includes("Could not resolve credentials using profile"), `${dir}: real ini provider`).toBe(false);
      expect(code.includes("did not contain credential_process"), `${dir}: real process provider`).toBe(false);
    }
  });

  it("produces an api asset that answers from its own folder, as Lambda runs it", async () => {
    const health = await healthFromAsset(assets.api);
    expect(health.statusCode).toBe(200);
    // The test tools' upstream (tools.example.com) is not reachable from here: degraded, and still serving.
    expect(health.json).toMatchObject({ status: expect.stringMatching(/^(ok|degraded)$/), counts: { tools: 10 } });
  });

  it("produces a console asset that serves the page to anyone and the catalog to an admin key only", async () => {
    const [page, anonymous, catalog] = await invokeAsset(assets.console, [
      httpApiV2Event({ method: "GET", path: "/console" }),
      httpApiV2Event({ method: "GET", path: "/v1/admin/catalog" }),
      httpApiV2Event({ method: "GET", path: "/v1/admin/catalog", headers: { authorization: `Bearer ${TEST_KEY}` } }),
    ]);
    expect(page!.statusCode).toBe(200);
    expect(page!.headers?.["content-security-policy"]).toContain("default-src 'none'");
    expect(page!.body).toContain("<title>Toolbelt console</title>");
    expect(anonymous!.statusCode).toBe(401);
    expect(catalog!.statusCode).toBe(200);
    expect((catalog!.json as { families: { tools: unknown[] }[] }).families.flatMap((f) => f.tools)).toHaveLength(10);
  });
});
