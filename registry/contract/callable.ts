// Which tools this gateway can call, shared by the build (the check, the projection) and the Lambdas
// (find ranks the callable first and flags the rest). No dependencies: Lambda bundles import it.
import type { CatalogTool } from "./artifact.js";

/** The handlers the gateway implements (lambdas/backends/builtin.ts); a tool file naming another is a check error. */
export const BUILTIN_HANDLERS = ["find", "call", "reshape"] as const;

/** The handler of tools imported from a catalog without a backend: searchable and governed, answering 501 on call. */
export const UNAVAILABLE_HANDLER = "unavailable";

/** False for a tool the gateway cannot run (an imported catalog entry, a handler it does not implement). */
export function isCallable(t: { backend?: CatalogTool["backend"] }): boolean {
  return t.backend?.kind !== "builtin" || (BUILTIN_HANDLERS as readonly string[]).includes(t.backend.handler);
}
