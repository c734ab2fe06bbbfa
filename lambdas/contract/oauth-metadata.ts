// GET /.well-known/oauth-protected-resource[/mcp] (lambdas/http/routes/oauth-metadata.ts): OAuth 2.0
// Protected Resource Metadata (RFC 9728), how a client finds the issuer whose access tokens the gateway takes.
import * as z from "../core/zod-mini.js";
import { described } from "./schema.js";

export const ProtectedResourceMetadata = z.object({
  resource: described(z.string(), "This resource's URL: the gateway's origin, or its MCP endpoint (`<origin>/mcp`)"),
  authorization_servers: described(z.array(z.string()), "The issuer of the access tokens the gateway takes (policy `identity.issuer`)"),
  scopes_supported: described(z.optional(z.array(z.string())), "Scopes every token must carry, when the policy names any"),
  bearer_methods_supported: z.array(z.literal("header")),
  resource_name: z.string(),
});
export type ProtectedResourceMetadata = z.infer<typeof ProtectedResourceMetadata>;
