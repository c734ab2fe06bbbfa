// The KMS adapter (stores/credentials.ts kmsDataKeys) with the real @aws-sdk/client-kms against a loopback
// server speaking KMS's JSON 1.1 wire protocol: no local KMS implementation installs from npm here (and
// none runs without Docker or Go), so, as TOOLCHAIN.md says for Bedrock, the adapter's requests (target,
// key, key spec, encryption context) and its reading of the answers and errors are checked on the wire.
// The server wraps keys with AES-GCM and the encryption context as additional data, as KMS binds it.
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCredentials, openToken, sealToken } from "../../../lambdas/core/credentials.js";
import { ToolbeltError } from "../../../lambdas/core/errors.js";
import { DynamoCredentialStore, kmsDataKeys } from "../../../lambdas/stores/credentials.js";
import { createDynamoClient } from "../../../lambdas/stores/dynamodb.js";
import { startDynalite, type TestDynamo } from "../../helpers/dynalite.js";
import { startLoopback, type Loopback } from "../call/helpers.js";

const KEY_ID = "arn:aws:kms:us-east-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab";
const TOKEN = "canary-kms-sealed-token-0b6e2d91";
const requests: { target: string; contentType: string; body: Record<string, unknown> }[] = [];
const master = randomBytes(32);
let kms: Loopback;
let dynamo: TestDynamo;
let throttle = false;

const context = (body: Record<string, unknown>) => Buffer.from(JSON.stringify(body.EncryptionContext ?? {}));

beforeAll(async () => {
  process.env.AWS_ACCESS_KEY_ID ??= "AKIDEXAMPLE";
  process.env.AWS_SECRET_ACCESS_KEY ??= "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
  dynamo = await startDynalite();
  kms = await startLoopback((req, res, raw) => {
    const body = JSON.parse(raw) as Record<string, unknown>;
    const target = String(req.headers["x-amz-target"]);
    requests.push({ target, contentType: String(req.headers["content-type"]), body });
    const answer = (status: number, value: unknown) => {
      res.writeHead(status, { "content-type": "application/x-amz-json-1.1" });
      res.end(JSON.stringify(value));
    };
    if (throttle) return answer(400, { __type: "ThrottlingException", message: "Rate exceeded" });
    if (target === "TrentService.GenerateDataKey") {
      const plaintext = randomBytes(32);
      const iv = randomBytes(12);
      const c = createCipheriv("aes-256-gcm", master, iv).setAAD(context(body));
      const blob = Buffer.concat([iv, c.update(plaintext), c.final(), c.getAuthTag()]);
      return answer(200, { KeyId: KEY_ID, Plaintext: plaintext.toString("base64"), CiphertextBlob: blob.toString("base64") });
    }
    if (target === "TrentService.Decrypt") {
      const blob = Buffer.from(String(body.CiphertextBlob), "base64");
      try {
        const d = createDecipheriv("aes-256-gcm", master, blob.subarray(0, 12)).setAAD(context(body));
        d.setAuthTag(blob.subarray(blob.length - 16));
        const plaintext = Buffer.concat([d.update(blob.subarray(12, blob.length - 16)), d.final()]);
        return answer(200, { KeyId: KEY_ID, Plaintext: plaintext.toString("base64") });
      } catch {
        return answer(400, { __type: "InvalidCiphertextException", message: "" });
      }
    }
    return answer(400, { __type: "UnknownOperationException" });
  });
});

afterAll(async () => {
  await kms?.close();
  await dynamo?.close();
});

describe("KMS data keys", () => {
  it("asks GenerateDataKey for an AES-256 key bound to the principal and family, and Decrypt with the same key and context", async () => {
    const keys = kmsDataKeys(KEY_ID, { region: "us-east-1", endpoint: kms.url });
    const scope = { principal: "alice", family: "crm" };
    const sealed = await sealToken(TOKEN, keys, scope);
    expect(sealed.key_ref).toBe(KEY_ID);
    expect(Buffer.from(sealed.ciphertext).includes(TOKEN)).toBe(false);
    expect(await openToken(sealed, keys, scope)).toBe(TOKEN);

    expect(requests.map((r) => [r.target, r.contentType])).toEqual([
      ["TrentService.GenerateDataKey", "application/x-amz-json-1.1"],
      ["TrentService.Decrypt", "application/x-amz-json-1.1"],
    ]);
    const ctx = { "toolbelt:principal": "alice", "toolbelt:family": "crm" };
    expect(requests[0]!.body).toEqual({ KeyId: KEY_ID, KeySpec: "AES_256", EncryptionContext: ctx });
    expect(requests[1]!.body).toMatchObject({ KeyId: KEY_ID, EncryptionContext: ctx });
    // The token itself never goes to KMS: only the data key is wrapped.
    expect(JSON.stringify(requests)).not.toContain(TOKEN);
  });

  it("a sealed token opened for another principal is refused by KMS (context mismatch), and the call hears 403 to connect again", async () => {
    const store = new DynamoCredentialStore(createDynamoClient({ endpoint: dynamo.endpoint }), dynamo.table);
    const keys = kmsDataKeys(KEY_ID, { region: "us-east-1", endpoint: kms.url });
    const credentials = createCredentials({ store, keys, families: [{ name: "crm", credentials: { per_principal: { header: "Authorization" } } }] });
    await credentials.connect({ principal: "alice", family: "crm" }, TOKEN);
    expect(await credentials.tokenFor({ principal: "alice", family: "crm" })).toBe(TOKEN);

    const stored = await store.get({ principal: "alice", family: "crm" });
    await store.put({ principal: "bob", family: "crm" }, stored!);
    const refused = await credentials.tokenFor({ principal: "bob", family: "crm" }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ToolbeltError);
    expect(refused).toMatchObject({ code: "FORBIDDEN", details: { family: "crm", connect: "PUT /v1/credentials/crm" } });
    expect(requests.at(-1)!.body.EncryptionContext).toEqual({ "toolbelt:principal": "bob", "toolbelt:family": "crm" });
  });

  it("a throttled KMS is 503 UNAVAILABLE (retry), not a refusal to connect again", async () => {
    const keys = kmsDataKeys(KEY_ID, { region: "us-east-1", endpoint: kms.url });
    throttle = true;
    try {
      const e = await sealToken(TOKEN, keys, { principal: "alice", family: "crm" }).catch((err: unknown) => err);
      expect(e).toMatchObject({ code: "UNAVAILABLE" });
    } finally {
      throttle = false;
    }
  });
});
