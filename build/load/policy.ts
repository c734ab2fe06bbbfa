// The grants/principals policy (`policy.yaml`, optional in a registry; deployments may keep theirs
// elsewhere) and its sample (`policy.example.yaml`), checked alike so the sample cannot rot.
import type { Diagnostic } from "../../registry/contract/diagnostics.js";
import { PolicyFile, Principal } from "../../registry/contract/policy.js";
import { diskFs, type RegistryFs } from "../registry-fs.js";
import { closest, issuesToFindings } from "../validate/issues.js";
import { checkVersion, diag, readParsed } from "./files.js";
import { checkReferences } from "./references.js";

export const POLICY_FILE = "policy.yaml";
/** A sample policy shipped beside the registry is checked like the real one, so it cannot rot. */
export const POLICY_EXAMPLE_FILE = "policy.example.yaml";

const POLICY_KEYS = [...Object.keys(PolicyFile.shape), ...Object.keys(Principal.shape)];

/**
 * Read and check one policy file (read once). Globs that match no tool are warnings: a grant may
 * anticipate a family not yet deployed. An `optional` file that cannot be read is simply absent.
 */
export async function loadPolicy(
  dir: string,
  opts: { fs?: RegistryFs; file?: string; toolNames?: readonly string[]; optional?: boolean } = {},
): Promise<{ policy?: PolicyFile; diagnostics: Diagnostic[] }> {
  const fs = opts.fs ?? diskFs(dir);
  const file = opts.file ?? POLICY_FILE;
  const r = await readParsed(fs, file, { optional: opts.optional ?? false });
  if (!r.parsed || r.parsed.value === undefined) return { diagnostics: r.diagnostics };
  const { value, lineOf } = r.parsed;
  const loc = { file, lineOf };
  const version = checkVersion(value);
  if (version.length > 0) return { diagnostics: version.map((f) => diag(f, loc)) };
  const parsed = PolicyFile.safeParse(value);
  if (!parsed.success) {
    return { diagnostics: issuesToFindings(parsed.error.issues, value, (key) => closest(key, POLICY_KEYS)).map((f) => diag(f, loc)) };
  }
  const diagnostics: Diagnostic[] = [];
  const ids = new Set<string>();
  parsed.data.principals.forEach((p, i) => {
    if (ids.has(p.id)) diagnostics.push(diag({ code: "NAME_COLLISION", at: ["principals", i, "id"], message: `principal \`${p.id}\` is listed twice` }, loc));
    ids.add(p.id);
    if (opts.toolNames) {
      for (const key of ["allow", "deny"] as const) {
        diagnostics.push(
          ...checkReferences(p[key], opts.toolNames, new Set()).map((f) => diag({ ...f, severity: "warning", at: ["principals", i, key, ...f.at] }, loc)),
        );
      }
    }
  });
  return { policy: parsed.data, diagnostics };
}
