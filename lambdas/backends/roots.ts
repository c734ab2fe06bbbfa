// File roots: the directories an operator lets file and git tools touch (TOOLBELT_FILE_ROOTS).
// A path is resolved against the tool's working directory, made real (symlinks and `..` resolved
// for the part that exists), and must then lie inside a root; /proc, /sys and /dev never do. The
// command gets the real path, so a symlink swapped in after the check only matters below it.
import { lstat, realpath } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import { ToolbeltError } from "../core/errors.js";

/** Pseudo file systems that expose the gateway's own process (environment, memory) and devices. */
const NEVER_INSIDE = ["/proc", "/sys", "/dev"];

const under = (path: string, dir: string) => path === dir || path.startsWith(dir === "/" ? "/" : `${dir}/`);

/** The real path of `path`, or of its longest existing prefix with the rest appended (a path to be created). */
export async function realPathOf(path: string): Promise<string> {
  const rest: string[] = [];
  let at = resolve(path);
  for (;;) {
    try {
      return join(await realpath(at), ...rest.reverse());
    } catch {
      const up = dirname(at);
      if (up === at) return join(at, ...rest.reverse());
      rest.push(basename(at));
      at = up;
    }
  }
}

export type FileRoots = {
  /** The configured roots, as the operator wrote them (named in refusals). */
  readonly list: readonly string[];
  /** The real path of `path` (relative to `base`) when it lies inside a root; otherwise a 403 PATH_OUTSIDE_ROOTS. */
  confine(path: string, base: string, what: { tool: string; input: string }): Promise<string>;
};

export function createFileRoots(roots: readonly string[]): FileRoots {
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
      const real = await realPathOf(isAbsolute(path) ? path : resolve(base, path));
      if (NEVER_INSIDE.some((d) => under(real, d))) throw refuse("is in /proc, /sys or /dev, which no root includes");
      // Roots are made real at each check: a root that is (or sits under) a symlink still matches.
      const realRoots = await Promise.all(roots.map(realPathOf));
      if (!realRoots.some((r) => under(real, r))) throw refuse("is outside the file roots");
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
