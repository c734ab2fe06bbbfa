// File roots: the directories an operator lets file and git tools touch (TOOLBELT_FILE_ROOTS).
// A path is resolved against the tool's working directory, made real (symlinks and `..` resolved
// for the part that exists, dangling symlinks followed to their targets), and must then lie inside
// a root and outside the gateway's own files (deny); /proc, /sys and /dev never do. The command
// gets the real path, so a symlink swapped in after the check only matters below it.
import { lstat, readlink, realpath } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import { ToolbeltError } from "../core/errors.js";

/** Pseudo file systems that expose the gateway's own process (environment, memory) and devices. */
const NEVER_INSIDE = ["/proc", "/sys", "/dev"];

/** Dangling symlinks followed before giving up (Linux's own limit for one path). */
export const MAX_SYMLINK_HOPS = 40;

const under = (path: string, dir: string) => path === dir || path.startsWith(dir === "/" ? "/" : `${dir}/`);

/** The real path of the longest existing prefix of an absolute path, and the components after it. */
async function existingPrefix(path: string): Promise<{ real: string; rest: string[] }> {
  const rest: string[] = [];
  let at = path;
  for (;;) {
    try {
      return { real: await realpath(at), rest: rest.reverse() };
    } catch {
      const up = dirname(at);
      if (up === at) return { real: at, rest: rest.reverse() };
      rest.push(basename(at));
      at = up;
    }
  }
}

/**
 * The real path of `path`, or of its longest existing prefix with the rest appended (a path to be
 * created). A dangling symlink is not a path to be created: a command creating it would create its
 * target, so the target is resolved in its place. Throws past MAX_SYMLINK_HOPS: the kernel may
 * follow further than we looked, so a longer chain cannot be called inside anything.
 */
export async function realPathOf(path: string): Promise<string> {
  let at = resolve(path);
  for (let hops = 0; ; hops++) {
    const { real, rest } = await existingPrefix(at);
    const [first, ...after] = rest;
    if (first === undefined) return real;
    const target = await readlink(join(real, first)).catch(() => undefined);
    if (target === undefined) return join(real, ...rest);
    if (hops >= MAX_SYMLINK_HOPS) throw new Error(`${path} goes through more than ${MAX_SYMLINK_HOPS} symbolic links`);
    at = resolve(real, target, ...after);
  }
}

export type FileRoots = {
  /** The configured roots, as the operator wrote them (named in refusals). */
  readonly list: readonly string[];
  /** The real path of `path` (relative to `base`) when it lies inside a root; otherwise a 403 PATH_OUTSIDE_ROOTS. */
  confine(path: string, base: string, what: { tool: string; input: string }): Promise<string>;
};

/** A path made real, or as written when it cannot be (a symlink chain too long): for roots and denied paths, never for a checked path. */
const realOrAsWritten = (path: string) => realPathOf(path).catch(() => resolve(path));

export type FileRootsOptions = {
  /** The gateway's own files (data, artifact, policy, key file): refused even inside a root, compared by real path. */
  deny?: readonly string[];
};

export function createFileRoots(roots: readonly string[], options: FileRootsOptions = {}): FileRoots {
  const deny = options.deny ?? [];
  return {
    list: roots,
    async confine(path, base, what) {
      const refuse = (why: string) =>
        new ToolbeltError(
          "PATH_OUTSIDE_ROOTS",
          roots.length === 0
            ? `${what.tool}: no file roots are configured, so file and git tools are off; the operator sets TOOLBELT_FILE_ROOTS (or the construct's fileRoots)`
            : `${what.tool}: ${what.input} ${JSON.stringify(path)} ${why}; use a path inside ${roots.join(", ")}`,
          { tool: what.tool, input: what.input, roots: [...roots] },
        );
      if (roots.length === 0) throw refuse("");
      const real = await realPathOf(isAbsolute(path) ? path : resolve(base, path)).catch(() => {
        throw refuse(`goes through more than ${MAX_SYMLINK_HOPS} symbolic links`);
      });
      if (NEVER_INSIDE.some((d) => under(real, d))) throw refuse("is in /proc, /sys or /dev, which no root includes");
      // Roots and denied paths are made real at each check: one that is (or sits under) a symlink still matches.
      const realRoots = await Promise.all(roots.map(realOrAsWritten));
      if (!realRoots.some((r) => under(real, r))) throw refuse("is outside the file roots");
      // Checked after the roots, so a caller learns where the gateway keeps its files only inside a root.
      const realDeny = await Promise.all(deny.map(realOrAsWritten));
      if (realDeny.some((d) => under(real, d))) throw refuse("is a gateway-internal path (its data, artifact or policy), which no tool may touch");
      return real;
    },
  };
}

/** The input with every declared path property replaced by its confined real path (arrays item by item). */
export async function confinePaths(
  tool: string,
  input: Record<string, unknown>,
  paths: readonly string[] | undefined,
  roots: FileRoots,
  base: string,
): Promise<Record<string, unknown>> {
  if (!paths || paths.length === 0) return input;
  const out: Record<string, unknown> = { ...input };
  for (const name of paths) {
    const v = input[name];
    if (typeof v === "string") out[name] = await roots.confine(v, base, { tool, input: name });
    else if (Array.isArray(v))
      out[name] = await Promise.all(v.map((item) => (typeof item === "string" ? roots.confine(item, base, { tool, input: name }) : item)));
  }
  return out;
}

/**
 * After a command failed: the first declared path input (as confined) that does not exist, as a 404
 * naming it. A missing file is the caller's question, not the command's failure (`head` or `git -C`
 * on a path that is not there), so it must not answer 502 and count as a fault.
 */
export async function missingPathError(
  tool: string,
  input: Record<string, unknown>,
  paths: readonly string[] | undefined,
  details: Record<string, unknown>,
): Promise<ToolbeltError | undefined> {
  for (const name of paths ?? []) {
    for (const v of ([] as unknown[]).concat(input[name])) {
      if (
        typeof v !== "string" ||
        (await lstat(v).then(
          () => true,
          () => false,
        ))
      )
        continue;
      return new ToolbeltError("UPSTREAM_NOT_FOUND", `${tool}: ${name} ${JSON.stringify(v)} does not exist; check the path`, {
        tool,
        input: name,
        ...details,
      });
    }
  }
  return undefined;
}
