// Git that runs nothing from the repository. A repository on disk is untrusted: its config
// (`.git/config`, its includes, a submodule's config) can name programs git runs on its own
// (fsmonitor, external diff, textconv, filters, signature checkers, hooks, lazy fetches) and files
// it reads. Config cannot be switched off wholesale, so every git invocation gets overrides that
// win over the repository's (command-line scope is read last), an environment without system or
// global config, and, for drivers whose names only the repository knows, an override per name
// found by a pre-flight `git config --list` of that very repository.
import { execFile } from "node:child_process";
import { basename } from "node:path";
import { ToolbeltError } from "../core/errors.js";

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
 * git's words (exit status 128) for a revision, object or path the caller named that does not exist (a
 * `repo` that is a file, or a folder in no repository, included):
 * the caller's question, answered 404, not a failure of the command (502). Other fatal errors stay 502,
 * "bad object" among them: a partial clone's missing blob says it too, and that is the repository's fault.
 */
const NOT_FOUND_RE =
  /^fatal: (?:bad revision|ambiguous argument '.*': unknown revision|Not a valid object name|invalid object name|path '.*' does not exist in|no such path|cannot change to|not a git repository)/m;

export const gitFoundNothing = (exitCode: number, stderr: string): boolean => exitCode === 128 && NOT_FOUND_RE.test(stderr);

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
      {
        reason: where.stderr.trim().slice(0, 300),
      },
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
