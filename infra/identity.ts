// The construct's `identity`: an external OIDC issuer written into the staged policy, or an Amazon
// Cognito user pool created here (resource server, scopes, app clients, domain) whose deploy-time
// values reach the functions in TOOLBELT_IDENTITY. Tokens are validated in the Lambdas either way
// (lambdas/core/identity.ts), so every 401 carries the RFC 9728 challenge MCP clients discover from.
import { Annotations, CfnOutput, Duration, type RemovalPolicy, Stack, Token, Validations } from "aws-cdk-lib";
import * as cognito from "aws-cdk-lib/aws-cognito";
import { Construct } from "constructs";
import type { Identity, PolicyFile } from "../registry/contract/policy.js";

/** The environment variable carrying the Cognito form's identity (the policy's `identity` shape plus `client_ids`). */
export const IDENTITY_ENV = "TOOLBELT_IDENTITY";

/** Any OpenID Connect / OAuth 2.1 provider (Okta, Entra ID, Auth0, Keycloak...): written into the staged policy. */
export type ExternalIssuerProps = {
  /** The `iss` its access tokens carry, e.g. "https://login.example.com/oauth2/default". */
  readonly issuer: string;
  /** The `aud` tokens must carry. Default: the gateway's resource URLs (the API URL and custom domain, each with and without /mcp). */
  readonly audience?: string;
  /** Default: found in the issuer's metadata at the first token. */
  readonly jwksUri?: string;
  /** Default RS256, PS256, ES256, EdDSA (asymmetric only). */
  readonly algorithms?: NonNullable<Identity["algorithms"]>;
  /** The claim naming the user (sessions, pins, audit, credentials belong to it). Default `sub`. */
  readonly subjectClaim?: string;
  /** Scopes every token must carry (advertised in the protected resource metadata). */
  readonly scopes?: string[];
};

/** An app client of the pool: authorization code with PKCE only. */
export type CognitoClientProps = {
  /** Also the output's name and the client's name in the console. */
  readonly name: string;
  /** Where the MCP client (or app) receives the code: https, or http on localhost only (Cognito's rule). */
  readonly callbackUrls: string[];
  readonly logoutUrls?: string[];
  /** A confidential client (server-side app, a connector that stores a secret). Default false: a public client, PKCE alone. */
  readonly secret?: boolean;
  /** Access token lifetime. Default one hour. */
  readonly accessTokenValidity?: Duration;
  /** Refresh token lifetime. Default 30 days. */
  readonly refreshTokenValidity?: Duration;
};

export type CognitoIdentityProps = {
  /** The hosted sign-in page's prefix: https://PREFIX.auth.REGION.amazoncognito.com. */
  readonly domainPrefix: string;
  /** Scope names of the gateway's resource server; the first is the one every token must carry. Default ["tools"]. */
  readonly scopes?: string[];
  /** At least one: Cognito has no dynamic client registration, so each MCP client or app uses a client ID made here. */
  readonly clients: CognitoClientProps[];
  /** Groups created in the pool; principals match them with `claims: {"cognito:groups": [...]}`. */
  readonly groups?: string[];
  /** Default "required": every user registers an authenticator app (TOTP) at first sign-in. */
  readonly mfa?: "required" | "optional";
  /**
   * The Plus feature plan with threat protection enforced (compromised-credential and risky sign-in
   * checks). Default false: Essentials, which costs less per monthly active user and has a free tier.
   */
  readonly threatProtection?: boolean;
};

export type CognitoForm = { readonly cognito: CognitoIdentityProps };
export type IdentityProps = ExternalIssuerProps | CognitoForm;

export const isCognito = (p: IdentityProps): p is CognitoForm => "cognito" in p;

/** The external form as the policy's `identity` (snake_case, the contract's shape); refused when a value is only known at deploy. */
export function externalIdentity(p: ExternalIssuerProps): Identity {
  const identity = {
    issuer: p.issuer,
    ...(p.audience !== undefined ? { audience: p.audience } : {}),
    ...(p.jwksUri !== undefined ? { jwks_uri: p.jwksUri } : {}),
    ...(p.algorithms ? { algorithms: [...p.algorithms] } : {}),
    subject_claim: p.subjectClaim ?? "sub",
    scopes: [...(p.scopes ?? [])],
  };
  // The policy file is written at synth and bundled: a CloudFormation token there would stay a placeholder.
  const unresolved = Object.entries(identity).find(([, v]) => Token.isUnresolved(v) || (Array.isArray(v) && v.some((x) => Token.isUnresolved(x))));
  if (unresolved) {
    throw new Error(
      `identity.${unresolved[0]} is only known at deploy time; the staged policy needs literal values (leave audience out: it defaults to the API's URL)`,
    );
  }
  return identity;
}

/** Claims Cognito puts in a user's access token without a pre token generation trigger. */
const COGNITO_ACCESS_CLAIMS = new Set(["sub", "username", "client_id", "scope", "cognito:groups", "token_use", "auth_time", "origin_jti", "event_id"]);

/**
 * Synth-time warnings when the policy's principals cannot be reached by tokens as configured: an identity
 * without any claims mapping (every user would get 403), mappings without an identity (never used),
 * and, for the Cognito pool, claims its access tokens do not carry or groups it does not create.
 */
export function checkClaims(scope: Construct, policy: PolicyFile, identity: IdentityProps | undefined): void {
  const warn = (id: string, message: string) => Annotations.of(scope).addWarningV2(`toolbelt:${id}`, message);
  const mapped = policy.principals.filter((p) => p.claims !== undefined);
  if (!identity && !policy.identity) {
    if (mapped.length > 0) {
      warn(
        "claims-without-identity",
        `principals ${mapped.map((p) => p.id).join(", ")} are matched by token claims, but no identity is configured: no token is accepted`,
      );
    }
    return;
  }
  if (mapped.length === 0) {
    warn(
      "identity-without-claims",
      "an identity is configured but no principal has `claims`: every signed-in user will be refused (403) until one maps their claims",
    );
    return;
  }
  if (!identity || !isCognito(identity)) return;
  const groups = identity.cognito.groups;
  for (const p of mapped) {
    for (const [claim, values] of Object.entries(p.claims ?? {})) {
      if (!COGNITO_ACCESS_CLAIMS.has(claim)) {
        warn(
          "claim-not-in-cognito-tokens",
          `principal ${p.id} matches claim ${claim}, which Cognito access tokens do not carry (groups are cognito:groups); it never matches without a pre token generation trigger`,
        );
      } else if (claim === "cognito:groups" && groups) {
        const unknown = (typeof values === "string" ? [values] : values).filter((g) => !groups.includes(g));
        if (unknown.length > 0)
          warn("group-not-created", `principal ${p.id} matches group(s) ${unknown.join(", ")} that the pool's \`groups\` does not create`);
      }
    }
  }
}

/** The policy's `identity` plus the app clients whose aud-less Cognito access tokens are accepted. */
export type CognitoTokenIdentity = Identity & { client_ids: string[] };

/**
 * A Cognito user pool for the gateway: a resource server identified by the gateway's resource URL with its
 * scopes, public app clients limited to the authorization code flow (PKCE), a hosted sign-in domain, groups.
 */
export class GatewayUserPool extends Construct {
  readonly userPool: cognito.UserPool;
  readonly resourceServer: cognito.UserPoolResourceServer;
  readonly domain: cognito.UserPoolDomain;
  readonly clients = new Map<string, cognito.UserPoolClient>();
  /** What the functions validate tokens against (deploy-time values: TOOLBELT_IDENTITY). */
  readonly identity: CognitoTokenIdentity;

  constructor(scope: Construct, id: string, props: CognitoIdentityProps & { resource: string; removalPolicy: RemovalPolicy; deletionProtection: boolean }) {
    super(scope, id);
    const scopeNames = props.scopes ?? ["tools"];
    if (scopeNames.length === 0) throw new Error("identity.cognito.scopes needs at least one scope: the first is required of every token");
    if (props.clients.length === 0) {
      throw new Error(
        "identity.cognito.clients needs at least one app client: Cognito offers no dynamic registration, so MCP clients sign in with a client ID made here",
      );
    }
    const names = props.clients.map((c) => c.name);
    const twice = names.find((n, i) => names.indexOf(n) !== i);
    if (twice !== undefined) throw new Error(`identity.cognito.clients: ${twice} is named twice`);

    this.userPool = new cognito.UserPool(this, "UserPool", {
      // Users are created by an administrator: a tool gateway is not a sign-up page.
      selfSignUpEnabled: false,
      signInAliases: { email: true, username: true },
      autoVerify: { email: true },
      accountRecovery: cognito.AccountRecovery.EMAIL_ONLY,
      passwordPolicy: {
        minLength: 12,
        requireLowercase: true,
        requireUppercase: true,
        requireDigits: true,
        requireSymbols: true,
        tempPasswordValidity: Duration.days(3),
      },
      mfa: props.mfa === "optional" ? cognito.Mfa.OPTIONAL : cognito.Mfa.REQUIRED,
      // An authenticator app only: SMS needs an SNS role and spend limits, and is the weaker factor.
      mfaSecondFactor: { otp: true, sms: false },
      featurePlan: props.threatProtection ? cognito.FeaturePlan.PLUS : cognito.FeaturePlan.ESSENTIALS,
      ...(props.threatProtection ? { standardThreatProtectionMode: cognito.StandardThreatProtectionMode.FULL_FUNCTION } : {}),
      deletionProtection: props.deletionProtection,
      removalPolicy: props.removalPolicy,
    });

    // Cognito writes custom scopes as IDENTIFIER/NAME: named by the gateway's URL, they say which resource a token is for.
    const scopes = scopeNames.map((name) => new cognito.ResourceServerScope({ scopeName: name, scopeDescription: `Toolbelt ${name}` }));
    this.resourceServer = this.userPool.addResourceServer("ResourceServer", { identifier: props.resource, userPoolResourceServerName: "Toolbelt", scopes });
    const oauthScopes = scopes.map((s) => cognito.OAuthScope.resourceServer(this.resourceServer, s));

    this.domain = this.userPool.addDomain("Domain", { cognitoDomain: { domainPrefix: props.domainPrefix } });

    for (const c of props.clients) {
      const client = this.userPool.addClient(`Client${c.name.replace(/[^A-Za-z0-9]/g, "")}`, {
        userPoolClientName: c.name,
        generateSecret: c.secret ?? false,
        // Sign-in happens on the hosted page; the client only redeems codes and refresh tokens.
        authFlows: { userSrp: true },
        oAuth: {
          flows: { authorizationCodeGrant: true, implicitCodeGrant: false, clientCredentials: false },
          scopes: [...oauthScopes, cognito.OAuthScope.OPENID],
          callbackUrls: c.callbackUrls,
          ...(c.logoutUrls ? { logoutUrls: c.logoutUrls } : {}),
        },
        supportedIdentityProviders: [cognito.UserPoolClientIdentityProvider.COGNITO],
        preventUserExistenceErrors: true,
        enableTokenRevocation: true,
        accessTokenValidity: c.accessTokenValidity ?? Duration.hours(1),
        refreshTokenValidity: c.refreshTokenValidity ?? Duration.days(30),
      });
      this.clients.set(c.name, client);
      new CfnOutput(this, `ClientId${c.name.replace(/[^A-Za-z0-9]/g, "")}`, { value: client.userPoolClientId, description: `Cognito app client ${c.name}` });
    }
    for (const g of props.groups ?? []) new cognito.UserPoolGroup(this, `Group${g.replace(/[^A-Za-z0-9]/g, "")}`, { userPool: this.userPool, groupName: g });

    const issuer = `https://${this.userPool.userPoolProviderUrl}`;
    this.identity = {
      issuer,
      jwks_uri: `${issuer}/.well-known/jwks.json`,
      algorithms: ["RS256"],
      // sub, not username: a deleted user's name can be given to someone new, who must not inherit sessions or credentials.
      subject_claim: "sub",
      scopes: [`${props.resource}/${scopeNames[0]}`],
      client_ids: [...this.clients.values()].map((c) => c.userPoolClientId),
    };

    new CfnOutput(this, "UserPoolId", { value: this.userPool.userPoolId });
    new CfnOutput(this, "SignInUrl", { value: this.domain.baseUrl(), description: "The hosted sign-in page (authorization and token endpoints)" });

    if (props.mfa === "optional") {
      Validations.of(this.userPool).acknowledge({
        id: "AwsSolutions-COG2",
        reason: "MFA is optional because the deployment chose identity.cognito.mfa = optional; users may still register an authenticator app.",
      });
    }
    if (!props.threatProtection) {
      Validations.of(this.userPool).acknowledge({
        id: "AwsSolutions-COG8",
        reason:
          "The Essentials plan by default: Plus costs more per monthly active user and has no free tier; identity.cognito.threatProtection = true selects Plus with threat protection enforced.",
      });
    }
  }

  /** TOOLBELT_IDENTITY's value: JSON that CloudFormation completes with the pool's and clients' ids. */
  environmentValue(): string {
    return Stack.of(this).toJsonString(this.identity);
  }
}
