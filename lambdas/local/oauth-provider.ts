// `npm start -- --oauth`: a real authorization server on loopback (oidc-provider, an OpenID-certified
// library), so MCP clients can run the whole MCP authorization flow against the local gateway: dynamic
// client registration (and client ID metadata documents), authorization code with PKCE, resource
// indicators (RFC 8707) so each access token is a JWT whose `aud` is the gateway resource it was asked
// for, and a login page for a few demo users in different groups. Development only: memory storage,
// keys made at each start, one demo password.
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { exportJWK, generateKeyPair } from "jose";
import Provider, { errors } from "oidc-provider";
import type { PolicyFile, Principal } from "../../registry/contract/policy.js";

/** The scope MCP clients ask for (the resource metadata's scopes_supported) and every gateway token carries. */
export const LOCAL_SCOPE = "toolbelt";
export const DEMO_PASSWORD = "demo";

export type DemoUser = { id: string; name: string; groups: string[] };
export const DEMO_USERS: readonly DemoUser[] = [
  { id: "alice", name: "Alice (staff: every tool)", groups: ["staff"] },
  { id: "bob", name: "Bob (contractors: math and text tools only)", groups: ["contractors"] },
  { id: "carol", name: "Carol (no group: no tools)", groups: [] },
];

/** The two principals the demo groups map to (claims `groups`); carol's token matches neither (403). */
export const DEMO_PRINCIPALS: Principal[] = [
  { id: "staff", description: "demo users in the staff group", keys: [], allow: ["*"], deny: [], admin: false, claims: { groups: "staff" } },
  {
    id: "contractors",
    description: "demo users in the contractors group",
    keys: [],
    allow: ["math.*", "text.*"],
    deny: [],
    admin: false,
    claims: { groups: "contractors" },
  },
];

/** The policy with this issuer as its identity and the demo principals after its own (first match wins, file order). */
export function withLocalIdentity(policy: PolicyFile, issuer: string): PolicyFile {
  const taken = new Set(policy.principals.map((p) => p.id));
  return {
    ...policy,
    identity: { issuer, algorithms: ["ES256"], subject_claim: "sub", scopes: [LOCAL_SCOPE] },
    principals: [...policy.principals, ...DEMO_PRINCIPALS.filter((p) => !taken.has(p.id))],
  };
}

export type LocalOAuth = { issuer: string; users: readonly DemoUser[]; close(): Promise<void> };

const html = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

function loginPage(uid: string, client: string, resource: string, error?: string): string {
  const options = DEMO_USERS.map((u) => `<option value="${u.id}">${html(u.name)}</option>`).join("");
  return `<!doctype html><meta charset="utf-8"><title>Toolbelt local sign-in</title>
<body style="font-family:sans-serif;max-width:32em;margin:3em auto">
<h1>Sign in to Toolbelt (local)</h1>
<p>${html(client)} asks to use ${html(resource)} as you.</p>
${error ? `<p style="color:#b00">${html(error)}</p>` : ""}
<form method="post" action="/interaction/${html(uid)}/login">
<label>User <select name="login">${options}</select></label><br><br>
<label>Password <input type="password" name="password" placeholder="${DEMO_PASSWORD}"></label><br><br>
<button type="submit">Sign in and allow</button>
</form></body>`;
}

async function formOf(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > 16_384) throw new Error("form too large");
    chunks.push(chunk as Buffer);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
}

/**
 * Starts the provider on 127.0.0.1:`port` (0: a free one). `resources` are the gateway's resource URLs:
 * the only `resource` values it issues tokens for, the first the default.
 */
export async function startLocalOAuth(options: { port?: number; resources: readonly string[] }): Promise<LocalOAuth> {
  const server = createServer();
  await new Promise<void>((done, fail) => {
    server.once("error", fail);
    server.listen(options.port ?? 0, "127.0.0.1", () => done());
  });
  const { port } = server.address() as { port: number };
  const issuer = `http://127.0.0.1:${port}`;
  const signing = await generateKeyPair("ES256", { extractable: true });
  // ID tokens default to RS256: the provider wants an RSA key too.
  const rsa = await generateKeyPair("RS256", { extractable: true, modulusLength: 2048 });
  const jwk = async (key: CryptoKey, alg: string) => ({ ...(await exportJWK(key)), alg, use: "sig", kid: `${alg}-${randomBytes(6).toString("hex")}` });
  const resources = new Set(options.resources);
  const users = new Map(DEMO_USERS.map((u) => [u.id, u]));

  const provider = new Provider(issuer, {
    jwks: { keys: [await jwk(signing.privateKey, "ES256"), await jwk(rsa.privateKey, "RS256")] },
    cookies: { keys: [randomBytes(32).toString("hex")] },
    scopes: ["openid", "offline_access", LOCAL_SCOPE],
    claims: { openid: ["sub"], profile: ["name", "groups"] },
    pkce: { required: () => true },
    async findAccount(_ctx, id) {
      const user = users.get(id);
      return user ? { accountId: id, claims: async () => ({ sub: id, name: user.name, groups: user.groups }) } : undefined;
    },
    // The groups go into the access token: the gateway maps them to a principal without asking anyone.
    async extraTokenClaims(_ctx, token) {
      const user = "accountId" in token && typeof token.accountId === "string" ? users.get(token.accountId) : undefined;
      return user ? { groups: user.groups } : undefined;
    },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    // Browser clients (the MCP Inspector) exchange codes from their page: loopback pages only.
    clientBasedCORS: (_ctx, origin) => /^http:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/.test(origin),
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      clientIdMetadataDocument: { enabled: true, ack: "draft-02" },
      resourceIndicators: {
        enabled: true,
        defaultResource: (_ctx, _client, oneOf) => oneOf ?? [...resources][0] ?? issuer,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resource) => {
          if (!resources.has(resource)) throw new errors.InvalidTarget(`this authorization server issues tokens for ${[...resources].join(", ")} only`);
          return { scope: LOCAL_SCOPE, audience: resource, accessTokenFormat: "jwt", accessTokenTTL: 3600, jwt: { sign: { alg: "ES256" } } };
        },
      },
    },
  });

  const interaction = async (req: IncomingMessage, res: ServerResponse, uid: string, action?: string) => {
    const details = await provider.interactionDetails(req, res);
    if (details.uid !== uid) throw new errors.SessionNotFound("interaction mismatch");
    const { prompt, params } = details;
    const client = String(params.client_id);
    if (prompt.name === "consent") {
      // The demo grants what was asked once the user signed in: sign-in is the consent here.
      const grant = details.grantId
        ? await provider.Grant.find(details.grantId)
        : new provider.Grant({ accountId: details.session?.accountId ?? "", clientId: client });
      if (!grant) throw new errors.SessionNotFound("grant not found");
      const d = prompt.details as { missingOIDCScope?: string[]; missingOIDCClaims?: string[]; missingResourceScopes?: Record<string, string[]> };
      if (d.missingOIDCScope) grant.addOIDCScope(d.missingOIDCScope.join(" "));
      if (d.missingOIDCClaims) grant.addOIDCClaims(d.missingOIDCClaims);
      for (const [indicator, scopes] of Object.entries(d.missingResourceScopes ?? {})) grant.addResourceScope(indicator, scopes.join(" "));
      await provider.interactionFinished(req, res, { consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: true });
      return;
    }
    const resource = String(params.resource ?? [...resources][0]);
    if (action !== "login") {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" }).end(loginPage(uid, client, resource));
      return;
    }
    const form = await formOf(req);
    const login = form.get("login") ?? "";
    if (!users.has(login) || form.get("password") !== DEMO_PASSWORD) {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(loginPage(uid, client, resource, "unknown user or wrong password"));
      return;
    }
    await provider.interactionFinished(req, res, { login: { accountId: login } }, { mergeWithLastSubmission: false });
  };

  const callback = provider.callback();
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    const m = /^\/interaction\/([\w-]+)(?:\/(login))?$/.exec(new URL(req.url ?? "/", issuer).pathname);
    if (!m?.[1]) return void callback(req, res);
    interaction(req, res, m[1], req.method === "POST" ? m[2] : undefined).catch((err: Error) => {
      if (!res.headersSent) res.writeHead(400, { "content-type": "text/plain" }).end(`sign-in failed: ${err.message}; start again from the client`);
    });
  });

  return {
    issuer,
    users: DEMO_USERS,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
