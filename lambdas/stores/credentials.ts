// Per-principal upstream tokens in the Toolbelt table, sealed (core/credentials.ts), and the two ways
// their data keys are wrapped: AWS KMS (GenerateDataKey/Decrypt with the scope as encryption context)
// and, for `npm start`, a random 32-byte key in a file only its owner can read.
//   pk "CREDENTIAL#<principal>", sk "FAMILY#<family>": one partition per principal, so listing is one Query.
//   key_ref, wrapped_key, iv, ciphertext, tag (binary), updated_at. Never a token in plain text.
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { dirname } from "node:path";
import { DeleteCommand, GetCommand, paginateQuery, PutCommand, type DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import type { CredentialScope, CredentialStore, DataKeys, StoredCredential } from "../core/credentials.js";
import { ToolbeltError } from "../core/errors.js";
import { translateSdkError } from "./sdk-errors.js";

const PK_PREFIX = "CREDENTIAL#";
const SK_PREFIX = "FAMILY#";
const key = (s: CredentialScope) => ({ pk: `${PK_PREFIX}${s.principal}`, sk: `${SK_PREFIX}${s.family}` });
const translate = (err: unknown, op: string) => translateSdkError(err, "credential store", op);
const bytes = (v: unknown): Uint8Array => (v instanceof Uint8Array ? v : new Uint8Array());

export class DynamoCredentialStore implements CredentialStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async put(scope: CredentialScope, item: StoredCredential): Promise<void> {
    try {
      await this.client.send(new PutCommand({ TableName: this.table, Item: { ...key(scope), type: "credential", family: scope.family, ...item } }));
    } catch (err) {
      throw translate(err, "put");
    }
  }

  async get(scope: CredentialScope): Promise<StoredCredential | undefined> {
    try {
      // Consistent: a token just connected (or deleted) counts for the very next call.
      const out = await this.client.send(new GetCommand({ TableName: this.table, Key: key(scope), ConsistentRead: true }));
      const i = out.Item;
      if (!i) return undefined;
      return {
        key_ref: String(i.key_ref),
        wrapped_key: bytes(i.wrapped_key),
        iv: bytes(i.iv),
        ciphertext: bytes(i.ciphertext),
        tag: bytes(i.tag),
        updated_at: String(i.updated_at),
      };
    } catch (err) {
      throw translate(err, "get");
    }
  }

  async delete(scope: CredentialScope): Promise<boolean> {
    try {
      const out = await this.client.send(new DeleteCommand({ TableName: this.table, Key: key(scope), ReturnValues: "ALL_OLD" }));
      return out.Attributes !== undefined;
    } catch (err) {
      throw translate(err, "delete");
    }
  }

  async list(principal: string): Promise<{ family: string; updated_at: string }[]> {
    const out: { family: string; updated_at: string }[] = [];
    try {
      // Only the names and dates are read back: the sealed token never leaves the table here.
      const pages = paginateQuery(
        { client: this.client },
        {
          TableName: this.table,
          KeyConditionExpression: "pk = :pk AND begins_with(sk, :sk)",
          ProjectionExpression: "#family, #updated_at",
          ExpressionAttributeNames: { "#family": "family", "#updated_at": "updated_at" },
          ExpressionAttributeValues: { ":pk": `${PK_PREFIX}${principal}`, ":sk": SK_PREFIX },
          ConsistentRead: true,
        },
      );
      for await (const page of pages) for (const i of page.Items ?? []) out.push({ family: String(i.family), updated_at: String(i.updated_at) });
    } catch (err) {
      throw translate(err, "list");
    }
    return out.sort((a, b) => (a.family < b.family ? -1 : a.family > b.family ? 1 : 0));
  }
}

/** The KMS encryption context: CloudTrail shows whose token each Decrypt opened, and a mismatch fails. */
const encryptionContext = (s: CredentialScope) => ({ "toolbelt:principal": s.principal, "toolbelt:family": s.family });

/** KMS refuses this ciphertext for this key or context: a tampered or moved item (403 upstream), not an outage. */
const REFUSED = new Set(["InvalidCiphertextException", "IncorrectKeyException", "AccessDeniedException"]);

/**
 * Data keys from AWS KMS (`AWS_ENDPOINT_URL_KMS` or `endpoint` points the client elsewhere). The client is
 * loaded on first use, so a function that never seals or opens a token does not pay for it at cold start.
 */
export function kmsDataKeys(keyId: string, opts: { region?: string; endpoint?: string } = {}): DataKeys {
  type Kms = typeof import("@aws-sdk/client-kms");
  let kms: Promise<{ client: InstanceType<Kms["KMSClient"]>; m: Kms }> | undefined;
  const load = () =>
    (kms ??= import("@aws-sdk/client-kms").then((m) => ({
      client: new m.KMSClient({ ...(opts.region ? { region: opts.region } : {}), ...(opts.endpoint ? { endpoint: opts.endpoint } : {}) }),
      m,
    })));
  const kmsError = (err: unknown, op: string) => {
    if (REFUSED.has((err as { name?: string }).name ?? "")) return err;
    return translateSdkError(err, "key service (KMS)", op);
  };
  return {
    ref: keyId,
    async generate(scope) {
      const { client, m } = await load();
      try {
        const out = await client.send(new m.GenerateDataKeyCommand({ KeyId: keyId, KeySpec: "AES_256", EncryptionContext: encryptionContext(scope) }));
        if (!out.Plaintext || !out.CiphertextBlob) throw new Error("GenerateDataKey returned no key");
        return { plaintext: Buffer.from(out.Plaintext), wrapped: out.CiphertextBlob };
      } catch (err) {
        throw kmsError(err, "generate a data key");
      }
    },
    async unwrap(wrapped, scope) {
      const { client, m } = await load();
      try {
        // KeyId pins the key: a ciphertext made under another key is refused rather than opened with it.
        const out = await client.send(new m.DecryptCommand({ CiphertextBlob: wrapped, KeyId: keyId, EncryptionContext: encryptionContext(scope) }));
        if (!out.Plaintext) throw new Error("Decrypt returned no key");
        return Buffer.from(out.Plaintext);
      } catch (err) {
        throw kmsError(err, "decrypt a data key");
      }
    },
  };
}

const KEY_BYTES = 32;

/**
 * The local key file's 32 bytes (base64), created with mode 0600 in a 0700 folder on first use; a file
 * others may read is narrowed again, as `.toolbelt/local-key` is.
 */
export function localKeyBytes(file: string): Buffer {
  if (existsSync(file)) {
    if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
    const k = Buffer.from(readFileSync(file, "utf8").trim(), "base64");
    if (k.length !== KEY_BYTES) throw new ToolbeltError("INTERNAL", `${file} does not hold a ${KEY_BYTES}-byte key (base64): remove it to start afresh`);
    return k;
  }
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const k = randomBytes(KEY_BYTES);
  // `wx`: two processes starting at once must not each write a key and lose the other's tokens.
  try {
    writeFileSync(file, `${k.toString("base64")}\n`, { mode: 0o600, flag: "wx" });
  } catch (err) {
    if ((err as { code?: string }).code === "EEXIST") return localKeyBytes(file);
    throw err;
  }
  return k;
}

const scopeAad = (s: CredentialScope) => Buffer.from(`toolbelt-data-key\0${s.principal}\0${s.family}`, "utf8");

/** Data keys wrapped with AES-256-GCM under the local key file (iv 12 | tag 16 | wrapped key 32). */
export function fileDataKeys(file: string): DataKeys {
  let master: Buffer | undefined;
  const masterKey = () => (master ??= localKeyBytes(file));
  return {
    ref: "local",
    async generate(scope) {
      const plaintext = randomBytes(KEY_BYTES);
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", masterKey(), iv).setAAD(scopeAad(scope));
      const ct = Buffer.concat([cipher.update(plaintext), cipher.final()]);
      return { plaintext, wrapped: Buffer.concat([iv, cipher.getAuthTag(), ct]) };
    },
    async unwrap(wrapped, scope) {
      const w = Buffer.from(wrapped);
      const decipher = createDecipheriv("aes-256-gcm", masterKey(), w.subarray(0, 12)).setAAD(scopeAad(scope)).setAuthTag(w.subarray(12, 28));
      return Buffer.concat([decipher.update(w.subarray(28)), decipher.final()]);
    },
  };
}

/** How the deployment seals tokens (Config.credentials): KMS on AWS, else a local key file, else not at all. */
export type CredentialKeySettings = { kmsKeyId?: string; keyFile?: string; region?: string; kmsEndpoint?: string };

export function dataKeysFrom(s: CredentialKeySettings): DataKeys | undefined {
  if (s.kmsKeyId) return kmsDataKeys(s.kmsKeyId, { ...(s.region ? { region: s.region } : {}), ...(s.kmsEndpoint ? { endpoint: s.kmsEndpoint } : {}) });
  if (s.keyFile) return fileDataKeys(s.keyFile);
  return undefined;
}
