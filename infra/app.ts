// CDK entry point (cdk.json). Settings come from context (`-c key=value`) so that synth runs
// offline with no account: without CDK_DEFAULT_ACCOUNT/REGION the stack is environment-agnostic.
import { Annotations, App, RemovalPolicy, Validations } from "aws-cdk-lib";
import * as logs from "aws-cdk-lib/aws-logs";
import { AwsSolutionsChecks } from "cdk-nag";
import { ToolbeltStack } from "./stack.js";

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
const briefs = ctx("briefs");
const alarmTopicArn = ctx("alarmTopicArn");
const retentionDays = Number(ctx("logRetentionDays") ?? 30) as logs.RetentionDays;
const throwaway = ctx("throwaway") === "true";

const stack = new ToolbeltStack(app, ctx("stackName") ?? "Toolbelt", {
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  description: "Toolbelt: a tool gateway for AI agents (find, surface, sessions, call)",
  ...(alarmTopicArn ? { alarmTopicArn } : {}),
  gateway: {
    ...(artifactDir ? { artifactDir } : { registryDir }),
    policy,
    ...(briefs ? { briefs } : {}),
    logRetention: retentionDays,
    // `-c throwaway=true` for test stacks: the table and logs go with the stack.
    deletionProtection: !throwaway,
    removalPolicy: throwaway ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
  },
});
if (policy === "infra/policy.example.json") {
  Annotations.of(stack).addWarningV2("toolbelt:example-policy", "deploying the example policy: no key is accepted until -c policy=FILE names yours");
}
// cdk-nag on every synth: a finding without a suppression and its reason fails the synth.
Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
