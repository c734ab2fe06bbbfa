// A lockfile for a copy of examples/cdk-app, derived from this clone's package-lock.json, so that the
// README's `npm install` runs offline: with every package's version, tarball URL and integrity locked,
// npm reads the tarballs from its cache by digest and asks the registry for no metadata.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";

type Entry = {
  version?: string;
  integrity?: string;
  inBundle?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  [key: string]: unknown;
};
type Lockfile = { packages: Record<string, Entry> };
type Manifest = {
  name: string;
  version: string;
  license?: string;
  engines?: unknown;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
};

const readJson = <T>(file: string) => JSON.parse(readFileSync(file, "utf8")) as T;

/**
 * Writes `app/package-lock.json` for the app's dependencies, `file:` tarball `tarball` (the packed
 * construct, whose dependencies are the clone's) among them. Every other package is the clone's own
 * install, at the same path: the versions the clone tests, resolved as Node resolves them there.
 */
export function writeExampleLockfile(app: string, tarball: string, clone: string): void {
  const { packages } = readJson<Lockfile>(join(clone, "package-lock.json"));
  const construct = readJson<Manifest>(join(clone, "package.json"));
  const own = readJson<Manifest>(join(app, "package.json"));
  // Where Node finds `name` from the package at `from`: its own node_modules, then each parent's.
  const locate = (from: string, name: string): string | undefined => {
    for (let base = from; ; base = base.slice(0, Math.max(0, base.lastIndexOf("/node_modules/")))) {
      const key = `${base ? `${base}/` : ""}node_modules/${name}`;
      if (packages[key]) return key;
      if (!base) return undefined;
    }
  };
  const kept = new Set<string>();
  const keep = (key: string | undefined, wanted: string) => {
    if (!key) throw new Error(`${wanted} is not in ${clone}/package-lock.json: the example app needs what the clone installs`);
    if (kept.has(key)) return;
    kept.add(key);
    const entry = packages[key]!;
    const optional = { ...entry.optionalDependencies, ...Object.fromEntries(Object.entries(entry.peerDependenciesMeta ?? {}).filter(([, m]) => m.optional)) };
    for (const name of Object.keys({ ...entry.dependencies, ...entry.optionalDependencies, ...entry.peerDependencies })) {
      const found = locate(key, name);
      if (found || !(name in optional)) keep(found, `${name} (for ${key})`);
    }
  };
  const roots = { ...construct.dependencies, ...own.dependencies, ...own.devDependencies };
  for (const name of Object.keys(roots).filter((n) => n !== construct.name)) keep(locate("", name), name);

  // The registry this npm is configured with: the lockfile names each tarball there, as npm would.
  const registry = execFileSync("npm", ["config", "get", "registry"], { cwd: app, encoding: "utf8" }).trim().replace(/\/?$/, "/");
  const locked: Record<string, Entry> = {
    "": { name: own.name, version: own.version, dependencies: own.dependencies, devDependencies: own.devDependencies },
    [`node_modules/${construct.name}`]: {
      version: construct.version,
      resolved: `file:${relative(app, tarball)}`,
      integrity: `sha512-${createHash("sha512").update(readFileSync(tarball)).digest("base64")}`,
      license: construct.license,
      dependencies: construct.dependencies,
      engines: construct.engines,
    },
  };
  for (const key of [...kept].sort()) {
    // The clone's dev flags say nothing about the app: npm works them out again.
    const { dev: _dev, devOptional: _devOptional, peer: _peer, ...entry } = packages[key]!;
    const name = key.slice(key.lastIndexOf("node_modules/") + "node_modules/".length);
    locked[key] = entry.inBundle ? entry : { resolved: `${registry}${name}/-/${name.split("/").pop()}-${entry.version}.tgz`, ...entry };
  }
  writeFileSync(
    join(app, "package-lock.json"),
    `${JSON.stringify({ name: own.name, version: own.version, lockfileVersion: 3, requires: true, packages: locked }, null, 2)}\n`,
  );
}
