// Briefs: the registry's declared packing lists, one file each under `briefs/`.
import { BriefFile } from "../../registry/contract/brief.js";
import type { Diagnostic } from "../../registry/contract/diagnostics.js";
import { diskFs, type RegistryFs } from "../registry-fs.js";
import { closest, issuesToFindings } from "../validate/issues.js";
import { checkVersion, diag, readParsed } from "./files.js";
import { checkReferences } from "./references.js";

export const BRIEFS_DIR = "briefs";

export type LoadedBrief = BriefFile & { file: string };

/**
 * Briefs (`briefs/*.yaml`): declared packing lists. A missing folder means no briefs. Pass `toolNames` to
 * check references (every name or glob must match a tool); without it only the format is checked.
 */
export async function loadBriefs(
  dir: string,
  opts: { fs?: RegistryFs; toolNames?: readonly string[]; skippedFamilies?: ReadonlySet<string> } = {},
): Promise<{ briefs: LoadedBrief[]; diagnostics: Diagnostic[] }> {
  const fs = opts.fs ?? diskFs(dir);
  const diagnostics: Diagnostic[] = [];
  const briefs: LoadedBrief[] = [];
  let files: string[];
  try {
    files = (await fs.listFiles(BRIEFS_DIR)).filter((f) => /\.ya?ml$/i.test(f)).sort();
  } catch {
    return { briefs, diagnostics };
  }
  const byName = new Map<string, string>();
  for (const name of files) {
    const file = `${BRIEFS_DIR}/${name}`;
    const r = await readParsed(fs, file);
    diagnostics.push(...r.diagnostics);
    if (!r.parsed || r.parsed.value === undefined) continue;
    const { value, lineOf } = r.parsed;
    const loc = { file, lineOf };
    const version = checkVersion(value);
    if (version.length > 0) {
      diagnostics.push(...version.map((f) => diag(f, loc)));
      continue;
    }
    const parsed = BriefFile.safeParse(value);
    if (!parsed.success) {
      diagnostics.push(...issuesToFindings(parsed.error.issues, value, (key) => closest(key, Object.keys(BriefFile.shape))).map((f) => diag(f, loc)));
      continue;
    }
    const brief = parsed.data;
    const prior = byName.get(brief.name);
    if (prior) {
      diagnostics.push(diag({ code: "NAME_COLLISION", at: ["name"], message: `brief \`${brief.name}\` is also defined in ${prior}` }, loc));
      continue;
    }
    byName.set(brief.name, file);
    if (opts.toolNames) {
      diagnostics.push(
        ...checkReferences(brief.tools, opts.toolNames, opts.skippedFamilies ?? new Set()).map((f) => diag({ ...f, at: ["tools", ...f.at] }, loc)),
      );
    }
    briefs.push({ ...brief, file });
  }
  return { briefs, diagnostics };
}
