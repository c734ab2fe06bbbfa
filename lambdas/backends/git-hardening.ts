// Git that runs nothing from the repository. A repository on disk is untrusted: its config
// (`.git/config`, its includes, a submodule's config) can name programs git runs on its own
// (fsmonitor, external diff, textconv, filters, signature checkers, hooks, lazy fetches) and files
// it reads. Config cannot be switched off wholesale, so every git invocation gets overrides that
// win over the repository's (command-line scope is read last), an environment without system or
// global config, and, for drivers whose names only the repository knows, an override per name
// found by a pre-flight `git config --list` of that very repository.
import { execFile } from "node:child_process";
import type { Dirent } from "node:fs";
import { lstat, readdir, readFile } from "node:fs/promises";
import { basename, isAbsolute, join, resolve } from "node:path";
import { clipEchoed, type ErrorCode, ToolbeltError } from "../core/errors.js";

/**
 * Fixed overrides, passed as `-c` (command-line scope wins over the repository's config). An empty
 * value makes git fail with "cannot run" instead of running the repository's program; the flags
 * added per subcommand (GIT_SUBCOMMAND_FLAGS) keep the common commands from needing it at all.
 */
export const GIT_CONFIG_OVERRIDES: readonly (readonly [string, string])[] = [
  ["core.fsmonitor", "false"], // a command run by status, diff and every index refresh
  ["core.hooksPath", "/dev/null"], // hooks (post-index-change runs from status) live nowhere
  ["diff.external", ""],
  ["log.showSignature", "false"], // signature checks run gpg.program
  ["gpg.program", ""],
  ["gpg.openpgp.program", ""],
  ["gpg.x509.program", ""],
  ["gpg.ssh.program", ""],
  ["gpg.ssh.defaultKeyCommand", ""],
  ["core.pager", "cat"],
  ["core.editor", "false"],
  ["sequence.editor", "false"],
  ["core.askPass", ""],
  ["core.sshCommand", "false"],
  ["core.gitProxy", ""],
  ["credential.helper", ""], // an empty value resets the list
  ["core.alternateRefsCommand", ""],
  ["protocol.allow", "never"], // GIT_ALLOW_PROTOCOL below also beats protocol.<name>.allow
  ["safe.bareRepository", "explicit"], // a bare repository committed inside a tree is not entered
  ["submodule.recurse", "false"],
  ["diff.ignoreSubmodules", "all"], // status and diff do not run git inside submodules
  ["status.submoduleSummary", "false"],
  ["mailmap.file", ""],
  ["gc.auto", "0"],
  ["maintenance.auto", "false"],
];

/**
 * The environment every git child gets on top of its own. GIT_ALLOW_PROTOCOL set and empty allows
 * no transport at all (a partial clone's lazy fetch would otherwise run `ext::` commands), whatever
 * the repository says; GIT_OPTIONAL_LOCKS=0 keeps read commands from writing the index.
 */
export const GIT_ENV: Readonly<Record<string, string>> = {
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_TERMINAL_PROMPT: "0",
  GIT_ASKPASS: "",
  SSH_ASKPASS: "",
  GIT_ALLOW_PROTOCOL: "",
  GIT_OPTIONAL_LOCKS: "0",
  GIT_PAGER: "cat",
  GIT_EDITOR: "false",
  GIT_SEQUENCE_EDITOR: "false",
};

/** Variables of the gateway's or a family's environment that would name a program or another repository. */
const GIT_ENV_REMOVED = [
  "GIT_EXTERNAL_DIFF",
  "GIT_SSH",
  "GIT_SSH_COMMAND",
  "GIT_PROXY_COMMAND",
  "GIT_EXEC_PATH",
  "GIT_DIR",
  "GIT_WORK_TREE",
  "GIT_COMMON_DIR",
  "GIT_INDEX_FILE",
  "GIT_OBJECT_DIRECTORY",
  "GIT_ALTERNATE_OBJECT_DIRECTORIES",
  "GIT_CONFIG",
  "GIT_CONFIG_SYSTEM",
  "GIT_CONFIG_PARAMETERS",
  "GIT_CONFIG_COUNT",
];

/** Flags added right after the subcommand: they switch off external diff drivers and textconv without a race. */
const GIT_SUBCOMMAND_FLAGS: Readonly<Record<string, readonly string[]>> = {
  diff: ["--no-ext-diff", "--no-textconv"],
  log: ["--no-ext-diff", "--no-textconv"],
  show: ["--no-ext-diff", "--no-textconv"],
  whatchanged: ["--no-ext-diff", "--no-textconv"],
  "format-patch": ["--no-ext-diff", "--no-textconv"],
  "diff-tree": ["--no-ext-diff", "--no-textconv"],
  "diff-index": ["--no-ext-diff", "--no-textconv"],
  "diff-files": ["--no-ext-diff", "--no-textconv"],
  blame: ["--no-textconv"],
  annotate: ["--no-textconv"],
  grep: ["--no-textconv"],
};

/**
 * Config keys with a name only the repository knows (`filter.<driver>.clean`, ...): each one found
 * is overridden. Keys arrive lower-cased except the subsection, which is how git reads them back.
 */
const DRIVER_KEY =
  /^(?:diff\.(.+)\.(?:textconv|command)|filter\.(.+)\.(?:clean|smudge|process)|merge\.(.+)\.driver|credential\.(.+)\.helper|(?:difftool|mergetool|man|browser|guitool)\.(.+)\.cmd|trailer\.(.+)\.(?:cmd|command)|alias\.(.+))$/s;

/**
 * git's failures a caller can cause, each answered with a fixed message: git's own words can quote a
 * file it read (every line of a hostile `objects/info/alternates`, the first of `shallow` or
 * `packed-refs`), so they go to the log only. A name that does not exist (revision, path, repository)
 * is 404; a repository git refuses as given (bare, another user's) or an ambiguous argument is 422.
 * "bad object" is not here: a partial clone's missing blob says it too, and that is the repository's fault (502).
 */
const GIT_FAILURES: readonly { re: RegExp; code: ErrorCode; message: string }[] = [
  {
    re: /^fatal: (?:not a git repository|cannot change to)/m,
    code: "UPSTREAM_NOT_FOUND",
    message: "the repository path is not inside a git working tree; check the path",
  },
  {
    re: /^fatal: cannot use bare repository/m,
    code: "INVALID_ARGUMENTS",
    message: "git tools read working trees, not bare repositories: point the repository path at a working tree",
  },
  {
    re: /^fatal: detected dubious ownership/m,
    code: "INVALID_ARGUMENTS",
    message: "the repository belongs to another user, so git refuses to read it (dubious ownership); use a repository owned by the gateway's user",
  },
  {
    re: /^fatal: ambiguous argument '.*': both revision and filename/m,
    code: "INVALID_ARGUMENTS",
    message: "an argument names both a revision and a file; name a revision that is not also a file",
  },
  {
    re: /^fatal: (?:path '.*' (?:does not exist in|exists on disk, but not in)|no such path|pathspec '.*' did not match)/m,
    code: "UPSTREAM_NOT_FOUND",
    message: "that path is not in the repository at the revision asked for; check the path (relative to the repository root) and the revision",
  },
  {
    re: /^fatal: (?:bad revision|ambiguous argument '.*': unknown revision|Not a valid object name|invalid object name|your current branch '.*' does not have any commits yet)/m,
    code: "UPSTREAM_NOT_FOUND",
    message: "git knows no such revision or object in this repository; check the revision (branch, tag or commit)",
  },
];

/** The recognised failure in a git child's stderr, if any (git says "fatal" with exit status 128). */
function recognised(exitCode: number | null, stderr: string): (typeof GIT_FAILURES)[number] | undefined {
  return exitCode === 128 ? GIT_FAILURES.find((f) => f.re.test(stderr)) : undefined;
}

export const gitFoundNothing = (exitCode: number, stderr: string): boolean => recognised(exitCode, stderr)?.code === "UPSTREAM_NOT_FOUND";

/**
 * What the caller hears of a failed git child: a fixed message per recognised failure, else a generic
 * 502. The (redacted) stderr rides as the cause, which the error log prints and no response carries.
 */
export function gitFailure(tool: string, exitCode: number | null, signal: string | null, stderr: string): ToolbeltError {
  const cause = new Error(`git's stderr: ${stderr.trim() || "(none)"}`);
  const known = recognised(exitCode, stderr);
  if (known) return new ToolbeltError(known.code, `${tool}: ${known.message}`, { tool, exit_code: exitCode }, { cause });
  const how = exitCode === null ? `was killed by ${signal ?? "a signal"}` : `failed with exit status ${exitCode}`;
  return new ToolbeltError(
    "UPSTREAM_ERROR",
    `${tool}: git ${how}; its message is in the gateway's log (it can quote repository files, so it is not shown)`,
    { tool, exit_code: exitCode, ...(signal ? { signal } : {}) },
    { cause },
  );
}

/** The repository facts the backend checks against the file roots. */
export type GitRepository = { workTree: string; gitDir: string; commonDir: string };

/** A git command is hardened by its program name, whatever family or tool declares it: no author can forget. */
export function isGit(command: string): boolean {
  const name = basename(command);
  return name === "git" || name === "git.exe";
}

const GLOBAL_WITH_VALUE = new Set(["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--super-prefix", "--exec-path"]);

/** Where the global options (`-C dir`, `-c k=v`, ...) end and the subcommand is. */
export function subcommandIndex(argv: readonly string[]): number {
  let i = 0;
  while (i < argv.length) {
    const a = argv[i]!;
    if (!a.startsWith("-")) return i;
    // `--exec-path` alone prints the path; only the options listed take the next argument.
    i += GLOBAL_WITH_VALUE.has(a) && a !== "--exec-path" ? 2 : 1;
  }
  return -1;
}

/** The author's arguments with the fixed overrides in front and the subcommand's safety flags after it. */
export function hardenArgs(argv: readonly string[]): string[] {
  const overrides = GIT_CONFIG_OVERRIDES.flatMap(([k, v]) => ["-c", `${k}=${v}`]);
  const at = subcommandIndex(argv);
  if (at < 0) return ["--no-pager", ...overrides, ...argv];
  const flags = GIT_SUBCOMMAND_FLAGS[argv[at]!] ?? [];
  return ["--no-pager", ...overrides, ...argv.slice(0, at + 1), ...flags, ...argv.slice(at + 1)];
}

/** The environment of a git child: the declared one without program-naming variables, plus GIT_ENV. */
export function hardenEnv(env: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = { ...env };
  for (const k of GIT_ENV_REMOVED) delete out[k];
  for (const k of Object.keys(out)) if (/^GIT_CONFIG_(KEY|VALUE)_\d+$/.test(k)) delete out[k];
  return { ...out, ...GIT_ENV };
}

/**
 * Overrides for the driver keys in a `git config --list -z` listing: programs become empty (git
 * then runs nothing and, where it needs the program, fails with "cannot run"), filters become
 * optional so an emptied required filter does not fail a read.
 */
export function driverOverrides(listing: string): [string, string][] {
  const out = new Map<string, string>();
  for (const entry of listing.split("\0")) {
    const nl = entry.indexOf("\n");
    const key = nl < 0 ? entry : entry.slice(0, nl);
    if (!DRIVER_KEY.test(key)) continue;
    out.set(key, "");
    const filter = /^filter\.(.+)\.[a-z]+$/s.exec(key);
    if (filter) out.set(`filter.${filter[1]}.required`, "false");
  }
  return [...out];
}

/** Keys whose value is a file git reads and may echo (blame prints the first line it cannot parse). */
export function filesNamedByConfig(listing: string): { key: string; path: string }[] {
  const out: { key: string; path: string }[] = [];
  for (const entry of listing.split("\0")) {
    const nl = entry.indexOf("\n");
    if (nl < 0) continue;
    const key = entry.slice(0, nl);
    const value = entry.slice(nl + 1);
    if (key === "blame.ignorerevsfile" && value !== "") out.push({ key, path: value });
  }
  return out;
}

/** The overrides as GIT_CONFIG_COUNT variables: a subsection may hold `=`, which `-c` cannot carry. */
export function configEnv(pairs: readonly (readonly [string, string])[]): Record<string, string> {
  const env: Record<string, string> = {};
  if (pairs.length === 0) return env;
  env.GIT_CONFIG_COUNT = String(pairs.length);
  pairs.forEach(([k, v], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = k;
    env[`GIT_CONFIG_VALUE_${i}`] = v;
  });
  return env;
}

/**
 * Pre-flight output must be UTF-8: an override can only be passed as a string, so a driver name in
 * other bytes could not be overridden (a lossy decoding would override a different name).
 */
const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/** A pre-flight git run: small output, the call's signal, no shell. */
function gitOutput(
  argv: string[],
  opts: { env: Record<string, string>; cwd?: string; signal: AbortSignal; command: string },
): Promise<{ ok: boolean; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(
      opts.command,
      argv,
      {
        env: opts.env,
        ...(opts.cwd !== undefined ? { cwd: opts.cwd } : {}),
        signal: opts.signal,
        maxBuffer: 1024 * 1024,
        encoding: "buffer",
        windowsHide: true,
      },
      (err, stdout, stderr) => {
        if (err && (err as NodeJS.ErrnoException).code === "ABORT_ERR") return reject(opts.signal.reason);
        if (err && typeof (err as { code?: unknown }).code !== "number") {
          return reject(
            new ToolbeltError("UPSTREAM_ERROR", `could not run ${opts.command} (${(err as NodeJS.ErrnoException).code ?? err.message}); tell the operator`, {
              command: opts.command,
            }),
          );
        }
        let text: string;
        try {
          text = strictUtf8.decode(stdout);
        } catch {
          return reject(
            new ToolbeltError(
              "INVALID_ARGUMENTS",
              "the repository's config or paths are not UTF-8, so the gateway cannot neutralise them: it runs no git there",
              {
                command: opts.command,
              },
            ),
          );
        }
        resolve({ ok: !err, stdout: text, stderr: stderr.toString("utf8") });
      },
    );
  });
}

export type PreparedGit = {
  argv: string[];
  env: Record<string, string>;
  /** The repository the command will read; absent when the directory is not in one (git then fails by itself). */
  repository?: GitRepository;
  /** Files the repository's config makes git read. */
  configFiles: { key: string; path: string }[];
};

/**
 * Everything a git child needs to run nothing from the repository: the hardened arguments and
 * environment, the repository's driver names overridden, and the repository pinned (GIT_DIR,
 * GIT_WORK_TREE) to what the pre-flight found, so that `core.worktree` or a `.git` file changed
 * afterwards cannot point the command elsewhere.
 */
export async function prepareGit(opts: {
  command: string;
  argv: readonly string[];
  env: Readonly<Record<string, string>>;
  cwd?: string;
  signal: AbortSignal;
  /** Refuses (throws) a repository outside the file roots and returns its real directories, which the command is pinned to. */
  confine: (repo: GitRepository) => Promise<GitRepository>;
}): Promise<PreparedGit> {
  const env = hardenEnv(opts.env);
  const at = subcommandIndex(opts.argv);
  const globals = at < 0 ? [...opts.argv] : opts.argv.slice(0, at);
  const base = ["--no-pager", ...GIT_CONFIG_OVERRIDES.flatMap(([k, v]) => ["-c", `${k}=${v}`]), ...globals];
  const run = { env, signal: opts.signal, command: opts.command, ...(opts.cwd !== undefined ? { cwd: opts.cwd } : {}) };
  const [where, config] = await Promise.all([
    gitOutput([...base, "rev-parse", "--path-format=absolute", "--git-dir", "--git-common-dir", "--show-toplevel"], run),
    gitOutput([...base, "config", "--list", "-z"], run),
  ]);
  const lines = where.stdout.split("\n").filter((l) => l !== "");
  const argv = hardenArgs(opts.argv);
  const drivers = driverOverrides(config.stdout);
  const configFiles = filesNamedByConfig(config.stdout);
  if (!where.ok && lines.length === 0) return { argv, env: { ...env, ...configEnv(drivers) }, configFiles };
  if (!where.ok || lines.length !== 3) {
    throw new ToolbeltError(
      "INVALID_ARGUMENTS",
      "git tools read working trees: point the repository path at a working tree, not a bare repository or a .git folder",
      {},
      // git's words can quote a file it read (a hostile `commondir`): the log only.
      { cause: new Error(`git rev-parse's stderr: ${where.stderr.trim()}`) },
    );
  }
  const [gitDir, commonDir, workTree] = lines as [string, string, string];
  const repository = await opts.confine({ gitDir, commonDir, workTree });
  return {
    argv,
    env: { ...env, ...configEnv(drivers), GIT_DIR: repository.gitDir, GIT_WORK_TREE: repository.workTree },
    repository,
    configFiles,
  };
}

/** Files at the top of a git directory that git opens on its own (and may quote when they do not parse). */
const INTERNAL_FILES = new Set(["HEAD", "index", "config", "commondir", "gitdir", "shallow", "packed-refs"]);
/** Folders of a git directory read on its own: objects (and alternates), refs, reflogs, info/grafts. */
const INTERNAL_TREES = new Set(["objects", "refs", "logs", "reftable", "info"]);
/** FETCH_HEAD, ORIG_HEAD, ...: top-level files that a revision name reads. */
const PSEUDO_REF = /^[A-Z][A-Z0-9_]*$/;
/** git follows alternates of alternates this deep, no deeper. */
const MAX_ALTERNATE_DEPTH = 5;
/** An alternates file longer than this is no real one: refused rather than read whole. */
const MAX_ALTERNATES_BYTES = 64 * 1024;

type InternalsCheck = {
  tool: string;
  roots: readonly string[];
  /** Whether a path (made real) lies inside the file roots. */
  inRoots: (path: string) => Promise<boolean>;
};

const entries = (dir: string): Promise<Dirent[]> =>
  readdir(dir, { withFileTypes: true }).catch((e: NodeJS.ErrnoException) => {
    if (e.code === "ENOENT" || e.code === "ENOTDIR") return [];
    throw e;
  });

/**
 * Refuses (403) a repository whose git internals lead out of it: git opens `objects`, alternates,
 * `shallow`, `packed-refs`, grafts, refs and HEAD by itself, following symlinks and alternate paths,
 * so a planted `.git` could show another repository's history or quote any file in git's errors.
 * The refusal names the entry and why, never what the entry holds.
 */
export async function refuseEscapingInternals(repo: GitRepository, check: InternalsCheck): Promise<void> {
  const refuse = (where: string, entry: string, why: string, reason: string) =>
    new ToolbeltError(
      "PATH_OUTSIDE_ROOTS",
      `${check.tool}: the repository's ${where} entry ${JSON.stringify(clipEchoed(entry))} ${why}; the gateway runs no git on a repository whose internals lead outside it (use a repository inside ${check.roots.join(", ")} without such links)`,
      { tool: check.tool, input: "repository", entry: clipEchoed(entry), reason, roots: [...check.roots] },
    );
  const symlink = (where: string, entry: string) => refuse(where, entry, "is a symbolic link, which git would follow", "symlink");

  /** Every entry below `dir`: none may be a symlink. */
  const walk = async (dir: string, rel: string, where: string) => {
    const stack = [rel];
    while (stack.length) {
      const at = stack.pop()!;
      for (const d of await entries(join(dir, at))) {
        const name = `${at}/${d.name}`;
        if (d.isSymbolicLink()) throw symlink(where, name);
        if (d.isDirectory()) stack.push(name);
      }
    }
  };

  /** An object directory's alternates: each must lie in the roots, and so must theirs (as deep as git goes). */
  const alternates = async (objects: string, label: string, where: string, depth: number) => {
    const file = join(objects, "info", "alternates");
    const text = await lstat(file).then(
      async (s) => {
        if (s.isSymbolicLink()) throw symlink(where, label);
        if (s.size > MAX_ALTERNATES_BYTES) throw refuse(where, label, `is larger than ${MAX_ALTERNATES_BYTES} bytes`, "too_large");
        return readFile(file, "utf8");
      },
      (e: NodeJS.ErrnoException) => {
        if (e.code === "ENOENT" || e.code === "ENOTDIR") return "";
        throw e;
      },
    );
    const lines = text.split("\n");
    for (const [i, raw] of lines.entries()) {
      const line = raw.replace(/\r$/, "");
      if (line === "" || line.startsWith("#")) continue;
      const entry = `${label} line ${i + 1}`;
      // git unquotes a line starting with `"`; the gateway does not parse that form, so it does not guess.
      if (line.startsWith('"')) throw refuse(where, entry, "is quoted, a form the gateway does not read", "quoted");
      if (depth >= MAX_ALTERNATE_DEPTH) throw refuse(where, entry, `nests alternates deeper than ${MAX_ALTERNATE_DEPTH}`, "too_deep");
      const dir = isAbsolute(line) ? line : resolve(objects, line);
      const link = await lstat(dir).then(
        (s) => s.isSymbolicLink(),
        () => false,
      );
      if (link) throw refuse(where, entry, "names a symbolic link, which git would follow", "symlink");
      if (!(await check.inRoots(dir))) throw refuse(where, entry, "names an object directory outside the file roots", "outside_roots");
      await walk(dir, ".", `${where} alternate (${entry})`);
      await alternates(dir, `${entry} → info/alternates`, where, depth + 1);
    }
  };

  const dirs: [string, string][] = [["git directory", repo.gitDir]];
  if (repo.commonDir !== repo.gitDir) dirs.push(["common git directory", repo.commonDir]);
  for (const [where, dir] of dirs) {
    for (const d of await entries(dir)) {
      const watched = INTERNAL_FILES.has(d.name) || INTERNAL_TREES.has(d.name) || PSEUDO_REF.test(d.name);
      if (!watched) continue;
      if (d.isSymbolicLink()) throw symlink(where, d.name);
      if (INTERNAL_TREES.has(d.name) && d.isDirectory()) await walk(dir, d.name, where);
    }
    await alternates(join(dir, "objects"), "objects/info/alternates", where, 0);
  }
}
