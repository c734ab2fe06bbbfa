// `registry:init`: a new registry with one family of each tool kind, copied from build/template/, to
// edit into your own. Refuses a directory that already has files, so it never overwrites a registry.
import { cpSync, existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { FamiliesFile } from "../registry/contract/family.js";
import { declaredSettings } from "../registry/contract/upstream-settings.js";

export const TEMPLATE_DIR = join(import.meta.dirname, "template");

/** The files written, and the settings required families declare (npm start stops until they are set). */
export function initRegistry(dir: string): { files: string[]; requiredSettings: string[] } {
  if (existsSync(dir) && readdirSync(dir).length > 0) throw new Error(`${dir} is not empty: registry:init starts a registry in a new or empty directory`);
  cpSync(TEMPLATE_DIR, dir, { recursive: true });
  const files = readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .sort();
  const families = FamiliesFile.parse(parseYaml(readFileSync(join(dir, "families.yaml"), "utf8"))).families;
  const requiredSettings = declaredSettings(families)
    .filter((s) => s.families.some((f) => f.required))
    .map((s) => s.name);
  return { files, requiredSettings };
}
