// The policy and the briefs as the Lambdas parse them at cold start: zod/mini twins of
// registry/contract's PolicyFile and BriefFile, which the build and the CLIs keep in full zod for
// their diagnostics. Importing those would put full zod back in every bundle; instead
// test/unit/lambdas/core/deployment-files.test.ts holds each twin to the contract (same verdict, same
// data, same issues on generated documents, and the same output type).
import * as z from "./zod-mini.js";

/** registry/contract/tool.ts FORMAT_VERSION, the default `version` of both files (the test checks they agree). */
export const DEPLOYMENT_FORMAT_VERSION = 1;

const version = z._default(z.number().check(z.int(), z.positive()), DEPLOYMENT_FORMAT_VERSION);
const strings = z._default(z.array(z.string()), []);

export const PrincipalSchema = z.strictObject({
  id: z.string().check(z.regex(/^[A-Za-z0-9_.:@-]{1,128}$/)),
  description: z.optional(z.string()),
  keys: z._default(z.array(z.string().check(z.regex(/^[0-9a-f]{64}$/, "a lower-case hex SHA-256 digest"))), []),
  allow: strings,
  deny: strings,
  admin: z._default(z.boolean(), false),
});

export const PolicyFileSchema = z.strictObject({
  version,
  principals: z.array(PrincipalSchema).check(z.minLength(1)),
});

export const BriefFileSchema = z.strictObject({
  version,
  name: z.string().check(z.regex(/^[a-z][a-z0-9_-]{0,63}$/)),
  description: z.string(),
  tools: z.array(z.string()).check(z.minLength(1)),
});
