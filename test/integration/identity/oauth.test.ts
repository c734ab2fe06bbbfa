// The MCP authorization flow end to end: npm start's app with --oauth's real authorization server
// (oidc-provider on loopback), the official MCP SDK client's OAuth support (discovery from the 401,
// dynamic registration, authorization code with PKCE and the resource parameter, token), then find and
// call as that user; token refusals with their status and WWW-Authenticate, minted by jose with local
// keys served by a tiny loopback JWKS server; the same through REST.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { Client, type OAuthClientProvider, StreamableHTTPClientTransport, UnauthorizedError } from "@modelcontextprotocol/client";
import { exportJWK, generateKeyPair, type JWK, SignJWT, UnsecuredJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PolicyFile } from "../../../registry/contract/policy.js";
import { loadConfig } from "../../../lambdas/config.js";
import { createPolicy, localPolicyFile } from "../../../lambdas/core/auth.js";
import { memoryLogger } from "../../../lambdas/http/logger.js";
import { localOrigins } from "../../../lambdas/http/origin.js";
import { gatewayResources } from "../../../lambdas/http/routes/oauth-metadata.js";
import { createLocalApp, type LocalApp } from "../../../lambdas/local/local-app.js";
import { DEMO_PASSWORD, startLocalOAuth, withLocalIdentity, type LocalOAuth } from "../../../lambdas/local/oauth-provider.js";
import { freePort } from "../../../lambdas/local/ports.js";
import { startDemoService, type DemoService } from "../../../dev/demo-service/index.js";
import { startDynalite, type TestDynamo } from "../../helpers/dynalite.js";
import { exampleArtifact } from "../../helpers/example-registry.js";

const KEY = "identity-test-key";
const DEMO_TOKEN = "identity-demo-token";
let demo: DemoService | undefined;
beforeAll(async () => {
  demo = await startDemoService({ port: 0, token: DEMO_TOKEN });
});
afterAll(async () => demo?.close());

type Gateway = { url: string; local: LocalApp; close(): Promise<void> };

async function startGateway(dynamo: TestDynamo, policy: (port: number) => Promise<PolicyFile>): Promise<Gateway> {
  const port = await freePort();
  const local = createLocalApp({
    config: loadConfig({ TOOLBELT_TABLE: dynamo.table }),
    // The demo http service answers text and math tools; server-everything is not started (nothing here calls it).
    env: { DEMO_SERVICE_URL: demo!.url, DEMO_SERVICE_TOKEN: DEMO_TOKEN, EVERYTHING_MCP_URL: "http://127.0.0.1:9/mcp" },
    client: dynamo.client,
    artifact: await exampleArtifact(),
    policy: await policy(port),
    briefs: [],
    logger: memoryLogger(),
    models: {},
    defaultFileRoots: [],
    internalPaths: [],
    port,
  });
  const server = serve({ fetch: local.app.fetch, hostname: "127.0.0.1", port }) as Server;
  await new Promise<void>((done) => (server.listening ? done() : server.once("listening", () => done())));
  return {
    url: `http://127.0.0.1:${port}`,
    local,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
      await local.close();
    },
  };
}

/** An OAuth client provider that keeps everything in memory and hands the authorization URL to the test. */
function memoryProvider(): OAuthClientProvider & { authorizationUrl?: URL } {
  let info: unknown;
  let tokens: unknown;
  let verifier = "";
  const p: OAuthClientProvider & { authorizationUrl?: URL } = {
    redirectUrl: "http://127.0.0.1:1/callback",
    clientMetadata: {
      client_name: "identity test",
      redirect_uris: ["http://127.0.0.1:1/callback"],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    },
    clientInformation: () => info as never,
    saveClientInformation: (i) => void (info = i),
    tokens: () => tokens as never,
    saveTokens: (t) => void (tokens = t),
    redirectToAuthorization: (url) => void (p.authorizationUrl = url),
    saveCodeVerifier: (v) => void (verifier = v),
    codeVerifier: () => verifier,
  };
  return p;
}

/** A browser's part: follow the authorization URL, sign in on the login page, return the callback's query. */
async function signIn(authorizationUrl: URL, login: string): Promise<URLSearchParams> {
  const cookies = new Map<string, string>();
  const send = async (url: string, init: RequestInit = {}) => {
    const res = await fetch(url, {
      ...init,
      redirect: "manual",
      headers: { ...(init.headers as object), cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join("; ") },
    });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(";");
      const at = pair!.indexOf("=");
      cookies.set(pair!.slice(0, at), pair!.slice(at + 1));
    }
    return res;
  };
  let url = authorizationUrl.href;
  let res = await send(url);
  for (let hops = 0; hops < 10; hops++) {
    if (res.status === 200 && (res.headers.get("content-type") ?? "").includes("text/html")) {
      const action = /action="([^"]+)"/.exec(await res.text())?.[1];
      expect(action).toMatch(/^\/interaction\/[\w-]+\/login$/);
      url = new URL(action!, url).href;
      res = await send(url, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ login, password: DEMO_PASSWORD }).toString(),
      });
      continue;
    }
    expect([302, 303]).toContain(res.status);
    url = new URL(res.headers.get("location")!, url).href;
    if (url.startsWith("http://127.0.0.1:1/callback")) return new URL(url).searchParams;
    res = await send(url);
  }
  throw new Error("too many redirects");
}

type ToolResult = { isError?: boolean; structuredContent?: Record<string, unknown>; content: { type: string; text?: string }[] };

describe("MCP authorization against npm start's --oauth provider", () => {
  let dynamo: TestDynamo;
  let oauth: LocalOAuth;
  let gateway: Gateway;
  const sessions: Record<string, { client: Client; token: string }> = {};

  beforeAll(async () => {
    dynamo = await startDynalite({ table: "toolbelt-identity" });
    gateway = await startGateway(dynamo, async (port) => {
      oauth = await startLocalOAuth({ resources: gatewayResources(localOrigins(port)) });
      return withLocalIdentity(localPolicyFile(KEY), oauth.issuer);
    });
    // Each user through the whole flow once, as an MCP client would.
    for (const user of ["alice", "bob"]) {
      const provider = memoryProvider();
      const transport = () => new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`), { authProvider: provider });
      const first = new Client({ name: "identity-test", version: "1" });
      const t = transport();
      await expect(first.connect(t)).rejects.toBeInstanceOf(UnauthorizedError);
      expect(provider.authorizationUrl?.searchParams.get("code_challenge_method")).toBe("S256");
      expect(provider.authorizationUrl?.searchParams.get("resource")).toBe(`${gateway.url}/mcp`);
      await t.finishAuth(await signIn(provider.authorizationUrl!, user));
      const client = new Client({ name: "identity-test", version: "1" });
      await client.connect(transport());
      sessions[user] = { client, token: ((await provider.tokens()) as { access_token: string }).access_token };
    }
  });
  afterAll(async () => {
    for (const s of Object.values(sessions)) await s.client.close();
    await gateway?.close();
    await oauth?.close();
    await dynamo?.close();
  });

  const call = async (user: string, name: string, args: Record<string, unknown>) =>
    (await sessions[user]!.client.callTool({ name, arguments: args })) as ToolResult;

  it("registers, authorizes with PKCE and gets a JWT for the gateway's MCP resource carrying the user's groups", () => {
    const [, payload] = sessions.alice!.token.split(".");
    const claims = JSON.parse(Buffer.from(payload!, "base64url").toString()) as Record<string, unknown>;
    expect(claims).toMatchObject({ iss: oauth.issuer, aud: `${gateway.url}/mcp`, sub: "alice", groups: ["staff"], scope: "toolbelt" });
  });

  it("finds and calls as the user; users in different groups see different tools and never each other's belts", async () => {
    const found = await call("alice", "find_tool", { query: "slugify text" });
    expect(found.isError).toBeFalsy();
    const belt = found.structuredContent!.belt as string;
    const slug = await call("alice", "call_tool", { tool: "text_slugify", args: { text: "Hello World" }, belt });
    expect(slug.isError, JSON.stringify(slug.content)).toBeFalsy();
    expect(JSON.stringify(slug.content)).toContain("hello-world");

    const aliceTools = (await sessions.alice!.client.listTools()).tools.map((t) => t.name);
    const bobFinds = await call("bob", "find_tool", { query: "list files in a directory", limit: 20 });
    const bobNames = (bobFinds.structuredContent!.tools as { name: string }[]).map((t) => t.name);
    expect(bobNames.every((n) => /^(math|text)_/.test(n))).toBe(true);
    const aliceFinds = await call("alice", "find_tool", { query: "list files in a directory", limit: 20 });
    expect((aliceFinds.structuredContent!.tools as { name: string }[]).some((t) => t.name.startsWith("files_"))).toBe(true);
    expect(aliceTools).toContain("toolbelt_reshape");
    expect((await sessions.bob!.client.listTools()).tools.map((t) => t.name)).not.toContain("toolbelt_reshape");

    // Alice's belt is not Bob's: not found, as if it did not exist.
    const stolen = await call("bob", "find_tool", { query: "slugify", belt });
    expect(stolen.isError).toBe(true);
    expect(JSON.stringify(stolen.content)).toContain("SESSION_NOT_FOUND");
    const denied = await call("bob", "call_tool", { tool: "files_list", args: { path: "." } });
    expect(denied.isError).toBe(true);
  });

  it("serves the protected resource metadata for the origin and for /mcp, without a key", async () => {
    for (const [path, resource] of [
      ["/.well-known/oauth-protected-resource", gateway.url],
      ["/.well-known/oauth-protected-resource/mcp", `${gateway.url}/mcp`],
    ] as const) {
      const res = await fetch(`${gateway.url}${path}`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({
        resource,
        authorization_servers: [oauth.issuer],
        scopes_supported: ["toolbelt"],
        bearer_methods_supported: ["header"],
        resource_name: "Toolbelt",
      });
    }
  });

  it("answers a user whose groups map to no principal 403 naming what is missing, on REST", async () => {
    const provider = memoryProvider();
    const t = new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`), { authProvider: provider });
    await expect(new Client({ name: "x", version: "1" }).connect(t)).rejects.toBeInstanceOf(UnauthorizedError);
    await t.finishAuth(await signIn(provider.authorizationUrl!, "carol"));
    const token = ((await provider.tokens()) as { access_token: string }).access_token;
    const res = await fetch(`${gateway.url}/v1/find`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: '{"query":"slugify"}',
    });
    expect(res.status).toBe(403);
    const body = (await res.json()) as { error: { code: string; message: string; details: { missing: unknown[] } } };
    expect(body.error.code).toBe("FORBIDDEN");
    expect(body.error.message).toContain("user:carol is granted no tools");
    expect(body.error.details.missing).toEqual([
      { principal: "staff", claim: "groups", one_of: ["staff"] },
      { principal: "contractors", claim: "groups", one_of: ["contractors"] },
    ]);
    // The key still works beside tokens.
    const keyed = await fetch(`${gateway.url}/v1/find`, {
      method: "POST",
      headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
      body: '{"query":"slugify"}',
    });
    expect(keyed.status).toBe(200);
  });
});

/** A loopback JWKS server whose key set the test can change (rotation). */
async function jwksServer(): Promise<{ url: string; keys: JWK[]; close(): Promise<void> }> {
  const jwks = { url: "", keys: [] as JWK[], close: () => new Promise<void>((done) => server.close(() => done())) };
  const server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ keys: jwks.keys }));
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", () => done()));
  jwks.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`;
  return jwks;
}

describe("token refusals (REST and MCP)", () => {
  const ISSUER = "https://issuer.test";
  let dynamo: TestDynamo;
  let gateway: Gateway;
  let jwks: Awaited<ReturnType<typeof jwksServer>>;
  let good: CryptoKeyPair;
  let rotated: CryptoKeyPair;
  let stranger: CryptoKeyPair;
  let goodJwk: JWK;
  const now = () => Math.floor(Date.now() / 1000);

  beforeAll(async () => {
    dynamo = await startDynalite({ table: "toolbelt-identity-refusals" });
    jwks = await jwksServer();
    [good, rotated, stranger] = (await Promise.all([1, 2, 3].map(() => generateKeyPair("ES256", { extractable: true })))) as [
      CryptoKeyPair,
      CryptoKeyPair,
      CryptoKeyPair,
    ];
    goodJwk = { ...(await exportJWK(good.publicKey)), kid: "k1", alg: "ES256" };
    jwks.keys = [goodJwk];
    const file: PolicyFile = {
      ...localPolicyFile(KEY),
      identity: { issuer: ISSUER, jwks_uri: jwks.url, subject_claim: "sub", scopes: [] },
      principals: [...localPolicyFile(KEY).principals, { id: "staff", keys: [], allow: ["*"], deny: [], admin: false, claims: { groups: "staff" } }],
    };
    gateway = await startGateway(dynamo, async () => file);
    // The same policy with the key set kept 300 ms, so a removed key stops working within the test.
    gateway.local.deps.policy = createPolicy(file, { jwksCacheMaxAgeMs: 300, jwksCooldownMs: 0 });
  });
  afterAll(async () => {
    await gateway?.close();
    await jwks?.close();
    await dynamo?.close();
  });

  const mint = (
    claims: Record<string, unknown> = {},
    key: CryptoKey | Uint8Array = good.privateKey,
    header: Record<string, unknown> = { alg: "ES256", kid: "k1" },
  ) =>
    new SignJWT({ iss: ISSUER, aud: `${gateway.url}/mcp`, sub: "dana", iat: now(), exp: now() + 600, groups: ["staff"], ...claims })
      .setProtectedHeader(header as { alg: string })
      .sign(key);

  const find = (token?: string) =>
    fetch(`${gateway.url}/v1/find`, {
      method: "POST",
      headers: { "content-type": "application/json", ...(token !== undefined ? { authorization: `Bearer ${token}` } : {}) },
      body: '{"query":"slugify"}',
    });
  const mcp = (token?: string) =>
    fetch(`${gateway.url}/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...(token !== undefined ? { authorization: `Bearer ${token}` } : {}),
      },
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}',
    });

  it("takes a valid token through REST /v1/find and MCP, for either of the gateway's resources", async () => {
    expect((await find(await mint())).status).toBe(200);
    expect((await find(await mint({ aud: gateway.url }))).status).toBe(200);
    expect((await mcp(await mint())).status).not.toBe(401);
  });

  it("answers no token 401 with the resource metadata and no error code", async () => {
    const rest = await find();
    expect(rest.status).toBe(401);
    expect(rest.headers.get("www-authenticate")).toBe(`Bearer resource_metadata="${gateway.url}/.well-known/oauth-protected-resource"`);
    const m = await mcp();
    expect(m.status).toBe(401);
    expect(m.headers.get("www-authenticate")).toBe(`Bearer resource_metadata="${gateway.url}/.well-known/oauth-protected-resource/mcp"`);
  });

  it.each([
    ["expired", () => mint({ exp: now() - 120 }), "expired"],
    ["not yet valid", () => mint({ nbf: now() + 120 }), "not yet valid"],
    ["for another audience", () => mint({ aud: "https://other.example/mcp" }), "another audience"],
    ["from another issuer", () => mint({ iss: "https://evil.example" }), "another issuer"],
    [
      "unsigned (alg none)",
      async () => new UnsecuredJWT({ groups: ["staff"], sub: "dana", iss: ISSUER, aud: `${gateway.url}/mcp`, exp: now() + 600 }).encode(),
      "algorithm not allowed",
    ],
    [
      "HS256 signed with the public key",
      async () => mint({}, new TextEncoder().encode(JSON.stringify(goodJwk)), { alg: "HS256", kid: "k1" }),
      "algorithm not allowed",
    ],
    ["signed by an untrusted issuer's key", () => mint({}, stranger.privateKey, { alg: "ES256", kid: "k9" }), "does not publish"],
  ])("refuses a token %s with 401 invalid_token", async (_what, token, message) => {
    for (const res of [await find(await token()), await mcp(await token())]) {
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toMatch(
        /^Bearer resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource(\/mcp)?", error="invalid_token"$/,
      );
      expect(((await res.json()) as { error: { message: string } }).error.message).toContain(message);
    }
  });

  it("stops taking a key the issuer removed, and takes its new key at once (unknown kid refetches)", async () => {
    const before = await mint();
    expect((await find(before)).status).toBe(200);
    jwks.keys = [{ ...(await exportJWK(rotated.publicKey)), kid: "k2", alg: "ES256" }];
    const after = await mint({}, rotated.privateKey, { alg: "ES256", kid: "k2" });
    expect((await find(after)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 400));
    const res = await find(before);
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain("does not publish");
  });

  it("answers a token without the principal's claims 403, a missing required scope with insufficient_scope", async () => {
    // Signed with the key in force since the rotation test.
    const res = await find(await mint({ groups: ["visitors"] }, rotated.privateKey, { alg: "ES256", kid: "k2" }));
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: { code: string; message: string } }).error).toMatchObject({
      code: "FORBIDDEN",
      message: expect.stringContaining("staff needs groups staff"),
    });
    const scoped = createPolicy({
      ...localPolicyFile(KEY),
      identity: { issuer: ISSUER, jwks_uri: jwks.url, subject_claim: "sub", scopes: ["toolbelt"] },
      principals: [{ id: "staff", keys: [], allow: ["*"], deny: [], admin: false, claims: { groups: "staff" } }],
    });
    const saved = gateway.local.deps.policy;
    gateway.local.deps.policy = scoped;
    try {
      const noScope = await find(await mint({}, rotated.privateKey, { alg: "ES256", kid: "k2" }));
      expect(noScope.status).toBe(403);
      expect(noScope.headers.get("www-authenticate")).toBe(
        `Bearer resource_metadata="${gateway.url}/.well-known/oauth-protected-resource", error="insufficient_scope", scope="toolbelt"`,
      );
      expect((await find(await mint({ scope: "openid toolbelt" }, rotated.privateKey, { alg: "ES256", kid: "k2" }))).status).toBe(200);
    } finally {
      gateway.local.deps.policy = saved;
    }
  });
});
