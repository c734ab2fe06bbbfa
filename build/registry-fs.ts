// Where the loader reads from: the disk for the CLI and the server, a map in memory for property tests.
import { readFile, readdir } from "node:fs/promises";
import { join } from "node:path";

export type RegistryFs = {
  /** Text of a file given relative to the registry root; rejects when it cannot be read. */
  readText(rel: string): Promise<string>;
  /** Names of the regular files directly inside a folder (not recursive); rejects when it is no folder. */
  listFiles(rel: string): Promise<string[]>;
};

export function diskFs(root: string): RegistryFs {
  return {
    readText: (rel) => readFile(join(root, rel), "utf8"),
    listFiles: async (rel) => (await readdir(join(root, rel), { withFileTypes: true })).filter((e) => e.isFile()).map((e) => e.name),
  };
}

/** An in-memory registry: keys are `/`-separated paths relative to the root. */
export function memoryFs(files: Record<string, string>): RegistryFs {
  const norm = (p: string) => p.replace(/^\.\/+/, "").replace(/\/+$/, "");
  return {
    readText: async (rel) => {
      const text = files[norm(rel)];
      if (text === undefined) throw Object.assign(new Error(`ENOENT: no such file '${rel}'`), { code: "ENOENT" });
      return text;
    },
    listFiles: async (rel) => {
      const prefix = norm(rel) + "/";
      const names = Object.keys(files)
        .filter((k) => k.startsWith(prefix) && !k.slice(prefix.length).includes("/"))
        .map((k) => k.slice(prefix.length));
      if (names.length === 0 && !Object.keys(files).some((k) => k.startsWith(prefix))) {
        throw Object.assign(new Error(`ENOENT: no such folder '${rel}'`), { code: "ENOENT" });
      }
      return names;
    },
  };
}

/** A source path named by the registry must stay inside it: relative, no `..`, no backslashes. */
export function isSafeRelativePath(p: string): boolean {
  if (!p || p.startsWith("/") || /^[A-Za-z]:/.test(p) || p.includes("\\") || p.includes("\0")) return false;
  return !p.split("/").some((seg) => seg === "..");
}
