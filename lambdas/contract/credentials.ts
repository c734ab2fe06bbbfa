// The per-principal credential routes (lambdas/http/routes/credentials.ts): a caller's own upstream token
// goes in, and no answer ever carries one back (names and dates only).
import { CREDENTIAL_TOKEN_RE, TOKEN_LIMITS } from "../core/credentials.js";
import * as z from "../core/zod-mini.js";
import { described } from "./schema.js";

export { CREDENTIAL_TOKEN_RE };

/** PUT /v1/credentials/{family}. */
export const CredentialBody = z.strictObject({
  token: described(
    z.string().check(z.minLength(TOKEN_LIMITS.minChars), z.maxLength(TOKEN_LIMITS.maxChars), z.regex(CREDENTIAL_TOKEN_RE)),
    `Your own token for the family's upstream (${TOKEN_LIMITS.minChars} to ${TOKEN_LIMITS.maxChars} printable ASCII characters, no line breaks, no spaces at either end): sealed, then sent in the family's declared header on your calls only; never returned`,
  ),
});
export type CredentialBody = z.infer<typeof CredentialBody>;

export const ConnectedFamily = z.object({
  family: z.string(),
  updated_at: described(z.string(), "ISO 8601 time the token was last stored"),
});
export type ConnectedFamily = z.infer<typeof ConnectedFamily>;

export const CredentialsList = z.object({
  principal: described(z.string(), "Whose list this is: the caller's"),
  connected: described(z.array(ConnectedFamily), "The families you stored a token for"),
  families: described(z.array(z.string()), "Every family that takes a caller's own token (`credentials: per_principal`)"),
});
export type CredentialsList = z.infer<typeof CredentialsList>;

export const ConnectResponse = z.object({ connected: ConnectedFamily });
export type ConnectResponse = z.infer<typeof ConnectResponse>;

export const DisconnectResponse = z.object({
  family: z.string(),
  removed: described(z.boolean(), "false: there was no token to remove"),
});
export type DisconnectResponse = z.infer<typeof DisconnectResponse>;

export const AdminDisconnectResponse = z.extend(DisconnectResponse, { principal: z.string() });
export type AdminDisconnectResponse = z.infer<typeof AdminDisconnectResponse>;
