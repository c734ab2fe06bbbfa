// cdk-nag (AwsSolutions pack) over the Toolbelt stack: no finding without an acknowledgment, and
// every acknowledgment carries its reason.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { App, Stack, Validations } from "aws-cdk-lib";
import * as acm from "aws-cdk-lib/aws-certificatemanager";
import * as dynamodb from "aws-cdk-lib/aws-dynamodb";
import * as lambda from "aws-cdk-lib/aws-lambda";
import * as route53 from "aws-cdk-lib/aws-route53";
import { HttpJwtAuthorizer } from "aws-cdk-lib/aws-apigatewayv2-authorizers";
import { AwsSolutionsChecks } from "cdk-nag";
import type { IConstruct } from "constructs";
import { ENDPOINT_GROUPS } from "../../infra/endpoint-groups.js";
import { makeArtifact, removeOutdirs, synthStack, type Fixture } from "./stack-fixture.js";

let fixture: Fixture;

beforeAll(async () => {
  fixture = await makeArtifact();
});
afterAll(async () => {
  await fixture.cleanup();
  await removeOutdirs();
});

function acknowledgments(root: IConstruct): Array<{ path: string; id: string; reason: string }> {
  return root.node.findAll().flatMap((c) =>
    c.node.metadata
      .filter((m) => m.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((m) =>
        Object.entries(m.data as Record<string, string>).map(([id, reason]) => ({
          path: c.node.path,
          // aws-cdk-lib qualifies annotation-based rule ids; cdk-nag reads both forms.
          id: id.replace(/^Annotation::/, ""),
          reason,
        })),
      ),
  );
}

describe("cdk-nag AwsSolutions", () => {
  it("finds nothing unacknowledged in the stack, with secrets and an alarm topic configured", () => {
    const { app, stack } = synthStack(
      {
        artifactDir: fixture.artifactDir,
        secrets: { GITHUB_TOKEN: { parameter: "/toolbelt/github-token" }, STRIPE_KEY: { secret: "toolbelt/stripe" } },
      },
      { stack: { alarmTopicArn: "arn:aws:sns:eu-west-1:123456789012:alarms" }, cfnValidation: true },
    );
    const report = new AwsSolutionsChecks(app, { verbose: true }).validateScope(stack);
    expect(report.violations).toEqual([]);
    expect(report.success).toBe(true);
  });

  it("acknowledges only the findings the design accepts, each with a reason", () => {
    const { stack } = synthStack({ artifactDir: fixture.artifactDir });
    const acks = acknowledgments(stack);
    expect([...new Set(acks.map((a) => a.id))].sort()).toEqual(["AwsSolutions-APIG4"]);
    for (const a of acks) expect(a.reason.length, `${a.id} at ${a.path}`).toBeGreaterThan(40);
  });

  it("finds nothing unacknowledged with every AWS option on (domain, own table, provisioned concurrency, tracing, x86_64)", () => {
    const imports = new Stack(new App(), "Imports");
    const { app, stack } = synthStack({
      artifactDir: fixture.artifactDir,
      domain: {
        name: "tools.example.com",
        certificate: acm.Certificate.fromCertificateArn(imports, "Cert", "arn:aws:acm:eu-west-1:123456789012:certificate/abc"),
        hostedZone: route53.HostedZone.fromHostedZoneAttributes(imports, "Zone", { hostedZoneId: "Z0123456789", zoneName: "example.com" }),
      },
      table: dynamodb.Table.fromTableArn(imports, "Table", "arn:aws:dynamodb:eu-west-1:123456789012:table/agents"),
      groups: { api: { provisionedConcurrency: 1 } },
      tracing: true,
      architecture: lambda.Architecture.X86_64,
    });
    const report = new AwsSolutionsChecks(app, { verbose: true }).validateScope(stack);
    expect(report.violations).toEqual([]);
    // Tracing adds exactly one acknowledgment per role: X-Ray's two actions take no resource.
    expect(acknowledgments(stack).filter((a) => a.id === "AwsSolutions-IAM5[Resource::*]")).toHaveLength(Object.keys(ENDPOINT_GROUPS).length);
  });

  it("acknowledges only the public routes when an API Gateway authorizer guards the others", () => {
    const { app, stack } = synthStack({
      artifactDir: fixture.artifactDir,
      authorizer: new HttpJwtAuthorizer("Jwt", "https://issuer.example.test", { jwtAudience: ["toolbelt"] }),
    });
    const routeOf = (path: string) => path.replace(/^.*\/Api\//, "");
    expect(
      acknowledgments(stack)
        .filter((a) => a.id === "AwsSolutions-APIG4")
        .map((a) => routeOf(a.path))
        .sort(),
    ).toEqual([
      "GET--.well-known--oauth-protected-resource",
      "GET--.well-known--oauth-protected-resource--{proxy+}",
      "GET--console",
      "GET--console--{proxy+}",
      "GET--v1--health",
      "GET--v1--health--live",
      "GET--v1--openapi.json",
    ]);
    expect(new AwsSolutionsChecks(app).validateScope(stack).violations).toEqual([]);
  });

  it("reports findings when there are some (the check is live)", () => {
    const app = new App();
    const stack = new Stack(app, "Careless");
    new dynamodb.Table(stack, "Table", { partitionKey: { name: "pk", type: dynamodb.AttributeType.STRING } });
    const report = new AwsSolutionsChecks(app).validateScope(stack);
    expect(report.success).toBe(false);
    expect(report.violations.map((v) => v.ruleName)).toContain("AwsSolutions-DDB3");
  });
});
