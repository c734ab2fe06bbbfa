// Builds the Toolbelt stack for template tests: a small artifact in a temp dir, a policy with one
// key digest, and bundling skipped (context `aws:cdk:bundling-stacks: []`) so synth takes milliseconds.
import { createHash } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { App } from "aws-cdk-lib";
import { Template } from "aws-cdk-lib/assertions";
import type { CatalogTool } from "../../registry/contract/artifact.js";
import type { PolicyFile } from "../../registry/contract/policy.js";
import { ToolbeltStack, type ToolbeltStackProps } from "../../infra/stack.js";
import type { ToolbeltGatewayProps } from "../../infra/toolbelt-gateway.js";
import { buildTestArtifact, defaultTestTools, testArtifactInput } from "../helpers/artifact.js";

export const TEST_KEY = "test-key-for-the-template";
export const TEST_DIGEST = createHash("sha256").update(TEST_KEY).digest("hex");
export const TEST_POLICY: PolicyFile = {
  version: 1,
  principals: [{ id: "agent", keys: [TEST_DIGEST], allow: ["*"], deny: [], admin: true }],
};

export type Fixture = { artifactDir: string; cleanup(): Promise<void> };

/** The default test tools as a deployment has them: each one callable (an http backend), as registry tools are. */
export function callableTestTools(): CatalogTool[] {
  return defaultTestTools().map((t) => ({
    ...t,
    kind: "http",
    backend: { kind: "http", method: "POST", url: `https://tools.example.com/${t.name}`, output: "json" },
  }));
}

/** A temp artifact; `timeoutMs` sets every tool's timeout (the call group's timeout follows it). */
export async function makeArtifact(opts: { timeoutMs?: number; tools?: CatalogTool[] } = {}): Promise<Fixture> {
  const dir = await mkdtemp(join(tmpdir(), "toolbelt-infra-"));
  const tools = (opts.tools ?? callableTestTools()).map((t) => ({ ...t, timeout_ms: opts.timeoutMs ?? t.timeout_ms }));
  await buildTestArtifact(dir, testArtifactInput(tools));
  return { artifactDir: dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

const outdirs: string[] = [];

/** Removes the cloud assemblies synthStack wrote (call in afterAll). */
export async function removeOutdirs(): Promise<void> {
  await Promise.all(outdirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
}

export function synthStack(
  gateway: Partial<ToolbeltGatewayProps> & ({ artifactDir: string } | { registryDir: string }),
  opts: {
    bundling?: boolean;
    /** Run CDK's built-in CloudFormation validation (about a second per synth); the nag tests do. */
    cfnValidation?: boolean;
    stack?: Partial<ToolbeltStackProps>;
    outdir?: string;
    beforeSynth?: (stack: ToolbeltStack) => void;
  } = {},
): { app: App; stack: ToolbeltStack; template: Template } {
  const app = new App({
    outdir: opts.outdir ?? outdirs[outdirs.push(mkdtempSync(join(tmpdir(), "toolbelt-cdk-"))) - 1],
    builtinCloudFormationValidation: opts.cfnValidation ?? false,
    // Asset metadata names each function's asset folder; without bundling, synth skips esbuild.
    context: opts.bundling ? { "aws:cdk:enable-asset-metadata": true } : { "aws:cdk:bundling-stacks": [] },
  });
  const stack = new ToolbeltStack(app, "ToolbeltTest", {
    ...opts.stack,
    gateway: { policy: TEST_POLICY, ...gateway },
  });
  opts.beforeSynth?.(stack);
  return { app, stack, template: Template.fromStack(stack) };
}
