// The key of `npm start`'s local principal when TOOLBELT_API_KEY is unset: random on the first start,
// kept in a gitignored file only its owner can read, printed at each start. A public default key let
// any web page or local process drive a developer's gateway.
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

/** Where the key lives: `.toolbelt/` is in .gitignore. */
export const localKeyFile = (root: string): string => join(root, ".toolbelt", "local-key");

/** Where `npm start` keeps the key that seals per-principal upstream tokens (created by the credentials store on first use). */
export const credentialsKeyFile = (root: string): string => join(root, ".toolbelt", "credentials-key");

/** The stored key, if a gateway started here before. */
export function readLocalKey(root: string): string | undefined {
  const file = localKeyFile(root);
  if (!existsSync(file)) return undefined;
  return readFileSync(file, "utf8").trim() || undefined;
}

/** The stored key, or a new one written with mode 0600. */
export function localKey(root: string): { key: string; file: string; created: boolean } {
  const file = localKeyFile(root);
  const stored = readLocalKey(root);
  if (stored) {
    // A file made readable by others (a copy, an old umask) is narrowed again.
    chmodSync(file, 0o600);
    return { key: stored, file, created: false };
  }
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const key = `tb_local_${randomBytes(24).toString("base64url")}`;
  writeFileSync(file, `${key}\n`, { mode: 0o600 });
  return { key, file, created: true };
}
