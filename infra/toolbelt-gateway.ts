// ToolbeltGateway: the whole deployable gateway as one construct. A user embeds it in their own
// CDK app with their registry (or a prebuilt artifact) and their policy.
import { readFileSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { Annotations, CfnOutput, Duration, RemovalPolicy, Stack, Validations } from "aws-cdk-lib";
import { AccessLogFormat } from "aws-cdk-lib/aws-apigateway";
import * as apigw from "aws-cdk-lib/aws-apigatewayv2";
import { HttpLambdaIntegration } from "aws-cdk-lib/aws-apigatewayv2-integrations";
import type * as acm from "aws-cdk-lib/aws-certificatemanager";
import type * as cloudwatch from "aws-cdk-lib/aws-cloudwatch";
import * as cwActions from "aws-cdk-lib/aws-cloudwatch-actions";
import * as dynamodb from "aws-cdk-lib/aws-dynamodb";
import * as iam from "aws-cdk-lib/aws-iam";
import * as kms from "aws-cdk-lib/aws-kms";
import * as lambda from "aws-cdk-lib/aws-lambda";
import * as logs from "aws-cdk-lib/aws-logs";
import * as route53 from "aws-cdk-lib/aws-route53";
import * as route53Targets from "aws-cdk-lib/aws-route53-targets";
import type * as sns from "aws-cdk-lib/aws-sns";
import { Construct } from "constructs";
import { ARTIFACT_FILES, type Catalog, type Manifest } from "../registry/contract/artifact.js";
import { isCallable } from "../registry/contract/callable.js";
import type { PolicyFile } from "../registry/contract/policy.js";
import { CORS_RULES } from "../lambdas/contract/cors.js";
import { DEFAULT_RUNTIME } from "./lambda-runtimes.js";
import { SECRETS_ENV } from "../lambdas/secrets.js";
import { functionAlarms, gatewayMetricAlarms, serverErrorRateAlarm, type MetricAlarmOptions } from "./alarms.js";
import { METRICS_NAMESPACE } from "../lambdas/http/telemetry.js";
import { MODELS_ENV, parseModelRoles, type ModelRole } from "../lambdas/models/roles.js";
import { DEFAULT_AUDIT_TTL_DAYS } from "../lambdas/config.js";
import { checkUpstreamSettings } from "./upstream-settings.js";
import { BUNDLED_ARTIFACT_DIR, BUNDLED_BRIEFS_FILE, BUNDLED_POLICY_FILE, LAMBDA_TASK_ROOT } from "./bundling.js";
import { lambdaCode } from "./lambda-code.js";
import { ENDPOINT_GROUPS, HTTP_API_INTEGRATION_LIMIT_SECS, type EndpointGroupName, type EndpointGroupSpec } from "./endpoint-groups.js";
import { leaveOut, PROJECT_ROOT, stageDeploymentFiles, type Staged } from "./staging.js";
import { checkClaims, externalIdentity, GatewayUserPool, IDENTITY_ENV, type IdentityProps, isCognito } from "./identity.js";

/** The project root: handler entries, the lock file and build/cli.ts are resolved from here. */
export { PROJECT_ROOT };

/** The environment variable through which the call function learns where its secrets live. */
export { SECRETS_ENV };
/** This module is the package entry (`toolbelt/infra`): what a user's stack needs beside the construct. */
export { ENDPOINT_GROUPS, type EndpointGroupName, type EndpointGroupSpec, type MetricAlarmOptions };
export type { CognitoClientProps, CognitoIdentityProps, ExternalIssuerProps, IdentityProps } from "./identity.js";
/** SSM exposes Secrets Manager secrets under this read-only parameter path. */
export const SECRETS_MANAGER_REFERENCE_PREFIX = "/aws/reference/secretsmanager/";

/**
 * Where an upstream secret lives. It is fetched by the call function at cold start
 * (lambdas/secrets.ts); the template and the bundle only ever hold its name.
 */
export type SecretRef =
  /** An SSM Parameter Store parameter (String or SecureString), e.g. "/toolbelt/github-token". */
  | { parameter: string }
  /** A Secrets Manager secret by name, read through SSM's reference path so one client serves both. */
  | { secret: string };

/**
 * A model behind a role (TOOLBELT_MODELS): `decider` for find's decision mode, `prompt` (or the role a
 * prompt tool names) for prompt tools. An OpenAI-compatible endpoint's key lives in SSM or Secrets
 * Manager like upstream secrets; Bedrock needs none (the function's role gets bedrock:InvokeModel on
 * exactly the configured models).
 */
export type ModelRoleProps =
  | { provider: "openai"; url: string; model: string; key?: SecretRef; timeoutMs?: number; maxTokens?: number }
  /** `model` is a model id (granted as its foundation-model ARN in `region`) or a full ARN (an inference profile, granted as written). */
  | { provider: "bedrock"; model: string; region?: string; timeoutMs?: number; maxTokens?: number };

export type EndpointGroupOverrides = {
  memoryMb?: number;
  timeoutSecs?: number;
  /** Caps concurrent invocations (and so DynamoDB and upstream load); unreserved by default. */
  reservedConcurrency?: number;
  /**
   * Environments kept initialised (no cold start for that many concurrent requests). The function
   * gets a version and an alias `live` holding the provisioned concurrency; the routes invoke the alias.
   * None by default: provisioned concurrency is billed whether used or not.
   */
  provisionedConcurrency?: number;
};

/** A custom domain for the API. */
export type GatewayDomain = {
  /** e.g. "tools.example.com". */
  readonly name: string;
  /** An ACM certificate for that name, in the stack's region (a regional API Gateway domain). */
  readonly certificate: acm.ICertificate;
  /** When given, alias A and AAAA records for `name` in this zone point at the API. */
  readonly hostedZone?: route53.IHostedZone;
};

export interface ToolbeltGatewayProps {
  /** A prebuilt artifact folder (manifest.json, catalog.json, names.json, index.json). */
  readonly artifactDir?: string;
  /** A registry folder; its artifact is built at synth time with `build/cli.ts build`. */
  readonly registryDir?: string;
  /**
   * Principals, key digests and grants: a JSON or YAML file path, or the object. Validated at
   * synth (only SHA-256 digests pass, never keys) and shipped inside each bundle as a file that
   * TOOLBELT_POLICY points at: not inline in the environment (Lambda allows 4 KB of variables in
   * all, and the template would carry it), not in SSM (one more round trip and grant at every cold
   * start for data that changes with a deploy anyway).
   */
  readonly policy: string | PolicyFile;
  /**
   * Who signs users in (OAuth access tokens, validated by the functions against the issuer's keys; API keys
   * keep working): an external OpenID Connect issuer, written into the staged policy as its `identity`, or
   * `{ cognito: {...} }` for a Cognito user pool created here (resource server named by the API's URL, app
   * clients with authorization code + PKCE, a sign-in domain, groups), passed to the functions in
   * TOOLBELT_IDENTITY because its ids exist only at deploy. Principals match users with `claims`.
   */
  readonly identity?: IdentityProps;
  /**
   * Declared briefs, shipped like the policy: a folder of brief files (as `registry/briefs/`), one
   * JSON/YAML file holding an array, or the array. Each is validated at synth.
   */
  readonly briefs?: string | unknown[];
  /** Always-loaded names or globs; replaces the registry's list. */
  readonly alwaysLoaded?: string[];
  /**
   * An existing table instead of one created here (no table is created then). It must have string keys
   * `pk` (partition) and `sk` (sort) and TTL on `expires_at`; each function is granted exactly the actions
   * its stores issue on it, and encrypt/decrypt on its key when it has a customer-managed one.
   * `deletionProtection` and `removalPolicy` do not apply to it.
   */
  readonly table?: dynamodb.ITable;
  /** Serve the API on a custom domain (the `$default` stage is mapped to it); `url` is then `https://NAME/`. */
  readonly domain?: GatewayDomain;
  /**
   * X-Ray active tracing on every function (invocations, cold starts and their duration). The HTTP API
   * itself cannot be traced: X-Ray supports REST APIs only, and an HTTP API stage has no tracing setting.
   * Off by default. The roles then get `xray:PutTraceSegments` and `xray:PutTelemetryRecords`, which
   * take no resource (`*`): the one wildcard resource of the construct, acknowledged for cdk-nag.
   */
  readonly tracing?: boolean;
  /**
   * The functions' processor. Default ARM_64 (Graviton: about 20% cheaper per GB-second). The bundles are
   * plain JavaScript with no native module, so X86_64 runs the same code.
   */
  readonly architecture?: lambda.Architecture;
  /** Idle session lifetime in seconds (the TTL written to `expires_at`). */
  readonly sessionTtlSecs?: number;
  /**
   * Days each call's audit record stays in the table for the console's calls view and charts, besides
   * its log line (TOOLBELT_AUDIT_TTL_DAYS on the call, MCP and console functions). Default 7; 0 turns the
   * audit store off (TOOLBELT_AUDIT_STORE=off): calls are then in the logs only, and the console's calls
   * view says the store is off. The console reads at most the last 7 days whatever the TTL.
   */
  readonly auditTtlDays?: number;
  /** Upstream secrets: environment variable name (as tools reference it, `${NAME}`) → where it lives. */
  readonly secrets?: Record<string, SecretRef>;
  /** A customer-managed key encrypting those SecureString parameters (the AWS-managed key needs no grant). */
  readonly secretsKey?: kms.IKey;
  /** Refuse table deletion through CloudFormation or the console. Default true. */
  readonly deletionProtection?: boolean;
  /**
   * What happens to the table and the log groups when they leave the stack. Default RETAIN: the
   * table holds the name-miss log operators read and the logs are the audit trail; use DESTROY
   * for throwaway stacks (and turn deletionProtection off).
   */
  readonly removalPolicy?: RemovalPolicy;
  /** Retention of every log group (functions and API access logs). Default one month. */
  readonly logRetention?: logs.RetentionDays;
  /** Alarms notify this topic when given. */
  readonly alarmTopic?: sns.ITopic;
  /** Alarm when more than this percentage of requests fail with 5xx over 5 minutes. Default 5. */
  readonly serverErrorRatePercent?: number;
  /**
   * CloudWatch namespace of the functions' metrics (TOOLBELT_METRICS_NAMESPACE). Default `Toolbelt`;
   * give each gateway of one account and region its own, or their metrics and alarms mix.
   */
  readonly metricsNamespace?: string;
  /** Thresholds of the alarms on the gateway's metrics (call fault rate, find none-rate, pin evictions). */
  readonly metricAlarms?: Omit<MetricAlarmOptions, "namespace">;
  /** Steady-state and burst request limits of the API stage. Default 50/s, burst 100. */
  readonly throttle?: { rateLimit: number; burstLimit: number };
  /**
   * An API Gateway authorizer (e.g. JWT/OIDC) in front of every route, as a second way in. Bearer
   * keys are checked by the functions against the policy in any case. Routes that carry no data and must
   * load without credentials (`public` in the group's spec: health, OpenAPI, the console's page, the OAuth
   * metadata) skip it.
   */
  readonly authorizer?: apigw.IHttpRouteAuthorizer;
  /**
   * Run `exec` tools (registry commands) on the Lambda host. Default false: exec is meant for
   * local and self-hosted use, the Lambda image has none of the usual commands, and a shared
   * gateway should not run processes; exec tools then answer 501 (TOOLBELT_EXEC=off).
   */
  readonly allowExec?: boolean;
  /**
   * Absolute directories file and git tools may touch (TOOLBELT_FILE_ROOTS). Default none: with
   * allowExec they answer 403 PATH_OUTSIDE_ROOTS until roots are given; /proc, /sys and /dev are
   * never inside a root.
   */
  readonly fileRoots?: string[];
  /**
   * Origins (`https://host[:port]`) whose web pages may call the gateway: a browser MCP client or a
   * console on another site (TOOLBELT_ALLOWED_ORIGINS). Default none: the API's own URL and custom
   * domain only; requests without an Origin header (SDK clients, curl) are not affected.
   */
  readonly allowedOrigins?: string[];
  /** Per-group sizing overrides. */
  readonly groups?: Partial<Record<EndpointGroupName, EndpointGroupOverrides>>;
  /**
   * The Lambda runtime. Default Node.js 24 (nodejs24.x), the supported runtime with the longest
   * runway (infra/lambda-runtimes.ts has AWS's dates); the bundled handlers are tested on it.
   */
  readonly runtime?: lambda.Runtime;
  /**
   * Models by role. The call and MCP functions serve prompt tools with every role; the api function
   * (find) loads no secrets and carries no Bedrock client, so its decision mode needs an
   * OpenAI-compatible decider without a key (a key or Bedrock decider falls back to keywords, saying why).
   */
  readonly models?: Record<string, ModelRoleProps>;
  /** Extra environment for every function (e.g. TOOLBELT_SURFACE_MAX_TOOLS). */
  readonly environment?: Record<string, string>;
}

export type EndpointGroup = {
  readonly fn: lambda.Function;
  /** The alias `live` the routes invoke, when the group has provisioned concurrency. */
  readonly alias?: lambda.Alias;
  readonly role: iam.Role;
  readonly logGroup: logs.LogGroup;
  readonly alarms: cloudwatch.Alarm[];
  readonly routes: apigw.HttpRoute[];
};

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const RESERVED_ENV = /^(AWS_|LAMBDA_|TOOLBELT_|_)/;
const pascal = (s: string) => s.replace(/(^|[-_])(\w)/g, (_m, _sep, c: string) => c.toUpperCase());

export class ToolbeltGateway extends Construct {
  /** The table created here, or the one passed in `table`. */
  readonly table: dynamodb.ITable;
  readonly api: apigw.HttpApi;
  readonly stage: apigw.HttpStage;
  readonly groups = new Map<string, EndpointGroup>();
  /** The artifact's manifest, read at synth. */
  readonly manifest: Manifest;
  /** The API's base URL: `https://DOMAIN/` with a custom domain, else the $default stage's URL. */
  readonly url: string;
  /** The custom domain, when `domain` is given. */
  readonly domainName?: apigw.DomainName;
  /** Wraps the data keys of principals' sealed upstream tokens; created only when a family declares `credentials: per_principal`. */
  readonly credentialsKey?: kms.Key;
  /** The Cognito user pool, its resource server, clients and domain, with `identity: { cognito }`. */
  readonly userPool?: GatewayUserPool;

  private readonly props: ToolbeltGatewayProps;
  private readonly staged: Staged;
  private readonly catalog: Catalog;
  private readonly alarmAction?: cwActions.SnsAction;
  /** TOOLBELT_AUDIT_STORE and TOOLBELT_AUDIT_TTL_DAYS for the groups that write or read the audit store. */
  private readonly auditEnv: Record<string, string>;
  /** Where the functions write their metrics and the metric alarms read them. */
  readonly metricsNamespace: string;

  constructor(scope: Construct, id: string, props: ToolbeltGatewayProps) {
    super(scope, id);
    this.props = props;
    const badRoot = props.fileRoots?.find((r) => !isAbsolute(r) || r.includes(":"));
    if (badRoot !== undefined) throw new Error(`fileRoots must be absolute paths without ":", got ${JSON.stringify(badRoot)}`);
    const badOrigin = props.allowedOrigins?.find((o) => !URL.canParse(o) || new URL(o).origin !== o);
    if (badOrigin !== undefined)
      throw new Error(`allowedOrigins must be origins such as https://console.example.com (no path, no trailing slash), got ${JSON.stringify(badOrigin)}`);
    this.auditEnv = auditEnvironment(props.auditTtlDays);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    if (props.alarmTopic) this.alarmAction = new cwActions.SnsAction(props.alarmTopic);
    this.metricsNamespace = props.metricsNamespace ?? METRICS_NAMESPACE;

    const { identity } = props;
    let staged = stageDeploymentFiles(this, { ...props, identity: identity && !isCognito(identity) ? externalIdentity(identity) : undefined });
    checkClaims(this, staged.policy, identity);
    if (identity && isCognito(identity) && staged.policy.identity) {
      throw new Error("the policy names an identity and the construct creates a Cognito user pool: keep one");
    }
    const read = (f: string) => JSON.parse(readFileSync(join(staged.artifactDir, f), "utf8")) as unknown;
    const provided = new Set([...Object.keys(props.environment ?? {}), ...Object.keys(props.secrets ?? {})]);
    const leftOut = checkUpstreamSettings(this, (read(ARTIFACT_FILES.catalog) as Catalog).families, provided);
    if (leftOut.length > 0) staged = leaveOut(staged, leftOut);
    this.staged = staged;
    this.manifest = read(ARTIFACT_FILES.manifest) as Manifest;
    this.catalog = read(ARTIFACT_FILES.catalog) as Catalog;

    // One table for sessions, pins and misses (pk/sk), billed per request: traffic is bursty
    // agent work, and idle deployments then cost nothing.
    this.table =
      props.table ??
      new dynamodb.Table(this, "Table", {
        partitionKey: { name: "pk", type: dynamodb.AttributeType.STRING },
        sortKey: { name: "sk", type: dynamodb.AttributeType.STRING },
        billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
        timeToLiveAttribute: "expires_at",
        pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
        deletionProtection: props.deletionProtection ?? true,
        removalPolicy,
      });

    // Principals' own upstream tokens are sealed under data keys this key wraps (lambdas/stores/credentials.ts).
    if (this.catalog.families.some((f) => f.credentials)) {
      this.credentialsKey = new kms.Key(this, "CredentialsKey", {
        description: "Toolbelt: wraps the data keys of principals' sealed upstream tokens",
        enableKeyRotation: true,
        removalPolicy,
      });
    }

    const accessLogs = new logs.LogGroup(this, "ApiAccessLogs", {
      retention: props.logRetention ?? logs.RetentionDays.ONE_MONTH,
      removalPolicy,
    });
    this.api = new apigw.HttpApi(this, "Api", {
      description: "Toolbelt: find, surface, sessions, call and MCP for AI agents",
      createDefaultStage: false,
      // Only the listed origins' pages may call cross-origin (the functions check Origin too); without
      // a list, no preflight succeeds and browsers reach the API from its own origin only.
      ...(props.allowedOrigins?.length
        ? {
            corsPreflight: {
              allowOrigins: [...props.allowedOrigins],
              allowMethods: CORS_RULES.allowMethods.map((m) => apigw.CorsHttpMethod[m]),
              allowHeaders: [...CORS_RULES.allowHeaders],
              exposeHeaders: [...CORS_RULES.exposeHeaders],
              maxAge: Duration.seconds(CORS_RULES.maxAgeSecs),
            },
          }
        : {}),
    });
    if (props.domain) {
      // Regional, so the certificate lives in the stack's region; TLS 1.2 at least.
      this.domainName = new apigw.DomainName(this, "Domain", {
        domainName: props.domain.name,
        certificate: props.domain.certificate,
        endpointType: apigw.EndpointType.REGIONAL,
        securityPolicy: apigw.SecurityPolicy.TLS_1_2,
      });
    }
    this.stage = new apigw.HttpStage(this, "DefaultStage", {
      httpApi: this.api,
      stageName: "$default",
      autoDeploy: true,
      throttle: props.throttle ?? { rateLimit: 50, burstLimit: 100 },
      accessLogSettings: {
        destination: new apigw.LogGroupLogDestination(accessLogs),
        // No headers, no bodies: the bearer key and tool arguments never reach the logs.
        format: AccessLogFormat.custom(
          JSON.stringify({
            requestId: "$context.requestId",
            ip: "$context.identity.sourceIp",
            time: "$context.requestTimeEpoch",
            route: "$context.routeKey",
            status: "$context.status",
            latencyMs: "$context.responseLatency",
            integrationLatencyMs: "$context.integrationLatency",
            integrationError: "$context.integrationErrorMessage",
            bytes: "$context.responseLength",
          }),
        ),
      },
    });
    if (this.domainName) new apigw.ApiMapping(this, "DomainMapping", { api: this.api, domainName: this.domainName, stage: this.stage });
    this.url = props.domain ? `https://${props.domain.name}/` : this.stage.url;
    if (props.domain?.hostedZone && this.domainName) {
      const target = route53.RecordTarget.fromAlias(
        new route53Targets.ApiGatewayv2DomainProperties(this.domainName.regionalDomainName, this.domainName.regionalHostedZoneId),
      );
      const zone = props.domain.hostedZone;
      new route53.ARecord(this, "DomainRecord", { zone, recordName: props.domain.name, target });
      new route53.AaaaRecord(this, "DomainRecordIpv6", { zone, recordName: props.domain.name, target });
    }

    if (identity && isCognito(identity)) {
      this.userPool = new GatewayUserPool(this, "Identity", {
        ...identity.cognito,
        // The gateway's resource (its origin): the PRM's `resource`, the default audience, the scopes' prefix.
        resource: props.domain ? `https://${props.domain.name}` : this.api.apiEndpoint,
        removalPolicy,
        deletionProtection: props.deletionProtection ?? true,
      });
    }

    for (const [name, spec] of Object.entries(ENDPOINT_GROUPS)) this.addEndpointGroup(name, spec);
    serverErrorRateAlarm(this, this.api, props.serverErrorRatePercent ?? 5, this.alarmAction);
    gatewayMetricAlarms(this, { ...props.metricAlarms, namespace: this.metricsNamespace }, this.alarmAction);

    new CfnOutput(this, "ApiUrl", { value: this.url, description: "Base URL of the Toolbelt API" });
    new CfnOutput(this, "TableName", { value: this.table.tableName });
    new CfnOutput(this, "RegistryHash", { value: this.manifest.registry_hash, description: "Artifact deployed" });

    // cdk-nag findings this design accepts, each with its reason (checked by test/infra/nag.test.ts).
    if (!props.authorizer) {
      Validations.of(this.api).acknowledge({
        id: "AwsSolutions-APIG4",
        reason:
          "Every route authenticates in the function: bearer keys checked against the SHA-256 digests of the deployment policy; an API Gateway authorizer can be added with the `authorizer` prop.",
      });
    }
  }

  /**
   * Adds one endpoint group: its bundled function (with the artifact and policy), its role with
   * exactly the table actions it uses, its log group, alarms and routes. The MCP endpoint joins
   * this way: `gateway.addEndpointGroup("mcp", { entry: "lambdas/handlers/mcp.ts", routes: [...] , ... })`.
   */
  addEndpointGroup(name: string, spec: EndpointGroupSpec): EndpointGroup {
    if (this.groups.has(name)) throw new Error(`endpoint group ${name} exists already`);
    const props = this.props;
    const overrides = props.groups?.[name as EndpointGroupName] ?? {};
    const Name = pascal(name);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;

    const logGroup = new logs.LogGroup(this, `${Name}Logs`, {
      retention: props.logRetention ?? logs.RetentionDays.ONE_MONTH,
      removalPolicy,
    });
    // A role of our own instead of AWSLambdaBasicExecutionRole: that managed policy lets a function
    // create any log group and write to every one in the account.
    const role = new iam.Role(this, `${Name}Role`, {
      assumedBy: new iam.ServicePrincipal("lambda.amazonaws.com"),
      description: `Toolbelt ${name} function: its log group and ${spec.tableActions.length} table actions`,
    });
    role.addToPolicy(
      new iam.PolicyStatement({
        actions: ["logs:CreateLogStream", "logs:PutLogEvents"],
        resources: [logGroup.logGroupArn],
      }),
    );
    role.addToPolicy(new iam.PolicyStatement({ actions: [...spec.tableActions], resources: [this.table.tableArn] }));
    // A table brought in `table` may be encrypted with a customer-managed key: the actions CDK's table
    // grants use for reads and writes, on exactly that key.
    if (this.table.encryptionKey) {
      role.addToPolicy(
        new iam.PolicyStatement({
          actions: ["kms:Decrypt", "kms:Encrypt", "kms:ReEncrypt*", "kms:GenerateDataKey*"],
          resources: [this.table.encryptionKey.keyArn],
        }),
      );
    }

    const environment: Record<string, string> = {
      ...props.environment,
      TOOLBELT_ARTIFACT_DIR: `${LAMBDA_TASK_ROOT}/${BUNDLED_ARTIFACT_DIR}`,
      TOOLBELT_POLICY: `${LAMBDA_TASK_ROOT}/${BUNDLED_POLICY_FILE}`,
      TOOLBELT_TABLE: this.table.tableName,
      TOOLBELT_METRICS_NAMESPACE: this.metricsNamespace,
      // The bundled SDK would otherwise warn at every cold start that later releases need Node 22.
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
    };
    // The gateway's own origins, for its Origin check (lambdas/http/origin.ts): the API's URL and the custom domain.
    environment.TOOLBELT_PUBLIC_ORIGINS = [this.api.apiEndpoint, ...(props.domain ? [`https://${props.domain.name}`] : [])].join(",");
    if (props.allowedOrigins?.length) environment.TOOLBELT_ALLOWED_ORIGINS = props.allowedOrigins.join(",");
    // Every function authenticates, so every one validates the pool's tokens.
    if (this.userPool) environment[IDENTITY_ENV] = this.userPool.environmentValue();
    if (spec.dispatchesTools && !props.allowExec) environment.TOOLBELT_EXEC = "off";
    if (spec.dispatchesTools && props.fileRoots?.length) environment.TOOLBELT_FILE_ROOTS = props.fileRoots.join(":");
    if (this.staged.briefsFile) environment.TOOLBELT_BRIEFS = `${LAMBDA_TASK_ROOT}/${BUNDLED_BRIEFS_FILE}`;
    if (props.alwaysLoaded) environment.TOOLBELT_ALWAYS_LOADED = props.alwaysLoaded.join(",");
    if (props.sessionTtlSecs) environment.TOOLBELT_SESSION_TTL_SECS = String(props.sessionTtlSecs);
    if (spec.auditStore) Object.assign(environment, this.auditEnv);
    const models = this.modelRoles();
    if (models) environment[MODELS_ENV] = JSON.stringify(models.roles);
    const secrets = { ...props.secrets, ...(spec.upstreamSecrets ? models?.keys : {}) };
    if (spec.upstreamSecrets && Object.keys(secrets).length > 0) {
      environment[SECRETS_ENV] = JSON.stringify(this.grantSecrets(role, secrets));
    } else if (spec.secretNames && props.secrets && Object.keys(props.secrets).length > 0) {
      // Where each secret lives, and no grant to read it.
      environment[SECRETS_ENV] = JSON.stringify(secretParameters(props.secrets));
    }
    // Only the functions that call tools seal and open principals' tokens, and only with the toolbelt encryption context.
    if (spec.dispatchesTools && this.credentialsKey) {
      environment.TOOLBELT_CREDENTIALS_KMS_KEY = this.credentialsKey.keyArn;
      role.addToPolicy(
        new iam.PolicyStatement({
          actions: ["kms:GenerateDataKey", "kms:Decrypt"],
          resources: [this.credentialsKey.keyArn],
          // ForAllValues alone holds for a request with no context at all: Null requires the principal's.
          conditions: {
            "ForAllValues:StringEquals": { "kms:EncryptionContextKeys": ["toolbelt:principal", "toolbelt:family"] },
            Null: { "kms:EncryptionContext:toolbelt:principal": "false" },
          },
        }),
      );
    }
    // Only the functions that carry the Bedrock client (call, MCP: prompt tools) may invoke, and only the configured models.
    if (spec.dispatchesTools && models?.bedrockArns.length) {
      role.addToPolicy(new iam.PolicyStatement({ actions: ["bedrock:InvokeModel"], resources: models.bedrockArns }));
    }

    const timeoutSecs = overrides.timeoutSecs ?? this.timeoutFor(name, spec);
    const { provisionedConcurrency, reservedConcurrency } = overrides;
    if (provisionedConcurrency !== undefined && reservedConcurrency !== undefined && provisionedConcurrency > reservedConcurrency) {
      throw new Error(`groups.${name}: provisionedConcurrency (${provisionedConcurrency}) cannot exceed reservedConcurrency (${reservedConcurrency})`);
    }
    const fn = new lambda.Function(this, `${Name}Function`, {
      description: spec.description,
      code: lambdaCode(spec.entry, this.staged),
      handler: "index.handler",
      runtime: props.runtime ?? DEFAULT_RUNTIME,
      // Graviton: about 20% cheaper per GB-second and as fast for this JSON- and string-bound work.
      architecture: props.architecture ?? lambda.Architecture.ARM_64,
      ...(props.tracing ? { tracing: lambda.Tracing.ACTIVE } : {}),
      memorySize: overrides.memoryMb ?? spec.memoryMb,
      timeout: Duration.seconds(timeoutSecs),
      ...(reservedConcurrency !== undefined ? { reservedConcurrentExecutions: reservedConcurrency } : {}),
      role,
      logGroup,
      environment,
    });

    // Provisioned concurrency lives on an alias of a published version; the routes invoke the alias.
    const alias =
      provisionedConcurrency !== undefined
        ? new lambda.Alias(this, `${Name}Live`, { aliasName: "live", version: fn.currentVersion, provisionedConcurrentExecutions: provisionedConcurrency })
        : undefined;
    const integration = new HttpLambdaIntegration(`${Name}Integration`, alias ?? fn);
    const routes = spec.routes.flatMap((r) => {
      const authorized = props.authorizer && !r.public;
      const added = this.api.addRoutes({
        path: r.path,
        methods: [apigw.HttpMethod[r.method]],
        integration,
        ...(authorized ? { authorizer: props.authorizer } : {}),
      });
      if (props.authorizer && !authorized) {
        for (const route of added) {
          Validations.of(route).acknowledge({
            id: "AwsSolutions-APIG4",
            reason:
              "A public route (health, OpenAPI, the console's page and assets, OAuth metadata, liveness): it carries no caller data and loads before any credential exists.",
          });
        }
      }
      return added;
    });

    const alarms = functionAlarms(this, Name, fn, spec, this.alarmAction);

    if (props.tracing) {
      Validations.of(role).acknowledge({
        id: "AwsSolutions-IAM5[Resource::*]",
        reason: "X-Ray's PutTraceSegments and PutTelemetryRecords take no resource-level permission: Resource * is the only form (the `tracing` prop).",
      });
    }

    const group: EndpointGroup = { fn, role, logGroup, alarms, routes, ...(alias ? { alias } : {}) };
    this.groups.set(name, group);
    return group;
  }

  /**
   * TOOLBELT_MODELS for the functions (validated at synth with the gateway's own parser, errors naming
   * the role), the key secrets by the variable each role reads, and the Bedrock model ARNs to grant.
   */
  private modelRoles(): { roles: Record<string, ModelRole>; keys: Record<string, SecretRef>; bedrockArns: string[] } | undefined {
    const models = this.props.models;
    if (!models || Object.keys(models).length === 0) return undefined;
    const { partition, region } = Stack.of(this);
    const roles: Record<string, unknown> = {};
    const keys: Record<string, SecretRef> = {};
    const bedrockArns = new Set<string>();
    for (const [name, m] of Object.entries(models).sort(([a], [b]) => a.localeCompare(b))) {
      const common = { model: m.model, ...(m.timeoutMs ? { timeout_ms: m.timeoutMs } : {}), ...(m.maxTokens ? { max_tokens: m.maxTokens } : {}) };
      if (m.provider === "openai") {
        const keyEnv = `MODEL_KEY_${name.toUpperCase().replace(/-/g, "_")}`;
        if (m.key) keys[keyEnv] = m.key;
        roles[name] = { provider: "openai", url: m.url, ...common, ...(m.key ? { key_env: keyEnv } : {}) };
      } else {
        roles[name] = { provider: "bedrock", ...common, ...(m.region ? { region: m.region } : {}) };
        bedrockArns.add(m.model.startsWith("arn:") ? m.model : `arn:${partition}:bedrock:${m.region ?? region}::foundation-model/${m.model}`);
      }
    }
    return { roles: parseModelRoles(JSON.stringify(roles)), keys, bedrockArns: [...bedrockArns] };
  }

  /** A group that waits on tools gets the largest tool timeout plus a margin, within the API's limit. */
  private timeoutFor(name: string, spec: EndpointGroupSpec): number {
    if (!spec.dispatchesTools) return spec.timeoutSecs;
    const limit = HTTP_API_INTEGRATION_LIMIT_SECS - 1;
    const marginSecs = 3;
    // Only tools that wait on something count: not the ones the gateway cannot run (imported catalog
    // entries without a backend answer 501 at once), not builtins (they run in the function and wait on
    // nothing; toolbelt.call's target counts itself), not exec tools while exec is off (501 too).
    const dispatched = this.catalog.tools.filter((t) => isCallable(t) && t.backend.kind !== "builtin" && (this.props.allowExec || t.backend.kind !== "exec"));
    const slowest = Math.max(0, ...dispatched.map((t) => t.timeout_ms));
    const wanted = Math.ceil(slowest / 1000) + marginSecs;
    const tooSlow = dispatched.filter((t) => t.timeout_ms / 1000 + marginSecs > limit).map((t) => t.name);
    if (tooSlow.length > 0) {
      Annotations.of(this).addWarningV2(
        "toolbelt:tool-timeout-above-api-limit",
        `${tooSlow.length} tool(s) of the ${name} group have timeouts the HTTP API cuts at ${HTTP_API_INTEGRATION_LIMIT_SECS} s: ${tooSlow.slice(0, 10).join(", ")}${tooSlow.length > 10 ? ", ..." : ""}`,
      );
    }
    return Math.min(spec.timeoutSecs, limit, Math.max(10, wanted));
  }

  /**
   * Grants read on exactly the named parameters (and secrets) and returns the runtime mapping
   * env name → SSM parameter name. Values are resolved by the function, never here.
   */
  private grantSecrets(role: iam.Role, secrets: Record<string, SecretRef>): Record<string, string> {
    const { partition, region, account } = Stack.of(this);
    const mapping = secretParameters(secrets);
    const parameterArns = Object.values(mapping).map((parameter) => `arn:${partition}:ssm:${region}:${account}:parameter/${parameter.replace(/^\//, "")}`);
    // Secrets Manager appends six random characters to a secret's ARN.
    const secretArns = Object.keys(mapping).flatMap((envName) => {
      const ref = secrets[envName]!;
      return "secret" in ref ? [`arn:${partition}:secretsmanager:${region}:${account}:secret:${ref.secret}-??????`] : [];
    });
    role.addToPolicy(new iam.PolicyStatement({ actions: ["ssm:GetParameter"], resources: parameterArns }));
    if (secretArns.length > 0) {
      role.addToPolicy(new iam.PolicyStatement({ actions: ["secretsmanager:GetSecretValue"], resources: secretArns }));
    }
    this.props.secretsKey?.grantDecrypt(role);
    return mapping;
  }
}

/** TOOLBELT_SECRETS: env name → SSM parameter name (Secrets Manager through SSM's reference path), sorted by name and checked. */
function secretParameters(secrets: Record<string, SecretRef>): Record<string, string> {
  const mapping: Record<string, string> = {};
  for (const [envName, ref] of Object.entries(secrets).sort(([a], [b]) => a.localeCompare(b))) {
    if (!ENV_NAME.test(envName) || RESERVED_ENV.test(envName)) {
      throw new Error(`secret env name ${JSON.stringify(envName)} must be a plain variable name outside AWS_*, LAMBDA_*, TOOLBELT_*`);
    }
    const parameter = "parameter" in ref ? ref.parameter : `${SECRETS_MANAGER_REFERENCE_PREFIX}${ref.secret}`;
    if (!/^\/?[A-Za-z0-9_.\-/]+$/.test(parameter)) throw new Error(`secret ${envName}: invalid parameter name ${parameter}`);
    mapping[envName] = parameter;
  }
  return mapping;
}

/** The audit store's settings for `auditTtlDays` (default 7; 0: off), as lambdas/config.ts parses them. */
function auditEnvironment(ttlDays: number = DEFAULT_AUDIT_TTL_DAYS): Record<string, string> {
  if (!Number.isInteger(ttlDays) || ttlDays < 0) throw new Error(`auditTtlDays must be a whole number of days, 0 to turn the audit store off, got ${ttlDays}`);
  return ttlDays === 0 ? { TOOLBELT_AUDIT_STORE: "off" } : { TOOLBELT_AUDIT_STORE: "on", TOOLBELT_AUDIT_TTL_DAYS: String(ttlDays) };
}
