// Each principal's own upstream token for a family that declares `credentials: per_principal`: sealed
// with envelope encryption (a fresh AES-256-GCM data key per item, wrapped by KMS on AWS or by a local
// key file under `npm start`), stored per principal, opened only to call that principal's tools, and
// never returned. The item's identity (principal, family) is bound into both layers, so a sealed token
// copied onto another principal's item does not open.
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { connectHint, type PerPrincipalCredentials } from "../../registry/contract/credentials.js";
import { ToolbeltError } from "./errors.js";

/** Whose token for which family: the KMS encryption context and the GCM additional data. */
export type CredentialScope = { principal: string; family: string };

/** Wraps data keys (ports: stores/credentials.ts has the KMS and the local key-file adapters). */
export type DataKeys = {
  /** What wraps the data keys (a KMS key id, `local`), kept on each item for rotation and audit. */
  readonly ref: string;
  generate(scope: CredentialScope): Promise<{ plaintext: Buffer; wrapped: Uint8Array }>;
  unwrap(wrapped: Uint8Array, scope: CredentialScope): Promise<Buffer>;
};

/** A token as stored: only ciphertext and the wrapped data key. */
export type SealedToken = { key_ref: string; wrapped_key: Uint8Array; iv: Uint8Array; ciphertext: Uint8Array; tag: Uint8Array };
export type StoredCredential = SealedToken & { updated_at: string };

/** The table side (stores/credentials.ts DynamoCredentialStore). */
export type CredentialStore = {
  put(scope: CredentialScope, item: StoredCredential): Promise<void>;
  get(scope: CredentialScope): Promise<StoredCredential | undefined>;
  /** True when there was one to delete. */
  delete(scope: CredentialScope): Promise<boolean>;
  list(principal: string): Promise<{ family: string; updated_at: string }[]>;
};

/** A token is one header value: printable ASCII without spaces at the ends, long enough to be redacted. */
export const TOKEN_LIMITS = { minChars: 8, maxChars: 8192 } as const;
/** One header value: printable ASCII, no space at either end (the PUT body's contract schema uses it too). */
export const CREDENTIAL_TOKEN_RE = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;

/** The GCM additional data: the scope, unambiguous (NUL cannot occur in either part of a key). */
const aad = (s: CredentialScope) => Buffer.from(`toolbelt-credential\0${s.principal}\0${s.family}`, "utf8");

export async function sealToken(token: string, keys: DataKeys, scope: CredentialScope): Promise<SealedToken> {
  const { plaintext, wrapped } = await keys.generate(scope);
  try {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", plaintext, iv).setAAD(aad(scope));
    const ciphertext = Buffer.concat([cipher.update(token, "utf8"), cipher.final()]);
    return { key_ref: keys.ref, wrapped_key: wrapped, iv, ciphertext, tag: cipher.getAuthTag() };
  } finally {
    plaintext.fill(0);
  }
}

export async function openToken(sealed: SealedToken, keys: DataKeys, scope: CredentialScope): Promise<string> {
  const key = await keys.unwrap(sealed.wrapped_key, scope);
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, sealed.iv).setAAD(aad(scope)).setAuthTag(sealed.tag);
    return Buffer.concat([decipher.update(sealed.ciphertext), decipher.final()]).toString("utf8");
  } finally {
    key.fill(0);
  }
}

export type Credentials = {
  /** The families that take a caller's own token, by name, with where it goes. */
  readonly families: ReadonlyMap<string, PerPrincipalCredentials>;
  connect(scope: CredentialScope, token: unknown): Promise<{ family: string; updated_at: string }>;
  disconnect(scope: CredentialScope): Promise<boolean>;
  list(principal: string): Promise<{ family: string; updated_at: string }[]>;
  /** The principal's token for the family; 403 naming the family and how to connect it when there is none. */
  tokenFor(scope: CredentialScope): Promise<string>;
};

export type CredentialsOptions = {
  store: CredentialStore;
  /** Undefined: the deployment has no key to seal with, so nothing is stored and such calls answer 503. */
  keys: DataKeys | undefined;
  families: readonly { name: string; credentials?: PerPrincipalCredentials }[];
  now?: () => Date;
};

const NOT_CONFIGURED = () =>
  new ToolbeltError(
    "UNAVAILABLE",
    "this gateway has no key for per-principal credentials: the operator sets TOOLBELT_CREDENTIALS_KMS_KEY (AWS) or TOOLBELT_CREDENTIALS_KEY_FILE (npm start)",
  );

/** The 403 of a call to a per-principal family whose caller stored no token (never 401: the gateway login is fine). */
export const credentialsMissing = (family: string): ToolbeltError =>
  new ToolbeltError(
    "FORBIDDEN",
    `family \`${family}\` calls its upstream with your own token and you have not connected it: send your token with ${connectHint(family)} (body {"token": "..."}), then call again`,
    { family, connect: connectHint(family) },
  );

/** Longer than any family name or principal id the contracts allow (128 characters, `user:` subjects included). */
const MAX_NAME_CHARS = 300;

export function createCredentials(options: CredentialsOptions): Credentials {
  const now = options.now ?? (() => new Date());
  const families = new Map<string, PerPrincipalCredentials>();
  for (const f of options.families) if (f.credentials) families.set(f.name, f.credentials);

  const declared = (family: string) => {
    if (!families.has(family)) {
      throw new ToolbeltError("NOT_FOUND", `no family named \`${family}\` takes per-principal credentials (families.yaml \`credentials: per_principal\`)`, {
        family,
      });
    }
  };
  const keys = (): DataKeys => {
    if (!options.keys) throw NOT_CONFIGURED();
    return options.keys;
  };

  return {
    families,
    async connect(scope, token) {
      declared(scope.family);
      // Fixed messages: a refused token is never echoed, not even in part.
      if (typeof token !== "string" || token.length < TOKEN_LIMITS.minChars || token.length > TOKEN_LIMITS.maxChars || !CREDENTIAL_TOKEN_RE.test(token)) {
        throw new ToolbeltError(
          "INVALID_REQUEST",
          `body must be {"token": "..."}: ${TOKEN_LIMITS.minChars} to ${TOKEN_LIMITS.maxChars} printable ASCII characters, no line breaks, no spaces at either end`,
          { issues: [{ path: "token", message: "not a token" }] },
        );
      }
      const updated_at = now().toISOString();
      await options.store.put(scope, { ...(await sealToken(token, keys(), scope)), updated_at });
      return { family: scope.family, updated_at };
    },
    // Removing or listing needs no declaration: a token for a family since dropped from the registry can still be deleted.
    // Names are bounded first: a caller-sized key would be the store's 500, and no family or principal is this long.
    async disconnect(scope) {
      if (scope.family.length > MAX_NAME_CHARS || scope.principal.length > MAX_NAME_CHARS) return false;
      return options.store.delete(scope);
    },
    list: (principal) => options.store.list(principal),
    async tokenFor(scope) {
      const stored = await options.store.get(scope);
      if (!stored) throw credentialsMissing(scope.family);
      try {
        return await openToken(stored, keys(), scope);
      } catch (e) {
        if (e instanceof ToolbeltError) throw e;
        // A tampered item, a rotated local key or a KMS refusal: the caller can fix it by connecting again.
        throw new ToolbeltError(
          "FORBIDDEN",
          `your stored token for family \`${scope.family}\` cannot be opened (the gateway's key changed?): send it again with ${connectHint(scope.family)}`,
          { family: scope.family, connect: connectHint(scope.family) },
          { cause: e },
        );
      }
    },
  };
}
