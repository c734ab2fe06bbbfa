// Amazon Cognito's access tokens carry no `aud`: with the identity's `client_ids` (the construct's
// Cognito form), a token without `aud` is taken only as an access token issued to an accepted client;
// one with `aud` must still name this gateway. Real RS256 signatures, the key set served by `fetch`.
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { createTokenVerifier } from "../../../../lambdas/core/identity.js";

const ISSUER = "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_TEST";
const JWKS = `${ISSUER}/.well-known/jwks.json`;
const GATEWAY = "https://tools.example.com";
let sign: (claims: Record<string, unknown>) => Promise<string>;
let fetchKeys: typeof fetch;

beforeAll(async () => {
  const { publicKey, privateKey } = await generateKeyPair("RS256");
  const jwk = { ...(await exportJWK(publicKey)), kid: "k1", alg: "RS256", use: "sig" };
  fetchKeys = (async (input: RequestInfo | URL) => {
    expect(String(input)).toBe(JWKS);
    return new Response(JSON.stringify({ keys: [jwk] }), { headers: { "content-type": "application/json" } });
  }) as typeof fetch;
  sign = (claims) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: "RS256", kid: "k1" })
      .setIssuer(ISSUER)
      .setSubject("u-1")
      .setIssuedAt()
      .setExpirationTime("10m")
      .sign(privateKey);
});

const verifier = () =>
  createTokenVerifier({ issuer: ISSUER, jwks_uri: JWKS, subject_claim: "sub", scopes: [], client_ids: ["client-a"] }, { fetch: fetchKeys });

describe("Cognito access tokens (identity.client_ids)", () => {
  it("takes an access token issued to an accepted client, with no aud", async () => {
    const payload = await verifier().verify(await sign({ token_use: "access", client_id: "client-a", scope: `${GATEWAY}/tools` }), [GATEWAY]);
    expect(payload.sub).toBe("u-1");
  });

  it("refuses another client's token, an ID token, a token without token_use, and one whose aud names another service", async () => {
    const v = verifier();
    for (const claims of [
      { token_use: "access", client_id: "client-b" },
      { token_use: "id", client_id: "client-a" },
      { client_id: "client-a" },
      { token_use: "access", client_id: "client-a", aud: "https://other.example.com" },
    ]) {
      await expect(v.verify(await sign(claims), [GATEWAY]), JSON.stringify(claims)).rejects.toMatchObject({ code: "UNAUTHENTICATED" });
    }
  });

  it("still takes a token whose aud names the gateway", async () => {
    await expect(verifier().verify(await sign({ aud: GATEWAY }), [GATEWAY])).resolves.toMatchObject({ sub: "u-1" });
  });
});
