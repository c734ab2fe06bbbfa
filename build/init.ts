// `registry:init`: a new registry with one family of each tool kind, copied from build/template/, to
// edit into your own. Refuses a directory that already has files, so it never overwrites a registry.
import { cpSync, existsSync, readdirSync } from "node:fs";
import { join } from "node:path";

export const TEMPLATE_DIR = join(import.meta.dirname, "template");

export function initRegistry(dir: string): { files: string[] } {
  if (existsSync(dir) && readdirSync(dir).length > 0) throw new Error(`${dir} is not empty: registry:init starts a registry in a new or empty directory`);
  cpSync(TEMPLATE_DIR, dir, { recursive: true });
  const files = readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .sort();
  return { files };
}
