// What a family's tools may read of the gateway: the variables its registry entry declares, taken
// from the environment once at start (never per request), and nothing else. Exec children start from
// a minimal base environment, never from the gateway's own (which holds its keys and credentials).
import type { FamilyInfo } from "../../registry/contract/artifact.js";
import { credentialHeaderValue, type PerPrincipalCredentials } from "../../registry/contract/credentials.js";
import type { Caller } from "../core/ports.js";
import { secretValuesOf } from "../core/redaction.js";
import type { EnvMap } from "./templates.js";

/** Variables an exec child gets from the gateway besides its tool's declared `env`: to find programs and read text. */
export const EXEC_BASE_VARIABLES = ["PATH", "LANG", "TZ"] as const;
/** Locale settings (`LC_ALL`, `LC_CTYPE`, ...) are passed too. */
const LOCALE_RE = /^LC_[A-Z_]+$/;
/**
 * HOME of every exec child: a fixed directory that does not exist, so no tool reads the gateway
 * user's dotfiles (~/.gitconfig, ~/.netrc, cloud credentials) or finds a place to write them.
 */
export const EXEC_HOME = "/nonexistent";
/** When the gateway has no PATH (it always has on Lambda and in a shell). */
const DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin";

export { GATEWAY_CREDENTIALS } from "../core/redaction.js";

/** The environment every exec child starts from (PATH, HOME, LANG, LC_*, TZ). */
export function execBaseEnv(gateway: EnvMap): Record<string, string> {
  const base: Record<string, string> = { PATH: DEFAULT_PATH };
  for (const [name, value] of Object.entries(gateway)) {
    if (typeof value !== "string") continue;
    if ((EXEC_BASE_VARIABLES as readonly string[]).includes(name) || LOCALE_RE.test(name)) base[name] = value;
  }
  base.HOME = EXEC_HOME;
  return base;
}

export type FamilyView = {
  /** `${NAME}` reads from here: own keys are exactly the declared names (a declared but unset one maps to undefined). */
  env: EnvMap;
  /** Values never to show a caller: every family's declared secrets and the gateway's credentials. */
  secrets: readonly string[];
};

/** A family's view of the gateway; an unknown family (not in the artifact) sees nothing. */
export type FamilyViews = (family: string) => FamilyView;

type Declaring = Pick<FamilyInfo, "name" | "variables">;

/**
 * One view per family, built once from the artifact's declarations and the gateway's environment.
 * `extraSecrets` names more variables whose values are redacted (e.g. those loaded from SSM).
 */
export function familyViews(families: readonly Declaring[], gateway: EnvMap, extraSecrets: readonly string[] = []): FamilyViews {
  const value = (name: string) => (Object.hasOwn(gateway, name) && typeof gateway[name] === "string" ? gateway[name] : undefined);
  const secrets = secretValuesOf(families, gateway, extraSecrets);

  const views = new Map<string, FamilyView>();
  for (const f of families) {
    // A null prototype: `constructor` or `__proto__` are declared variables or nothing, never Object's.
    const env: Record<string, string | undefined> = Object.create(null) as Record<string, string | undefined>;
    for (const name of Object.keys(f.variables ?? {})) env[name] = value(name);
    views.set(f.name, { env: Object.freeze(env), secrets });
  }
  const none: FamilyView = { env: Object.freeze(Object.create(null) as Record<string, string>), secrets };
  return (family) => views.get(family) ?? none;
}

/** What the http and mcp backends need of the per-principal credentials (core/credentials.ts Credentials). */
export type CallerCredentials = {
  readonly families: ReadonlyMap<string, PerPrincipalCredentials>;
  tokenFor(scope: { principal: string; family: string }): Promise<string>;
  /** Told each token a call sends, so the call gateway redacts it from that call's answer, errors and log lines. */
  onToken?(token: string): void;
};

/**
 * The header carrying the caller's own token when the family declares `credentials: per_principal`
 * (a 403 naming the family when the caller stored none); undefined for every other family.
 * Only the principal's stored token is sent: the caller's own key or access token never is.
 */
export async function callerCredentialHeader(
  family: string,
  caller: Caller,
  credentials: CallerCredentials | undefined,
): Promise<{ name: string; value: string; token: string } | undefined> {
  const declared = credentials?.families.get(family);
  if (!declared || !credentials) return undefined;
  const token = await credentials.tokenFor({ principal: caller.principal, family });
  credentials.onToken?.(token);
  return { name: declared.per_principal.header, value: credentialHeaderValue(declared, token), token };
}
