// CDK entry point (cdk.json). Settings come from context (`-c key=value`) so that synth runs
// offline with no account: without CDK_DEFAULT_ACCOUNT/REGION the stack is environment-agnostic.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Annotations, App, RemovalPolicy, Validations } from "aws-cdk-lib";
import * as lambda from "aws-cdk-lib/aws-lambda";
import type * as logs from "aws-cdk-lib/aws-logs";
import { AwsSolutionsChecks } from "cdk-nag";
import { ToolbeltStack } from "./stack.js";
import type { SecretRef } from "./toolbelt-gateway.js";

const app = new App();
const ctx = (key: string): string | undefined => {
  const v = app.node.tryGetContext(key) as unknown;
  return v === undefined || v === null || v === "" ? undefined : String(v);
};

const artifactDir = ctx("artifact");
const registryDir = ctx("registry") ?? "registry";
// The example policy has a principal with no keys: a stack deployed without a real policy
// answers 401 to everyone rather than trusting a key published in this repository.
const policy = ctx("policy") ?? "infra/policy.example.json";
// Briefs: `-c briefs=PATH` (folder, file), else the registry's own briefs folder when there is one.
const briefs = ctx("briefs") ?? (!artifactDir && existsSync(join(registryDir, "briefs")) ? join(registryDir, "briefs") : undefined);
// Upstream settings the registry's families declare (`variables`): `-c settings=FILE`, JSON
// {environment: {NAME: value}, secrets: {NAME: {parameter: "/ssm/name"} | {secret: "sm-name"}}}. The
// example's point at placeholder hosts; the construct fails the synth naming any required family's
// variable that neither provides.
const settingsFile = ctx("settings") ?? "infra/settings.example.json";
const settings = readSettings(settingsFile);
const alarmTopicArn = ctx("alarmTopicArn");
// `-c alwaysLoaded=toolbelt.*,git.log` replaces the registry's always-loaded list.
const alwaysLoaded = ctx("alwaysLoaded")
  ?.split(",")
  .map((s) => s.trim())
  .filter(Boolean);
const retentionDays = Number(ctx("logRetentionDays") ?? 30) as logs.RetentionDays;
const throwaway = ctx("throwaway") === "true";
// `-c domainName=tools.example.com -c certificateArn=arn:...` (and `-c hostedZoneId=Z... -c hostedZoneName=example.com` for DNS records).
const domainName = ctx("domainName");
const certificateArn = ctx("certificateArn");
if (domainName && !certificateArn) throw new Error("-c domainName needs -c certificateArn (an ACM certificate for it in the stack's region)");
const hostedZoneId = ctx("hostedZoneId");
const hostedZoneName = ctx("hostedZoneName");
// `-c architecture=x86_64` (default arm64), `-c tracing=true` (X-Ray), `-c tableName=NAME` (an existing table).
const architecture = ctx("architecture");
if (architecture && !["arm64", "x86_64"].includes(architecture)) throw new Error(`-c architecture must be arm64 or x86_64, got ${architecture}`);
const tableName = ctx("tableName");
// `-c runtime=nodejs22.x` picks another runtime (default nodejs24.x: infra/lambda-runtimes.ts).
const runtimeName = ctx("runtime");
const runtime = runtimeName ? new lambda.Runtime(runtimeName, lambda.RuntimeFamily.NODEJS, { supportsInlineCode: true }) : undefined;
// `-c auditTtlDays=30` keeps each call's audit record (the console's calls view) that many days; 0 turns the store off.
const auditTtl = ctx("auditTtlDays");

const stack = new ToolbeltStack(app, ctx("stackName") ?? "Toolbelt", {
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  description: "Toolbelt: a tool gateway for AI agents (find, surface, sessions, call)",
  ...(alarmTopicArn ? { alarmTopicArn } : {}),
  ...(domainName && certificateArn
    ? {
        domain: {
          name: domainName,
          certificateArn,
          ...(hostedZoneId && hostedZoneName ? { hostedZone: { id: hostedZoneId, name: hostedZoneName } } : {}),
        },
      }
    : {}),
  ...(tableName ? { tableName } : {}),
  gateway: {
    ...(artifactDir ? { artifactDir } : { registryDir }),
    policy,
    ...(briefs ? { briefs } : {}),
    ...(alwaysLoaded?.length ? { alwaysLoaded } : {}),
    ...(settings.environment ? { environment: settings.environment } : {}),
    ...(settings.secrets ? { secrets: settings.secrets } : {}),
    logRetention: retentionDays,
    ...(runtime ? { runtime } : {}),
    ...(architecture === "x86_64" ? { architecture: lambda.Architecture.X86_64 } : {}),
    ...(ctx("tracing") === "true" ? { tracing: true } : {}),
    ...(auditTtl !== undefined ? { auditTtlDays: Number(auditTtl) } : {}),
    // `-c throwaway=true` for test stacks: the table and logs go with the stack.
    deletionProtection: !throwaway,
    removalPolicy: throwaway ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
  },
});
if (policy === "infra/policy.example.json") {
  Annotations.of(stack).addWarningV2("toolbelt:example-policy", "deploying the example policy: no key is accepted until -c policy=FILE names yours");
}
if (settingsFile === "infra/settings.example.json") {
  Annotations.of(stack).addWarningV2("toolbelt:example-settings", "deploying the example upstream settings (placeholder hosts): -c settings=FILE names yours");
}
// cdk-nag on every synth: a finding without a suppression and its reason fails the synth.
Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));

function readSettings(file: string): { environment?: Record<string, string>; secrets?: Record<string, SecretRef> } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new Error(`-c settings=${file}: ${(e as Error).message}`);
  }
  const { environment, secrets, ...rest } = (parsed ?? {}) as Record<string, unknown>;
  const strings = (v: unknown) => typeof v === "object" && v !== null && Object.values(v).every((x) => typeof x === "string");
  const refs = (v: unknown) =>
    typeof v === "object" && v !== null && Object.values(v).every((x) => typeof x === "object" && x !== null && ("parameter" in x || "secret" in x));
  if (Object.keys(rest).length > 0) throw new Error(`-c settings=${file}: unknown keys ${Object.keys(rest).join(", ")} (expected environment, secrets)`);
  if (environment !== undefined && !strings(environment)) throw new Error(`-c settings=${file}: environment must map names to strings`);
  if (secrets !== undefined && !refs(secrets)) throw new Error(`-c settings=${file}: secrets must map names to {parameter} or {secret}`);
  return {
    ...(environment ? { environment: environment as Record<string, string> } : {}),
    ...(secrets ? { secrets: secrets as Record<string, SecretRef> } : {}),
  };
}
