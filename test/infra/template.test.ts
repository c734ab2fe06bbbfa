// Template assertions on the Toolbelt stack: table settings, each function's IAM policy, routes,
// alarms, log retention, and what must never reach the template (policy digests, secret values).
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { App, RemovalPolicy, Stack } from "aws-cdk-lib";
import { Annotations, Match, Template } from "aws-cdk-lib/assertions";
import { HttpJwtAuthorizer } from "aws-cdk-lib/aws-apigatewayv2-authorizers";
import * as acm from "aws-cdk-lib/aws-certificatemanager";
import * as dynamodb from "aws-cdk-lib/aws-dynamodb";
import * as kms from "aws-cdk-lib/aws-kms";
import * as lambda from "aws-cdk-lib/aws-lambda";
import * as logs from "aws-cdk-lib/aws-logs";
import * as route53 from "aws-cdk-lib/aws-route53";
import { ENDPOINT_GROUPS } from "../../infra/endpoint-groups.js";
import type { ToolbeltStack } from "../../infra/stack.js";
import { UNAVAILABLE_HANDLER } from "../../registry/contract/callable.js";
import { buildTestArtifact, defaultTestTools, testArtifactInput, testTool } from "../helpers/artifact.js";
import { makeArtifact, removeOutdirs, synthStack, TEST_DIGEST, type Fixture } from "./stack-fixture.js";

// biome-ignore lint/suspicious/noExplicitAny: CloudFormation JSON, read loosely by the assertions.
type Resource = { Type: string; Properties: Record<string, any>; DeletionPolicy?: string; UpdateReplacePolicy?: string };

const TOPIC_ARN = "arn:aws:sns:eu-west-1:123456789012:toolbelt-alarms";
let fixture: Fixture;
let template: Template;
let stack: ToolbeltStack;

function only(t: Template, type: string, props?: object): [string, Resource] {
  const found = Object.entries(t.findResources(type, props ? { Properties: props } : undefined)) as [string, Resource][];
  expect(found, `exactly one ${type}`).toHaveLength(1);
  return found[0]!;
}

function functionId(t: Template, group: keyof typeof ENDPOINT_GROUPS): string {
  return only(t, "AWS::Lambda::Function", { Description: ENDPOINT_GROUPS[group].description })[0];
}

/** The statements of the inline policy attached to a function's role. */
// biome-ignore lint/suspicious/noExplicitAny: IAM statements, read loosely by the assertions.
function roleStatements(t: Template, group: keyof typeof ENDPOINT_GROUPS): Array<Record<string, any>> {
  const fn = t.findResources("AWS::Lambda::Function")[functionId(t, group)] as Resource;
  const roleId = fn.Properties.Role["Fn::GetAtt"][0] as string;
  const policies = Object.values(t.findResources("AWS::IAM::Policy")).filter((p) =>
    (p as Resource).Properties.Roles.some((r: { Ref: string }) => r.Ref === roleId),
  ) as Resource[];
  return policies.flatMap((p) => p.Properties.PolicyDocument.Statement);
}

const asList = <T>(x: T | T[]): T[] => (Array.isArray(x) ? x : [x]);

beforeAll(async () => {
  fixture = await makeArtifact();
  ({ template, stack } = synthStack(
    {
      artifactDir: fixture.artifactDir,
      secrets: { GITHUB_TOKEN: { parameter: "/toolbelt/github-token" }, STRIPE_KEY: { secret: "toolbelt/stripe" } },
      alwaysLoaded: ["toolbelt.*"],
    },
    { stack: { alarmTopicArn: TOPIC_ARN } },
  ));
});

afterAll(async () => {
  await fixture.cleanup();
  await removeOutdirs();
});

describe("DynamoDB table", () => {
  it("is on-demand with pk/sk string keys, TTL on expires_at, point-in-time recovery and deletion protection", () => {
    template.hasResourceProperties("AWS::DynamoDB::Table", {
      BillingMode: "PAY_PER_REQUEST",
      KeySchema: [
        { AttributeName: "pk", KeyType: "HASH" },
        { AttributeName: "sk", KeyType: "RANGE" },
      ],
      AttributeDefinitions: [
        { AttributeName: "pk", AttributeType: "S" },
        { AttributeName: "sk", AttributeType: "S" },
      ],
      TimeToLiveSpecification: { AttributeName: "expires_at", Enabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      DeletionProtectionEnabled: true,
    });
    const [, table] = only(template, "AWS::DynamoDB::Table");
    expect(table.DeletionPolicy).toBe("Retain");
    expect(table.UpdateReplacePolicy).toBe("Retain");
  });

  it("can be made disposable for throwaway stacks", async () => {
    const { template: t } = synthStack({
      artifactDir: fixture.artifactDir,
      deletionProtection: false,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const [, table] = only(t, "AWS::DynamoDB::Table");
    expect(table.Properties.DeletionProtectionEnabled).toBe(false);
    expect(table.DeletionPolicy).toBe("Delete");
    for (const lg of Object.values(t.findResources("AWS::Logs::LogGroup"))) expect((lg as Resource).DeletionPolicy).toBe("Delete");
  });
});

describe("functions", () => {
  it("are one per endpoint group, arm64 on Node 20, ESM bundles with the artifact and policy inside", () => {
    template.resourceCountIs("AWS::Lambda::Function", Object.keys(ENDPOINT_GROUPS).length);
    for (const group of ["api", "call"] as const) {
      template.hasResourceProperties("AWS::Lambda::Function", {
        Description: ENDPOINT_GROUPS[group].description,
        Runtime: "nodejs24.x",
        Architectures: ["arm64"],
        Handler: "index.handler",
        MemorySize: ENDPOINT_GROUPS[group].memoryMb,
        Environment: {
          Variables: Match.objectLike({
            TOOLBELT_ARTIFACT_DIR: "/var/task/artifact",
            TOOLBELT_POLICY: "/var/task/policy.json",
            TOOLBELT_TABLE: { Ref: Match.stringLikeRegexp("Table") },
            TOOLBELT_ALWAYS_LOADED: "toolbelt.*",
          }),
        },
        LoggingConfig: { LogGroup: { Ref: Match.stringLikeRegexp(`${group === "api" ? "Api" : "Call"}Logs`) } },
      });
    }
  });

  it("give find 10 s and call the largest tool timeout plus a margin, capped under the API's 30 s", async () => {
    const api = template.findResources("AWS::Lambda::Function")[functionId(template, "api")] as Resource;
    const call = template.findResources("AWS::Lambda::Function")[functionId(template, "call")] as Resource;
    expect(api.Properties.Timeout).toBe(10);
    // The test tools keep the 60 s default: the call timeout stops at 29 s and the synth warns.
    expect(call.Properties.Timeout).toBe(29);
    const warnings = stack.node
      .findAll()
      .flatMap((c) => c.node.metadata)
      .filter((m) => m.type === "aws:cdk:warning")
      .map((m) => String(m.data));
    expect(warnings.some((w) => w.includes("cuts at 30 s") && w.includes("git.log"))).toBe(true);

    const quick = await makeArtifact({ timeoutMs: 12_000 });
    try {
      const { template: t } = synthStack({ artifactDir: quick.artifactDir });
      const quickCall = t.findResources("AWS::Lambda::Function")[functionId(t, "call")] as Resource;
      expect(quickCall.Properties.Timeout).toBe(15);
    } finally {
      await quick.cleanup();
    }
  });

  it("regression (issue #10): tools that wait on nothing (uncallable imports, builtins) count neither for the call timeout nor in its warning", async () => {
    const tools = [
      testTool("notes.create", {
        kind: "http",
        backend: { kind: "http", method: "POST", url: "https://notes.example.com/create", output: "json" },
        timeout_ms: 5_000,
      }),
      // An imported catalog entry: no backend, answers 501 at once whatever its declared timeout.
      testTool("metatool.NotesTool", { backend: { kind: "builtin", handler: UNAVAILABLE_HANDLER }, timeout_ms: 60_000 }),
      // A builtin runs in the function: the registry's default timeout does not make the function wait longer.
      testTool("shape.reshape", { backend: { kind: "builtin", handler: "reshape" }, timeout_ms: 60_000 }),
    ];
    const imported = await makeArtifact({ tools });
    try {
      const { template: t, stack: s } = synthStack({ artifactDir: imported.artifactDir });
      expect((t.findResources("AWS::Lambda::Function")[functionId(t, "call")] as Resource).Properties.Timeout).toBe(10);
      expect(Annotations.fromStack(s).findWarning("*", Match.stringLikeRegexp("tool-timeout-above-api-limit"))).toEqual([]);
    } finally {
      await imported.cleanup();
    }
  });

  it("refuse exec tools on Lambda unless allowed, and then count their timeouts", async () => {
    const tools = [
      testTool("git.log", { kind: "exec", backend: { kind: "exec", command: "git", args: ["log"], output: "text" }, timeout_ms: 60_000 }),
      testTool("notes.create", { timeout_ms: 5_000 }),
    ];
    const mixed = await makeArtifact({ tools });
    try {
      const callOf = (t: Template) => (t.findResources("AWS::Lambda::Function")[functionId(t, "call")] as Resource).Properties;
      const off = callOf(synthStack({ artifactDir: mixed.artifactDir }).template);
      expect(off.Environment.Variables.TOOLBELT_EXEC).toBe("off");
      expect(off.Timeout).toBe(10);
      const on = callOf(synthStack({ artifactDir: mixed.artifactDir, allowExec: true }).template);
      expect(on.Environment.Variables.TOOLBELT_EXEC).toBeUndefined();
      expect(on.Environment.Variables.TOOLBELT_FILE_ROOTS).toBeUndefined();
      expect(on.Timeout).toBe(29);
      const rooted = callOf(synthStack({ artifactDir: mixed.artifactDir, allowExec: true, fileRoots: ["/mnt/repos", "/tmp/work"] }).template);
      expect(rooted.Environment.Variables.TOOLBELT_FILE_ROOTS).toBe("/mnt/repos:/tmp/work");
      expect(() => synthStack({ artifactDir: mixed.artifactDir, allowExec: true, fileRoots: ["repos"] })).toThrow(/fileRoots must be absolute paths/);
      const apiEnv = (template.findResources("AWS::Lambda::Function")[functionId(template, "api")] as Resource).Properties.Environment.Variables;
      expect(apiEnv.TOOLBELT_EXEC).toBeUndefined();
    } finally {
      await mixed.cleanup();
    }
  });

  it("tell only the call function where its upstream secrets live, by name", () => {
    const fns = template.findResources("AWS::Lambda::Function");
    const apiEnv = (fns[functionId(template, "api")] as Resource).Properties.Environment.Variables;
    const callEnv = (fns[functionId(template, "call")] as Resource).Properties.Environment.Variables;
    expect(apiEnv.TOOLBELT_SECRETS).toBeUndefined();
    expect(JSON.parse(callEnv.TOOLBELT_SECRETS)).toEqual({
      GITHUB_TOKEN: "/toolbelt/github-token",
      STRIPE_KEY: "/aws/reference/secretsmanager/toolbelt/stripe",
    });
  });

  it("keep the policy out of the template: digests travel in the bundle only", () => {
    expect(JSON.stringify(template.toJSON())).not.toContain(TEST_DIGEST);
  });
});

describe("IAM", () => {
  it("gives the api function its log group and exactly the table actions its store issues", () => {
    const statements = roleStatements(template, "api");
    expect(statements).toEqual([
      {
        Effect: "Allow",
        Action: ["logs:CreateLogStream", "logs:PutLogEvents"],
        Resource: { "Fn::GetAtt": [expect.stringMatching(/ApiLogs/), "Arn"] },
      },
      {
        Effect: "Allow",
        // Sessions (put, query) and the find-miss log (update, put, delete).
        Action: ["dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem", "dynamodb:Query"],
        Resource: { "Fn::GetAtt": [expect.stringMatching(/Table/), "Arn"] },
      },
    ]);
  });

  it("gives the call function its table actions and read on exactly the named secrets", () => {
    const statements = roleStatements(template, "call");
    expect(statements).toHaveLength(4);
    expect(statements[1]).toEqual({
      Effect: "Allow",
      Action: ["dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem", "dynamodb:Query"],
      Resource: { "Fn::GetAtt": [expect.stringMatching(/Table/), "Arn"] },
    });
    const ssm = statements.find((s) => s.Action === "ssm:GetParameter")!;
    const arns = asList(ssm.Resource).map((r) => JSON.stringify(r));
    expect(arns).toHaveLength(2);
    expect(arns[0]).toContain(":parameter/toolbelt/github-token");
    expect(arns[1]).toContain(":parameter/aws/reference/secretsmanager/toolbelt/stripe");
    const sm = statements.find((s) => s.Action === "secretsmanager:GetSecretValue")!;
    expect(JSON.stringify(sm.Resource)).toContain(":secret:toolbelt/stripe-??????");
  });

  it("creates each function after its role's policy, so the first invocation has its permissions", () => {
    for (const group of Object.keys(ENDPOINT_GROUPS) as (keyof typeof ENDPOINT_GROUPS)[]) {
      const fn = template.findResources("AWS::Lambda::Function")[functionId(template, group)] as Resource & { DependsOn: string[] };
      expect(fn.DependsOn).toEqual(expect.arrayContaining([expect.stringMatching(/RoleDefaultPolicy/)]));
    }
  });

  it("uses no wildcard action, no managed policy and no resource '*' anywhere", () => {
    for (const policy of Object.values(template.findResources("AWS::IAM::Policy")) as Resource[]) {
      for (const s of policy.Properties.PolicyDocument.Statement) {
        for (const action of asList(s.Action as string | string[])) expect(action).not.toContain("*");
        for (const resource of asList(s.Resource)) expect(resource).not.toBe("*");
      }
    }
    for (const role of Object.values(template.findResources("AWS::IAM::Role")) as Resource[]) {
      expect(role.Properties.ManagedPolicyArns).toBeUndefined();
    }
  });

  it("grants nothing on secrets when the deployment has none", async () => {
    const { template: t } = synthStack({ artifactDir: fixture.artifactDir });
    expect(roleStatements(t, "call").map((s) => s.Action)).toEqual([
      ["logs:CreateLogStream", "logs:PutLogEvents"],
      ["dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem", "dynamodb:Query"],
    ]);
  });
});

describe("console group", () => {
  const fnOf = (t: Template, group: keyof typeof ENDPOINT_GROUPS) => (t.findResources("AWS::Lambda::Function")[functionId(t, group)] as Resource).Properties;

  it("is a small function of its own: 512 MB, 10 s, its own log group, three alarms", () => {
    const fn = fnOf(template, "console");
    expect([fn.MemorySize, fn.Timeout]).toEqual([512, 10]);
    expect(fn.LoggingConfig).toEqual({ LogGroup: { Ref: expect.stringMatching(/ConsoleLogs/) } });
    const alarms = Object.keys(template.findResources("AWS::CloudWatch::Alarm")).filter((id) => id.includes("Console"));
    expect(alarms.map((id) => id.replace(/^.*(Console\w+?)[0-9A-F]{8}$/, "$1")).sort()).toEqual(["ConsoleErrors", "ConsoleP99Duration", "ConsoleThrottles"]);
  });

  it("may only write its logs and Query the table: it reads sessions and audit records and writes nothing", () => {
    expect(roleStatements(template, "console")).toEqual([
      {
        Effect: "Allow",
        Action: ["logs:CreateLogStream", "logs:PutLogEvents"],
        Resource: { "Fn::GetAtt": [expect.stringMatching(/ConsoleLogs/), "Arn"] },
      },
      { Effect: "Allow", Action: "dynamodb:Query", Resource: { "Fn::GetAtt": [expect.stringMatching(/Table/), "Arn"] } },
    ]);
  });

  it("knows where the secrets live, to show a setting present or missing, and may not read one", () => {
    const env = fnOf(template, "console").Environment.Variables;
    expect(env.TOOLBELT_SECRETS).toBe(fnOf(template, "call").Environment.Variables.TOOLBELT_SECRETS);
    expect(JSON.stringify(roleStatements(template, "console"))).not.toMatch(/ssm:|secretsmanager:|kms:/);
    // Nothing to say when the deployment has no secrets.
    const { template: t } = synthStack({ artifactDir: fixture.artifactDir });
    expect(fnOf(t, "console").Environment.Variables.TOOLBELT_SECRETS).toBeUndefined();
  });
});

describe("audit store (auditTtlDays)", () => {
  const auditEnv = (t: Template) =>
    Object.fromEntries(
      (Object.keys(ENDPOINT_GROUPS) as (keyof typeof ENDPOINT_GROUPS)[]).map((group) => {
        const vars = (t.findResources("AWS::Lambda::Function")[functionId(t, group)] as Resource).Properties.Environment.Variables;
        return [group, [vars.TOOLBELT_AUDIT_STORE, vars.TOOLBELT_AUDIT_TTL_DAYS]];
      }),
    );

  it("is on with a 7-day TTL by default, for the doors that write records (call, MCP) and the console that reads them", () => {
    expect(auditEnv(template)).toEqual({ api: [undefined, undefined], call: ["on", "7"], mcp: ["on", "7"], console: ["on", "7"] });
    // Writing a record is a PutItem, which the writers hold already.
    for (const group of ["call", "mcp"] as const) expect(ENDPOINT_GROUPS[group].tableActions).toContain("dynamodb:PutItem");
  });

  it("keeps records as many days as asked, and is off at 0", () => {
    expect(auditEnv(synthStack({ artifactDir: fixture.artifactDir, auditTtlDays: 30 }).template)).toMatchObject({ call: ["on", "30"], console: ["on", "30"] });
    expect(auditEnv(synthStack({ artifactDir: fixture.artifactDir, auditTtlDays: 0 }).template)).toEqual({
      api: [undefined, undefined],
      call: ["off", undefined],
      mcp: ["off", undefined],
      console: ["off", undefined],
    });
  });

  it("refuses a TTL that is not a whole number of days", () => {
    for (const auditTtlDays of [-1, 2.5, Number.NaN]) {
      expect(() => synthStack({ artifactDir: fixture.artifactDir, auditTtlDays })).toThrow(
        /auditTtlDays must be a whole number of days, 0 to turn the audit store off/,
      );
    }
  });
});

describe("models", () => {
  const models = {
    decider: { provider: "openai" as const, url: "https://models.example.com/v1", model: "small-2026", key: { parameter: "/toolbelt/model-key" } },
    prompt: { provider: "bedrock" as const, model: "anthropic.claude-3-5-haiku-20241022-v1:0", region: "eu-west-1" },
    summarize: { provider: "bedrock" as const, model: "arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-3-5-haiku-20241022-v1:0" },
  };
  const env = (t: Template, group: "api" | "call" | "mcp") =>
    (t.findResources("AWS::Lambda::Function")[functionId(t, group)] as Resource).Properties.Environment.Variables as Record<string, string>;

  it("grant bedrock:InvokeModel on exactly the configured models, to the functions that serve prompt tools only", () => {
    const { template: t } = synthStack({ artifactDir: fixture.artifactDir, models });
    for (const group of ["call", "mcp"] as const) {
      const invoke = roleStatements(t, group).filter((s) => asList(s.Action as string | string[]).some((a) => a.startsWith("bedrock:")));
      expect(invoke).toHaveLength(1);
      expect(invoke[0]!.Action).toBe("bedrock:InvokeModel");
      const resources = asList(invoke[0]!.Resource).map((r) => JSON.stringify(r));
      expect(resources).toHaveLength(2);
      expect(resources[0]).toContain(":bedrock:eu-west-1::foundation-model/anthropic.claude-3-5-haiku-20241022-v1:0");
      expect(resources[1]).toBe(JSON.stringify(models.summarize.model));
    }
    expect(JSON.stringify(roleStatements(t, "api"))).not.toContain("bedrock:");
  });

  it("pass the roles to every function, the key by name to those that load secrets", () => {
    const { template: t } = synthStack({ artifactDir: fixture.artifactDir, models });
    const roles = JSON.parse(env(t, "call").TOOLBELT_MODELS!) as Record<string, Record<string, unknown>>;
    expect(roles.decider).toEqual({ provider: "openai", url: "https://models.example.com/v1", model: "small-2026", key_env: "MODEL_KEY_DECIDER" });
    expect(roles.prompt).toEqual({ provider: "bedrock", model: models.prompt.model, region: "eu-west-1" });
    expect(env(t, "api").TOOLBELT_MODELS).toBe(env(t, "call").TOOLBELT_MODELS);
    expect(JSON.parse(env(t, "call").TOOLBELT_SECRETS!)).toEqual({ MODEL_KEY_DECIDER: "/toolbelt/model-key" });
    expect(env(t, "api").TOOLBELT_SECRETS).toBeUndefined();
    expect(JSON.stringify(t.toJSON())).not.toContain("sk-");
  });

  it("refuse a bad role at synth, naming it", () => {
    expect(() => synthStack({ artifactDir: fixture.artifactDir, models: { decider: { provider: "openai", url: "ftp://x", model: "m" } } })).toThrow(
      'TOOLBELT_MODELS: role "decider": url must be an http(s) URL',
    );
  });
});

describe("HTTP API", () => {
  it("routes each endpoint to its group's function", () => {
    const fns = Object.fromEntries((Object.keys(ENDPOINT_GROUPS) as (keyof typeof ENDPOINT_GROUPS)[]).map((g) => [functionId(template, g), g]));
    const integrations = template.findResources("AWS::ApiGatewayV2::Integration");
    const routes = Object.values(template.findResources("AWS::ApiGatewayV2::Route")) as Resource[];
    const table = routes
      .map((r) => {
        const integrationId = r.Properties.Target["Fn::Join"][1][1].Ref as string;
        const uri = (integrations[integrationId] as Resource).Properties.IntegrationUri["Fn::GetAtt"][0] as string;
        return `${r.Properties.RouteKey} -> ${fns[uri]}`;
      })
      .sort();
    expect(table).toEqual([
      "DELETE /mcp -> mcp",
      "DELETE /mcp/briefs/{brief} -> mcp",
      "DELETE /v1/admin/credentials/{principal}/{family} -> call",
      "DELETE /v1/credentials/{family} -> call",
      "GET /.well-known/oauth-protected-resource -> api",
      "GET /.well-known/oauth-protected-resource/{proxy+} -> api",
      "GET /console -> console",
      "GET /console/{proxy+} -> console",
      "GET /mcp -> mcp",
      "GET /mcp/briefs/{brief} -> mcp",
      "GET /v1/admin/audit -> console",
      "GET /v1/admin/audit/stats -> console",
      "GET /v1/admin/catalog -> console",
      "GET /v1/admin/misses -> call",
      "GET /v1/admin/sessions/{id} -> console",
      "GET /v1/approvals/{id} -> call",
      "GET /v1/credentials -> call",
      "GET /v1/health -> api",
      "GET /v1/health/live -> api",
      "GET /v1/openapi.json -> api",
      "GET /v1/sessions/{id}/surface -> api",
      "GET /v1/tools/export -> api",
      "POST /mcp -> mcp",
      "POST /mcp/briefs/{brief} -> mcp",
      "POST /v1/admin/find -> console",
      "POST /v1/approvals/{id} -> call",
      "POST /v1/approvals/{id}/call -> call",
      "POST /v1/call -> call",
      "POST /v1/find -> api",
      "POST /v1/sessions -> api",
      "POST /v1/tools/search -> api",
      "PUT /v1/credentials/{family} -> call",
    ]);
    for (const i of Object.values(integrations) as Resource[]) expect(i.Properties.PayloadFormatVersion).toBe("2.0");
  });

  it("puts an authorizer in front of every route but the public ones: health, OpenAPI, the console's page, OAuth metadata", () => {
    const authorizer = new HttpJwtAuthorizer("Jwt", "https://issuer.example.test", { jwtAudience: ["toolbelt"] });
    const { template: t } = synthStack({ artifactDir: fixture.artifactDir, authorizer });
    const routes = Object.values(t.findResources("AWS::ApiGatewayV2::Route")) as Resource[];
    const open = routes.filter((r) => r.Properties.AuthorizationType !== "JWT").map((r) => r.Properties.RouteKey as string);
    expect(open.sort()).toEqual([
      "GET /.well-known/oauth-protected-resource",
      "GET /.well-known/oauth-protected-resource/{proxy+}",
      "GET /console",
      "GET /console/{proxy+}",
      "GET /v1/health",
      "GET /v1/health/live",
      "GET /v1/openapi.json",
    ]);
    expect(routes.length - open.length).toBeGreaterThan(20);
  });

  it("serves one auto-deployed $default stage with throttling and access logs", () => {
    template.hasResourceProperties("AWS::ApiGatewayV2::Stage", {
      StageName: "$default",
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: 50, ThrottlingBurstLimit: 100 },
      AccessLogSettings: {
        DestinationArn: { "Fn::GetAtt": [Match.stringLikeRegexp("ApiAccessLogs"), "Arn"] },
        Format: Match.stringLikeRegexp("\\$context.requestId"),
      },
    });
    const [, stage] = only(template, "AWS::ApiGatewayV2::Stage");
    expect(stage.Properties.AccessLogSettings.Format).not.toMatch(/authorization|header|body/i);
  });

  it("lets another endpoint group join from a user's stack", () => {
    let duplicate: unknown;
    const { template: t } = synthStack(
      { artifactDir: fixture.artifactDir },
      {
        beforeSynth: (s) => {
          s.gateway.addEndpointGroup("extra", {
            ...ENDPOINT_GROUPS.api,
            description: "Toolbelt extra endpoint",
            routes: [{ method: "POST", path: "/v1/extra" }],
          });
          try {
            s.gateway.addEndpointGroup("mcp", ENDPOINT_GROUPS.api);
          } catch (e) {
            duplicate = e;
          }
        },
      },
    );
    expect(String(duplicate)).toMatch(/endpoint group mcp exists already/);
    t.resourceCountIs("AWS::Lambda::Function", Object.keys(ENDPOINT_GROUPS).length + 1);
    t.hasResourceProperties("AWS::ApiGatewayV2::Route", { RouteKey: "POST /v1/extra" });
    t.hasResourceProperties("AWS::Lambda::Function", { Description: "Toolbelt extra endpoint", Architectures: ["arm64"] });
  });

  it("answers no cross-origin preflight unless origins are listed (regression: AllowOrigins * let any page call)", () => {
    expect(Object.values(template.findResources("AWS::ApiGatewayV2::Api"))[0]?.Properties?.CorsConfiguration).toBeUndefined();
    template.hasResourceProperties("AWS::Lambda::Function", {
      Environment: { Variables: Match.objectLike({ TOOLBELT_PUBLIC_ORIGINS: Match.anyValue() }) },
    });
  });

  it("answers the listed origins' preflights for the MCP endpoint: MCP headers allowed, Mcp-Session-Id exposed", () => {
    const listed = Template.fromStack(synthStack({ artifactDir: fixture.artifactDir, allowedOrigins: ["http://localhost:6274"] }).stack);
    listed.hasResourceProperties("AWS::Lambda::Function", {
      Environment: { Variables: Match.objectLike({ TOOLBELT_ALLOWED_ORIGINS: "http://localhost:6274" }) },
    });
    listed.hasResourceProperties("AWS::ApiGatewayV2::Api", {
      CorsConfiguration: {
        AllowOrigins: ["http://localhost:6274"],
        AllowMethods: ["POST", "GET", "DELETE", "OPTIONS"],
        AllowHeaders: Match.arrayWith(["Authorization", "Content-Type", "Mcp-Protocol-Version", "Mcp-Session-Id", "Mcp-Method", "Mcp-Name"]),
        ExposeHeaders: Match.arrayWith(["Mcp-Session-Id"]),
        MaxAge: 600,
      },
    });
    expect(() => synthStack({ artifactDir: fixture.artifactDir, allowedOrigins: ["https://x.example.com/path"] })).toThrow(/allowedOrigins must be origins/);
  });

  it("gives the MCP function the call group's sizing and only the table actions it uses", () => {
    const statements = roleStatements(template, "mcp");
    expect(statements[1]).toEqual({
      Effect: "Allow",
      Action: ["dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem", "dynamodb:Query"],
      Resource: { "Fn::GetAtt": [expect.stringMatching(/Table/), "Arn"] },
    });
    template.hasResourceProperties("AWS::Lambda::Function", { Description: ENDPOINT_GROUPS.mcp.description, MemorySize: 1024 });
  });
});

describe("options an AWS user expects (defaults unchanged)", () => {
  // Existing resources a user's stack passes in, referenced by literal ARNs from a scope of their own.
  const imports = new Stack(new App(), "Imports", { env: { account: "123456789012", region: "eu-west-1" } });
  const certificate = acm.Certificate.fromCertificateArn(imports, "Cert", "arn:aws:acm:eu-west-1:123456789012:certificate/abc");
  const hostedZone = route53.HostedZone.fromHostedZoneAttributes(imports, "Zone", { hostedZoneId: "Z0123456789", zoneName: "example.com" });
  const tableKey = kms.Key.fromKeyArn(imports, "Key", "arn:aws:kms:eu-west-1:123456789012:key/1234");
  const table = dynamodb.Table.fromTableAttributes(imports, "Table", {
    tableArn: "arn:aws:dynamodb:eu-west-1:123456789012:table/agents",
    encryptionKey: tableKey,
  });

  it("serve the API on a custom domain with its certificate, and point the hosted zone's A and AAAA records at it", () => {
    const { template: t, stack: s } = synthStack({ artifactDir: fixture.artifactDir, domain: { name: "tools.example.com", certificate, hostedZone } });
    const [domainId] = only(t, "AWS::ApiGatewayV2::DomainName", {
      DomainName: "tools.example.com",
      DomainNameConfigurations: [{ CertificateArn: "arn:aws:acm:eu-west-1:123456789012:certificate/abc", EndpointType: "REGIONAL", SecurityPolicy: "TLS_1_2" }],
    });
    const [apiId] = only(t, "AWS::ApiGatewayV2::Api");
    const [, mapping] = only(t, "AWS::ApiGatewayV2::ApiMapping");
    expect(mapping.Properties).toEqual({ ApiId: { Ref: apiId }, DomainName: { Ref: domainId }, Stage: "$default" });
    for (const type of ["A", "AAAA"]) {
      t.hasResourceProperties("AWS::Route53::RecordSet", {
        Name: "tools.example.com.",
        Type: type,
        HostedZoneId: "Z0123456789",
        AliasTarget: {
          DNSName: { "Fn::GetAtt": [domainId, "RegionalDomainName"] },
          HostedZoneId: { "Fn::GetAtt": [domainId, "RegionalHostedZoneId"] },
        },
      });
    }
    expect(s.gateway.url).toBe("https://tools.example.com/");
    expect(Object.values(t.findOutputs("*")).some((o) => o.Value === "https://tools.example.com/")).toBe(true);

    // Without a zone: the domain and its mapping, no record (the user's DNS points at it).
    const { template: noZone } = synthStack({ artifactDir: fixture.artifactDir, domain: { name: "tools.example.com", certificate } });
    noZone.resourceCountIs("AWS::ApiGatewayV2::ApiMapping", 1);
    noZone.resourceCountIs("AWS::Route53::RecordSet", 0);
    template.resourceCountIs("AWS::ApiGatewayV2::DomainName", 0);
  });

  it("use a table the user brings: none created, every function granted its actions on it and told its name, its key granted", () => {
    const { template: t } = synthStack({ artifactDir: fixture.artifactDir, table });
    t.resourceCountIs("AWS::DynamoDB::Table", 0);
    for (const group of Object.keys(ENDPOINT_GROUPS) as (keyof typeof ENDPOINT_GROUPS)[]) {
      const statements = roleStatements(t, group);
      // CloudFormation's one-action statements hold a string (the console's Query).
      const actions: readonly string[] = ENDPOINT_GROUPS[group].tableActions;
      expect(statements).toContainEqual({ Effect: "Allow", Action: actions.length === 1 ? actions[0] : [...actions], Resource: table.tableArn });
      expect(statements).toContainEqual({
        Effect: "Allow",
        Action: ["kms:Decrypt", "kms:Encrypt", "kms:ReEncrypt*", "kms:GenerateDataKey*"],
        Resource: tableKey.keyArn,
      });
      t.hasResourceProperties("AWS::Lambda::Function", {
        Description: ENDPOINT_GROUPS[group].description,
        Environment: { Variables: Match.objectLike({ TOOLBELT_TABLE: "agents" }) },
      });
    }
  });

  it("keep environments warm with provisioned concurrency: a version and an alias `live` the routes invoke", () => {
    const { template: t } = synthStack({ artifactDir: fixture.artifactDir, groups: { api: { provisionedConcurrency: 2 } } });
    const apiFn = functionId(t, "api");
    const [versionId] = only(t, "AWS::Lambda::Version", { FunctionName: { Ref: apiFn } });
    const [aliasId] = only(t, "AWS::Lambda::Alias", {
      Name: "live",
      FunctionName: { Ref: apiFn },
      FunctionVersion: { "Fn::GetAtt": [versionId, "Version"] },
      ProvisionedConcurrencyConfig: { ProvisionedConcurrentExecutions: 2 },
    });
    const uris = (Object.values(t.findResources("AWS::ApiGatewayV2::Integration")) as Resource[]).map((i) => JSON.stringify(i.Properties.IntegrationUri));
    expect(uris.filter((u) => u.includes(aliasId))).toHaveLength(1);
    expect(uris.filter((u) => u.includes(apiFn))).toEqual([]);
    // The api function is invoked through its alias only; the other groups keep their unqualified function.
    expect(uris.filter((u) => u.includes(functionId(t, "call")))).toHaveLength(1);
    template.resourceCountIs("AWS::Lambda::Alias", 0);
    expect(() => synthStack({ artifactDir: fixture.artifactDir, groups: { call: { provisionedConcurrency: 5, reservedConcurrency: 2 } } })).toThrow(
      /groups\.call: provisionedConcurrency \(5\) cannot exceed reservedConcurrency \(2\)/,
    );
  });

  it("trace every function with X-Ray when asked, granting only the two X-Ray actions (which take no resource)", () => {
    const { template: t } = synthStack({ artifactDir: fixture.artifactDir, tracing: true });
    for (const group of Object.keys(ENDPOINT_GROUPS) as (keyof typeof ENDPOINT_GROUPS)[]) {
      t.hasResourceProperties("AWS::Lambda::Function", { Description: ENDPOINT_GROUPS[group].description, TracingConfig: { Mode: "Active" } });
      expect(roleStatements(t, group)).toContainEqual({ Effect: "Allow", Action: ["xray:PutTraceSegments", "xray:PutTelemetryRecords"], Resource: "*" });
    }
    for (const fn of Object.values(template.findResources("AWS::Lambda::Function")) as Resource[]) expect(fn.Properties.TracingConfig).toBeUndefined();
  });

  it("come to the stack of `npm run deploy` as ARNs and names (-c domainName, certificateArn, hostedZoneId/Name, tableName)", () => {
    const { template: t } = synthStack(
      { artifactDir: fixture.artifactDir },
      {
        stack: {
          domain: {
            name: "tools.example.com",
            certificateArn: "arn:aws:acm:eu-west-1:123456789012:certificate/abc",
            hostedZone: { id: "Z0123", name: "example.com" },
          },
          tableName: "agents",
        },
      },
    );
    only(t, "AWS::ApiGatewayV2::DomainName", {
      DomainName: "tools.example.com",
      DomainNameConfigurations: [Match.objectLike({ CertificateArn: "arn:aws:acm:eu-west-1:123456789012:certificate/abc" })],
    });
    t.resourceCountIs("AWS::Route53::RecordSet", 2);
    t.hasResourceProperties("AWS::Route53::RecordSet", { HostedZoneId: "Z0123", Name: "tools.example.com." });
    t.resourceCountIs("AWS::DynamoDB::Table", 0);
    expect(JSON.stringify(roleStatements(t, "api")[1]!.Resource)).toContain(":table/agents");
  });

  it("run on x86_64 when asked (the bundles hold no native module), arm64 by default", () => {
    const { template: t } = synthStack({ artifactDir: fixture.artifactDir, architecture: lambda.Architecture.X86_64 });
    for (const fn of Object.values(t.findResources("AWS::Lambda::Function")) as Resource[]) expect(fn.Properties.Architectures).toEqual(["x86_64"]);
    for (const fn of Object.values(template.findResources("AWS::Lambda::Function")) as Resource[]) expect(fn.Properties.Architectures).toEqual(["arm64"]);
  });
});

describe("alarms and logs", () => {
  it("alarm on the API's 5xx rate, and on each function's errors, throttles and p99 duration, notifying the topic", () => {
    const alarms = Object.values(template.findResources("AWS::CloudWatch::Alarm")) as Resource[];
    // The API's 5xx rate, three per function, three on the gateway's own metrics.
    expect(alarms).toHaveLength(1 + 3 * Object.keys(ENDPOINT_GROUPS).length + 3);
    for (const a of alarms) expect(a.Properties.AlarmActions).toEqual([TOPIC_ARN]);

    const rate = alarms.find((a) => a.Properties.Metrics?.some((m: { Expression?: string }) => m.Expression?.includes("requests")))!;
    expect(rate.Properties.Threshold).toBe(5);
    const expr = rate.Properties.Metrics.find((m: { Expression?: string }) => m.Expression);
    expect(expr.Expression).toBe("IF(requests > 0, 100 * errors / requests, 0)");
    const metricNames = rate.Properties.Metrics.filter((m: { MetricStat?: unknown }) => m.MetricStat).map(
      (m: { MetricStat: { Metric: { MetricName: string } } }) => m.MetricStat.Metric.MetricName,
    );
    expect(metricNames.sort()).toEqual(["5xx", "Count"]);

    const p99 = alarms.filter((a) => a.Properties.ExtendedStatistic === "p99");
    expect(p99.map((a) => [a.Properties.MetricName, a.Properties.Threshold]).sort()).toEqual(
      Object.values(ENDPOINT_GROUPS)
        .map((g) => ["Duration", g.p99AlarmMs])
        .sort(),
    );
    const byMetric = (name: string) => alarms.filter((a) => a.Properties.MetricName === name && a.Properties.Statistic === "Sum");
    expect(byMetric("Errors")).toHaveLength(Object.keys(ENDPOINT_GROUPS).length);
    expect(byMetric("Throttles")).toHaveLength(Object.keys(ENDPOINT_GROUPS).length);
  });

  it("alarm on the gateway's metrics: call fault rate, find none-rate and pin evictions, in the namespace the functions write", () => {
    const metricsOf = (a: Resource) =>
      Object.fromEntries(
        (a.Properties.Metrics as { Id: string; Expression?: string; MetricStat?: { Metric: { Namespace: string; MetricName: string }; Stat: string } }[]).map(
          (m) => [m.Id, m.Expression ?? `${m.MetricStat!.Metric.Namespace}/${m.MetricStat!.Metric.MetricName}:${m.MetricStat!.Stat}`],
        ),
      );
    const faults = only(template, "AWS::CloudWatch::Alarm", {
      Threshold: 5,
      EvaluationPeriods: 3,
      DatapointsToAlarm: 2,
      AlarmDescription: Match.stringLikeRegexp("calls ended 5xx"),
    })[1];
    expect(metricsOf(faults)).toEqual({
      expr_1: "IF(calls >= 10, 100 * FILL(faults, 0) / calls, 0)",
      calls: "Toolbelt/Calls:Sum",
      faults: "Toolbelt/CallFaults:Sum",
    });
    const none = only(template, "AWS::CloudWatch::Alarm", { Threshold: 50, AlarmDescription: Match.stringLikeRegexp("finds found no tool") })[1];
    expect(metricsOf(none)).toEqual({ expr_1: "IF(finds >= 20, 100 * FILL(none, 0) / finds, 0)", finds: "Toolbelt/Finds:Sum", none: "Toolbelt/FindNone:Sum" });
    template.hasResourceProperties("AWS::CloudWatch::Alarm", {
      Namespace: "Toolbelt",
      MetricName: "PinsEvicted",
      Statistic: "Sum",
      Period: 3600,
      Threshold: 200,
    });
    for (const group of Object.keys(ENDPOINT_GROUPS)) {
      template.hasResourceProperties("AWS::Lambda::Function", {
        Description: ENDPOINT_GROUPS[group as keyof typeof ENDPOINT_GROUPS].description,
        Environment: { Variables: Match.objectLike({ TOOLBELT_METRICS_NAMESPACE: "Toolbelt" }) },
      });
    }

    // A second gateway in the same account names its own namespace: its functions write there and its alarms read there.
    const { template: t } = synthStack({ artifactDir: fixture.artifactDir, metricsNamespace: "Toolbelt/staging", metricAlarms: { callFaultPercent: 2 } });
    t.hasResourceProperties("AWS::CloudWatch::Alarm", { Namespace: "Toolbelt/staging", MetricName: "PinsEvicted" });
    t.hasResourceProperties("AWS::CloudWatch::Alarm", { Threshold: 2, AlarmDescription: Match.stringLikeRegexp("calls ended 5xx") });
    t.hasResourceProperties("AWS::Lambda::Function", { Environment: { Variables: Match.objectLike({ TOOLBELT_METRICS_NAMESPACE: "Toolbelt/staging" }) } });
  });

  it("keeps every log group for the configured retention (30 days by default)", async () => {
    const groups = Object.values(template.findResources("AWS::Logs::LogGroup")) as Resource[];
    expect(groups).toHaveLength(1 + Object.keys(ENDPOINT_GROUPS).length);
    for (const g of groups) expect(g.Properties.RetentionInDays).toBe(30);

    const { template: t } = synthStack({ artifactDir: fixture.artifactDir, logRetention: logs.RetentionDays.ONE_WEEK });
    for (const g of Object.values(t.findResources("AWS::Logs::LogGroup")) as Resource[]) expect(g.Properties.RetentionInDays).toBe(7);
  });
});

/** The default test catalog plus an optional family `extra` that reads ${EXTRA_URL}. */
async function makeArtifactWithVariables(): Promise<Fixture> {
  const dir = await mkdtemp(join(tmpdir(), "toolbelt-infra-vars-"));
  const input = testArtifactInput([...defaultTestTools(), testTool("extra.ping", { description: "Ping the extra service." })], {
    variables: { extra: { EXTRA_URL: { secret: false } } },
  });
  input.families = input.families.map((f) => (f.name === "extra" ? { ...f, required: false } : f));
  await buildTestArtifact(dir, input);
  return { artifactDir: dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

describe("refused at synth", () => {
  it("a policy holding a key instead of its digest", () => {
    expect(() =>
      synthStack({
        artifactDir: fixture.artifactDir,
        policy: { version: 1, principals: [{ id: "a", keys: ["plain-text-key"], allow: ["*"], deny: [], admin: false }] },
      }),
    ).toThrow(/invalid Toolbelt policy: principals\.0\.keys\.0: the SHA-256 digest of a key \(64 lower-case hex characters\), never the key itself/);
  });

  it("a registry that does not build, with the build's own report", async () => {
    const dir = await mkdtemp(join(tmpdir(), "toolbelt-badreg-"));
    try {
      await writeFile(join(dir, "families.yaml"), "families: [{name: x\n");
      expect(() => synthStack({ registryDir: dir })).toThrow(/the registry in .* does not build:\n[\s\S]*YAML_SYNTAX/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("regression (issue #10): a required family's declared variable that neither environment nor secrets provide, naming family and variable", () => {
    const valid = fileURLToPath(new URL("../fixtures/registries/valid", import.meta.url));
    expect(() => synthStack({ registryDir: valid, environment: { WEATHER_URL: "https://weather.example.com" } })).toThrow(
      /family `everything` needs EVERYTHING_MCP_URL \(pass it in `environment`\), EVERYTHING_TOKEN[\s\S]*family `weather` needs WEATHER_API_KEY \(a secret: pass it in `secrets`\), WEATHER_TOKEN/,
    );
    const { stack } = synthStack({
      registryDir: valid,
      environment: { WEATHER_URL: "https://weather.example.com", EVERYTHING_MCP_URL: "https://mcp.example.com/mcp" },
      secrets: { WEATHER_API_KEY: { parameter: "/w/key" }, WEATHER_TOKEN: { parameter: "/w/token" }, EVERYTHING_TOKEN: { secret: "everything" } },
    });
    expect(Annotations.fromStack(stack).findWarning("*", Match.stringLikeRegexp("toolbelt:unset-settings"))).toEqual([]);
  });

  it("an optional family's unset variable is a warning, and the family is left out of the deployment", async () => {
    const dir = await makeArtifactWithVariables();
    try {
      const { stack } = synthStack({ artifactDir: dir.artifactDir });
      const warnings = Annotations.fromStack(stack).findWarning("*", Match.stringLikeRegexp("optional family `extra` lacks EXTRA_URL .*: left out"));
      expect(warnings).toHaveLength(1);
      const deployed = stack.gateway.manifest;
      expect(deployed.skipped_families).toEqual(["extra"]);
      expect(deployed.counts).toEqual({ families: 4, tools: defaultTestTools().length });
      // Given the variable, the family is deployed with its tool.
      const { stack: full } = synthStack({ artifactDir: dir.artifactDir, environment: { EXTRA_URL: "https://extra.example.com" } });
      expect(full.gateway.manifest.skipped_families).toEqual([]);
      expect(full.gateway.manifest.counts).toEqual({ families: 5, tools: defaultTestTools().length + 1 });
    } finally {
      await dir.cleanup();
    }
  });

  it("an artifact folder without the artifact", () => {
    expect(() => synthStack({ artifactDir: "/nonexistent/toolbelt-artifact" })).toThrow(/lacks manifest\.json, catalog\.json, names\.json, index\.json/);
  });

  it("a brief that does not follow the brief contract", () => {
    expect(() => synthStack({ artifactDir: fixture.artifactDir, briefs: [{ version: 1, name: "Bad Name", description: "x", tools: ["git.*"] }] })).toThrow(
      /invalid brief briefs\[0\]: name: /,
    );
  });

  it("a secret named like a reserved variable", () => {
    expect(() => synthStack({ artifactDir: fixture.artifactDir, secrets: { AWS_SECRET_ACCESS_KEY: { parameter: "/x" } } })).toThrow(
      /outside AWS_\*, LAMBDA_\*, TOOLBELT_\*/,
    );
  });
});
