// The construct's `identity`: an external issuer lands in the staged policy; the Cognito form creates the
// pool, a resource server named by the API's URL with its scopes, code + PKCE clients, a domain and groups,
// and hands the functions TOOLBELT_IDENTITY (resolved here from the template's Fn::Join); claims that can
// never match are warned about at synth; cdk-nag finds nothing unacknowledged.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as z from "zod";
import { App, Names, Stack, Validations } from "aws-cdk-lib";
import { Annotations, Match, type Template } from "aws-cdk-lib/assertions";
import * as acm from "aws-cdk-lib/aws-certificatemanager";
import { AwsSolutionsChecks } from "cdk-nag";
import type { IConstruct } from "constructs";
import { BUNDLED_POLICY_FILE } from "../../infra/bundling.js";
import { IDENTITY_ENV } from "../../infra/identity.js";
import type { ToolbeltStack } from "../../infra/stack.js";
import type { ToolbeltGatewayProps } from "../../infra/toolbelt-gateway.js";
import { Identity, type PolicyFile } from "../../registry/contract/policy.js";
import { makeArtifact, removeOutdirs, synthStack, TEST_DIGEST, type Fixture } from "./stack-fixture.js";

let fixture: Fixture;
beforeAll(async () => {
  fixture = await makeArtifact();
});
afterAll(async () => {
  await fixture.cleanup();
  await removeOutdirs();
});

/** A policy whose users are mapped by group: the shape the identity docs recommend. */
const GROUPS_POLICY: PolicyFile = {
  version: 1,
  principals: [
    { id: "agent", keys: [TEST_DIGEST], allow: ["*"], deny: [], admin: true },
    { id: "staff", keys: [], allow: ["*"], deny: [], admin: false, claims: { "cognito:groups": ["staff"] } },
  ],
};

const CLIENTS = [{ name: "mcp-clients", callbackUrls: ["https://claude.ai/api/mcp/auth_callback", "http://localhost:6274/oauth/callback"] }];

const synth = (gateway: Partial<ToolbeltGatewayProps>, opts: Parameters<typeof synthStack>[1] = {}) =>
  synthStack({ artifactDir: fixture.artifactDir, ...gateway }, opts);

/** The policy file staged for the bundles (what TOOLBELT_POLICY points at in every function). */
function stagedPolicy(app: App, stack: ToolbeltStack): PolicyFile {
  return JSON.parse(readFileSync(join(app.outdir, "toolbelt-staging", Names.uniqueId(stack.gateway), BUNDLED_POLICY_FILE), "utf8")) as PolicyFile;
}

// biome-ignore lint/suspicious/noExplicitAny: CloudFormation JSON, read loosely.
type Cfn = any;

/**
 * Evaluates Ref, Fn::GetAtt and Fn::Join as CloudFormation would, with the logical id standing for a
 * resource's id (`LogicalId`, `LogicalId.Attribute`); a resource server's Ref is its identifier.
 */
function evaluate(v: Cfn, t?: Template): string {
  if (typeof v === "string") return v;
  if (v.Ref) {
    const server = t?.findResources("AWS::Cognito::UserPoolResourceServer")[v.Ref] as Cfn;
    if (server) return evaluate(server.Properties.Identifier, t);
    return { "AWS::Region": "eu-west-1", "AWS::URLSuffix": "amazonaws.com", "AWS::Partition": "aws" }[v.Ref as string] ?? v.Ref;
  }
  if (v["Fn::GetAtt"]) return v["Fn::GetAtt"].join(".");
  if (v["Fn::Join"]) return (v["Fn::Join"][1] as Cfn[]).map((p) => evaluate(p, t)).join(v["Fn::Join"][0]);
  throw new Error(`cannot evaluate ${JSON.stringify(v)}`);
}

const logicalId = (t: Template, type: string): string => {
  const ids = Object.keys(t.findResources(type));
  expect(ids, type).toHaveLength(1);
  return ids[0]!;
};

function functionEnvironments(t: Template): Record<string, Cfn>[] {
  return Object.values(t.findResources("AWS::Lambda::Function")).map((f: Cfn) => f.Properties.Environment.Variables);
}

/** The identity the Cognito form hands the functions: the policy contract's shape plus the accepted client ids. */
const CognitoTokenIdentity = Identity.extend({ client_ids: z.array(z.string().min(1)).min(1) });

describe("identity: an external issuer", () => {
  it("is written into the staged policy, and no function gets TOOLBELT_IDENTITY", () => {
    const { app, stack, template } = synth({
      policy: GROUPS_POLICY,
      identity: { issuer: "https://login.example.com/oauth2/default", scopes: ["toolbelt"], subjectClaim: "uid", algorithms: ["RS256"] },
    });
    expect(stagedPolicy(app, stack).identity).toEqual({
      issuer: "https://login.example.com/oauth2/default",
      algorithms: ["RS256"],
      subject_claim: "uid",
      scopes: ["toolbelt"],
    });
    for (const env of functionEnvironments(template)) expect(env).not.toHaveProperty(IDENTITY_ENV);
    template.resourceCountIs("AWS::Cognito::UserPool", 0);
    expect(Annotations.fromStack(stack).findWarning("*", Match.stringLikeRegexp("toolbelt:(identity|claim|group)"))).toEqual([]);
  });

  it("keeps an audience and JWKS URI given, and the policy without an identity stays without one", () => {
    const { app, stack } = synth({
      policy: GROUPS_POLICY,
      identity: {
        issuer: "https://tenant.example.auth0.test/",
        audience: "https://tools.example.com",
        jwksUri: "https://tenant.example.auth0.test/.well-known/jwks.json",
      },
    });
    expect(stagedPolicy(app, stack).identity).toMatchObject({
      audience: "https://tools.example.com",
      jwks_uri: "https://tenant.example.auth0.test/.well-known/jwks.json",
    });
    const plain = synth({ policy: GROUPS_POLICY });
    expect(stagedPolicy(plain.app, plain.stack).identity).toBeUndefined();
  });

  it("is refused when the policy names an identity too, or a value is only known at deploy, or the issuer is not a URL", () => {
    const withIdentity: PolicyFile = { ...GROUPS_POLICY, identity: { issuer: "https://a.example.com", subject_claim: "sub", scopes: [] } };
    expect(() => synth({ policy: withIdentity, identity: { issuer: "https://b.example.com" } })).toThrow(/keep one/);
    const deployTime = new Stack(new App(), "Other").formatArn({ service: "x", resource: "y" });
    expect(() => synth({ policy: GROUPS_POLICY, identity: { issuer: "https://a.example.com", audience: deployTime } })).toThrow(
      /identity\.audience is only known at deploy/,
    );
    expect(() => synth({ policy: GROUPS_POLICY, identity: { issuer: "not a url" } })).toThrow(/invalid Toolbelt policy: identity\.issuer/);
  });
});

describe("identity: a Cognito user pool", () => {
  let template: Template;
  let app: App;
  let stack: ToolbeltStack;
  beforeAll(() => {
    ({ template, app, stack } = synth({
      policy: GROUPS_POLICY,
      identity: { cognito: { domainPrefix: "acme-tools", clients: CLIENTS, groups: ["staff", "contractors"] } },
    }));
  });

  it("creates a pool for administrators to fill: no self sign-up, MFA required (TOTP), a strong password policy, Essentials", () => {
    template.hasResourceProperties("AWS::Cognito::UserPool", {
      AdminCreateUserConfig: { AllowAdminCreateUserOnly: true },
      MfaConfiguration: "ON",
      EnabledMfas: ["SOFTWARE_TOKEN_MFA"],
      Policies: { PasswordPolicy: { MinimumLength: 12, RequireLowercase: true, RequireUppercase: true, RequireNumbers: true, RequireSymbols: true } },
      UserPoolTier: "ESSENTIALS",
      DeletionProtection: "ACTIVE",
    });
    template.hasResource("AWS::Cognito::UserPool", { DeletionPolicy: "Retain" });
  });

  // The API's URL is its ApiEndpoint attribute (https://ID.execute-api.REGION.amazonaws.com), what TOOLBELT_PUBLIC_ORIGINS holds.
  it("names its resource server by the API's URL, with the scopes", () => {
    const api = logicalId(template, "AWS::ApiGatewayV2::Api");
    const [server] = Object.values(template.findResources("AWS::Cognito::UserPoolResourceServer")) as Cfn[];
    expect(evaluate(server.Properties.Identifier)).toBe(`${api}.ApiEndpoint`);
    expect(server.Properties.Scopes).toEqual([{ ScopeName: "tools", ScopeDescription: "Toolbelt tools" }]);
  });

  it("gives each app client the authorization code flow only, no secret (PKCE), the resource server's scope and its callbacks", () => {
    const api = logicalId(template, "AWS::ApiGatewayV2::Api");
    const [client] = Object.values(template.findResources("AWS::Cognito::UserPoolClient")) as Cfn[];
    const p = client.Properties;
    expect(p).toMatchObject({
      ClientName: "mcp-clients",
      AllowedOAuthFlows: ["code"],
      AllowedOAuthFlowsUserPoolClient: true,
      GenerateSecret: false,
      CallbackURLs: CLIENTS[0]!.callbackUrls,
      SupportedIdentityProviders: ["COGNITO"],
      PreventUserExistenceErrors: "ENABLED",
      EnableTokenRevocation: true,
    });
    expect(p.AllowedOAuthScopes.map((x: Cfn) => evaluate(x, template)).sort()).toEqual([`${api}.ApiEndpoint/tools`, "openid"].sort());
  });

  it("creates the sign-in domain and the groups", () => {
    template.hasResourceProperties("AWS::Cognito::UserPoolDomain", { Domain: "acme-tools" });
    const groups = Object.values(template.findResources("AWS::Cognito::UserPoolGroup")).map((g: Cfn) => g.Properties.GroupName);
    expect(groups.sort()).toEqual(["contractors", "staff"]);
  });

  it("hands every function the pool's identity in TOOLBELT_IDENTITY, and stages a policy without one", () => {
    const pool = logicalId(template, "AWS::Cognito::UserPool");
    const client = logicalId(template, "AWS::Cognito::UserPoolClient");
    const api = logicalId(template, "AWS::ApiGatewayV2::Api");
    const envs = functionEnvironments(template);
    expect(envs.length).toBeGreaterThanOrEqual(3);
    for (const env of envs) {
      const identity = CognitoTokenIdentity.parse(JSON.parse(evaluate(env[IDENTITY_ENV])));
      expect(identity).toEqual({
        issuer: `https://${pool}.ProviderURL`,
        jwks_uri: `https://${pool}.ProviderURL/.well-known/jwks.json`,
        algorithms: ["RS256"],
        subject_claim: "sub",
        scopes: [`${api}.ApiEndpoint/tools`],
        client_ids: [client],
      });
      // The resource server names the same origin the gateway calls its own (its default audience).
      expect(evaluate(env.TOOLBELT_PUBLIC_ORIGINS)).toBe(`${api}.ApiEndpoint`);
    }
    expect(stagedPolicy(app, stack).identity).toBeUndefined();
  });

  it("names the resource by the custom domain when there is one", () => {
    const imports = new Stack(new App(), "Imports");
    const { template: t } = synth({
      policy: GROUPS_POLICY,
      identity: { cognito: { domainPrefix: "acme-tools", clients: CLIENTS, scopes: ["tools", "admin"] } },
      domain: {
        name: "tools.example.com",
        certificate: acm.Certificate.fromCertificateArn(imports, "Cert", "arn:aws:acm:eu-west-1:123456789012:certificate/abc"),
      },
    });
    t.hasResourceProperties("AWS::Cognito::UserPoolResourceServer", { Identifier: "https://tools.example.com" });
    const [fn] = functionEnvironments(t);
    // Only the first scope is required of every token; the others are there for principals to match.
    expect(JSON.parse(evaluate(fn![IDENTITY_ENV])).scopes).toEqual(["https://tools.example.com/tools"]);
  });

  it("is refused without an app client, with a client named twice, or beside a policy that names an identity", () => {
    expect(() => synth({ policy: GROUPS_POLICY, identity: { cognito: { domainPrefix: "acme-tools", clients: [] } } })).toThrow(/at least one app client/);
    expect(() => synth({ policy: GROUPS_POLICY, identity: { cognito: { domainPrefix: "acme-tools", clients: [...CLIENTS, ...CLIENTS] } } })).toThrow(
      /named twice/,
    );
    const withIdentity: PolicyFile = { ...GROUPS_POLICY, identity: { issuer: "https://a.example.com", subject_claim: "sub", scopes: [] } };
    expect(() => synth({ policy: withIdentity, identity: { cognito: { domainPrefix: "acme-tools", clients: CLIENTS } } })).toThrow(/keep one/);
  });
});

describe("identity: claims checked at synth", () => {
  const warnings = (stack: Stack, id: string) => Annotations.fromStack(stack).findWarning("*", Match.stringLikeRegexp(`toolbelt:${id}`));

  it("warns when an identity is configured but no principal maps claims", () => {
    const { stack } = synth({ identity: { issuer: "https://login.example.com" } });
    expect(warnings(stack, "identity-without-claims")).toHaveLength(1);
  });

  it("warns when principals map claims but no identity is configured", () => {
    const { stack } = synth({ policy: GROUPS_POLICY });
    expect(warnings(stack, "claims-without-identity")).toHaveLength(1);
  });

  it("warns, for a Cognito pool, about claims its access tokens lack and groups it does not create", () => {
    const policy: PolicyFile = {
      ...GROUPS_POLICY,
      principals: [
        ...GROUPS_POLICY.principals,
        { id: "okta-style", keys: [], allow: [], deny: [], admin: false, claims: { groups: "staff" } },
        { id: "typo", keys: [], allow: [], deny: [], admin: false, claims: { "cognito:groups": "contractor" } },
      ],
    };
    const { stack } = synth({ policy, identity: { cognito: { domainPrefix: "acme-tools", clients: CLIENTS, groups: ["staff", "contractors"] } } });
    expect(warnings(stack, "claim-not-in-cognito-tokens")).toHaveLength(1);
    expect(warnings(stack, "group-not-created")).toHaveLength(1);
    expect(warnings(stack, "identity-without-claims")).toHaveLength(0);
  });
});

function acknowledgments(root: IConstruct): Array<{ id: string; reason: string }> {
  return root.node
    .findAll()
    .flatMap((c) =>
      c.node.metadata
        .filter((m) => m.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
        .flatMap((m) => Object.entries(m.data as Record<string, string>).map(([id, reason]) => ({ id: id.replace(/^Annotation::/, ""), reason }))),
    );
}

describe("identity: cdk-nag AwsSolutions", () => {
  it("finds nothing unacknowledged with a Cognito pool, and acknowledges only the Essentials plan, with its reason", () => {
    const { app, stack } = synth({ policy: GROUPS_POLICY, identity: { cognito: { domainPrefix: "acme-tools", clients: CLIENTS } } }, { cfnValidation: true });
    expect(new AwsSolutionsChecks(app, { verbose: true }).validateScope(stack).violations).toEqual([]);
    const acks = acknowledgments(stack);
    expect([...new Set(acks.map((a) => a.id))].sort()).toEqual(["AwsSolutions-APIG4", "AwsSolutions-COG8"]);
    for (const a of acks) expect(a.reason.length, a.id).toBeGreaterThan(40);
  });

  it("needs no Cognito acknowledgment with threat protection on, and acknowledges optional MFA when chosen", () => {
    const plus = synth({ policy: GROUPS_POLICY, identity: { cognito: { domainPrefix: "acme-tools", clients: CLIENTS, threatProtection: true } } });
    expect(new AwsSolutionsChecks(plus.app).validateScope(plus.stack).violations).toEqual([]);
    expect(acknowledgments(plus.stack).map((a) => a.id)).toEqual(["AwsSolutions-APIG4"]);
    plus.template.hasResourceProperties("AWS::Cognito::UserPool", { UserPoolTier: "PLUS", UserPoolAddOns: { AdvancedSecurityMode: "ENFORCED" } });

    const optional = synth({ policy: GROUPS_POLICY, identity: { cognito: { domainPrefix: "acme-tools", clients: CLIENTS, mfa: "optional" } } });
    expect(new AwsSolutionsChecks(optional.app).validateScope(optional.stack).violations).toEqual([]);
    expect(acknowledgments(optional.stack).map((a) => a.id)).toContain("AwsSolutions-COG2");
  });

  it("finds nothing unacknowledged with an external issuer", () => {
    const { app, stack } = synth({ policy: GROUPS_POLICY, identity: { issuer: "https://login.example.com" } });
    expect(new AwsSolutionsChecks(app).validateScope(stack).violations).toEqual([]);
  });
});
