// The exec backend: run a command without a shell, arguments templated from the input only,
// in its own process group so a timeout kills the whole tree.
import { spawn } from "node:child_process";
import type { CatalogTool } from "../../registry/contract/artifact.js";
import type { BackendContext, BackendOutput, ToolBackend } from "../core/call/types.js";
import { clipEchoed, ToolbeltError } from "../core/errors.js";
import { gitFailure, isGit, prepareGit, refuseEscapingInternals, type GitRepository } from "./git-hardening.js";
import { confinePaths, createFileRoots, missingPathError, type FileRoots } from "./roots.js";
import { lookup, renderInputOnly, renderString, Secrets, soleInputPath, stringify, type EnvMap, type RenderContext } from "./templates.js";
import { execBaseEnv, type FamilyViews } from "./variables.js";

export type ExecBackendOptions = {
  /** The gateway's environment: children get only its PATH, LANG, LC_* and TZ (variables.ts), never the rest. */
  env: EnvMap;
  /** What `${VAR}` in a tool's env and cwd reads: its family's declared variables. */
  views: FamilyViews;
  /** stdout beyond this is refused and the process killed. */
  maxOutputBytes?: number;
  /** Directories that declared `paths` inputs and git repositories must lie in (TOOLBELT_FILE_ROOTS); none: such tools answer 403. */
  roots?: readonly string[];
  /** The gateway's own files (data, artifact, policy, key): refused even inside a root. */
  deniedPaths?: readonly string[];
};

export const DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024;
/** Only the tail of stderr is kept: that is where the reason usually is. */
const STDERR_TAIL = 4096;

/**
 * The redacted tail of stderr. A secret cut by the kept tail's start cannot be matched by redaction,
 * so when the tail was cut its first `longest - 1` characters (where such a piece can only be) are dropped.
 */
function redactedTail(secrets: Secrets, raw: string, cut: boolean, longest: number): string {
  const text = secrets.redact(raw);
  return (cut ? text.slice(Math.max(0, longest - 1)) : text).slice(-STDERR_TAIL);
}

/**
 * Each template is one argument, except a template that is exactly `{{input.x}}`: an absent value
 * drops the argument and an array value expands to one argument per item.
 */
export function renderArgs(templates: readonly string[], input: Record<string, unknown>): string[] {
  const argv: string[] = [];
  for (const t of templates) {
    const sole = soleInputPath(t);
    if (sole === undefined) {
      argv.push(renderInputOnly(t, input));
      continue;
    }
    const v = lookup(input, sole);
    if (v === undefined) continue;
    if (Array.isArray(v)) argv.push(...v.map(stringify));
    else argv.push(stringify(v));
  }
  return argv;
}

/**
 * A git child's arguments and environment (git-hardening.ts), with the repository it reads (work
 * tree, git and common directories) and any file its config makes git read inside the roots.
 */
async function hardenedGit(
  tool: string,
  command: string,
  argv: string[],
  env: Record<string, string>,
  cwd: string | undefined,
  roots: FileRoots,
  signal: AbortSignal,
): Promise<{ argv: string[]; env: Record<string, string> }> {
  const base = cwd ?? process.cwd();
  const inRoots = (path: string) =>
    roots.confine(path, base, { tool, input: "repository" }).then(
      () => true,
      (e: unknown) => {
        if (e instanceof ToolbeltError && e.code === "PATH_OUTSIDE_ROOTS") return false;
        throw e;
      },
    );
  const confine = async (r: GitRepository): Promise<GitRepository> => {
    const repository = {
      workTree: await roots.confine(r.workTree, base, { tool, input: "repository" }),
      gitDir: await roots.confine(r.gitDir, base, { tool, input: "repository's git directory" }),
      commonDir: await roots.confine(r.commonDir, base, { tool, input: "repository's common git directory" }),
    };
    await refuseEscapingInternals(repository, { tool, roots: roots.list, inRoots });
    return repository;
  };
  const git = await prepareGit({ command, argv, env, ...(cwd !== undefined ? { cwd } : {}), signal, confine });
  // blame reads these relative to the work tree and prints the first line it cannot parse.
  for (const f of git.configFiles) await roots.confine(f.path, git.repository?.workTree ?? base, { tool, input: `the repository's ${f.key}` });
  return git;
}

/** No argument or environment value of a child can carry a NUL byte: an input holding one is refused before anything runs. */
function refuseNul(tool: string, input: unknown): void {
  const stack: { v: unknown; path: string }[] = [{ v: input, path: "$" }];
  while (stack.length) {
    const { v, path } = stack.pop()!;
    if (typeof v === "string" && v.includes("\0")) {
      const message = "contains a NUL byte, which no command argument can carry: remove it";
      throw new ToolbeltError("INVALID_ARGUMENTS", `the arguments for ${tool}: ${clipEchoed(path)} ${message}`, {
        tool,
        problems: [{ path: clipEchoed(path), message, keyword: "nul_byte" }],
      });
    }
    if (v !== null && typeof v === "object")
      for (const [k, c] of Object.entries(v)) stack.push({ v: c, path: Array.isArray(v) ? `${path}[${k}]` : `${path}.${k}` });
  }
}

export function createExecBackend(options: ExecBackendOptions): ToolBackend {
  const maxOut = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  const roots = createFileRoots(options.roots ?? [], { deny: options.deniedPaths ?? [] });
  const base = execBaseEnv(options.env);
  return {
    async invoke(tool: CatalogTool, args: Record<string, unknown>, ctx: BackendContext): Promise<BackendOutput> {
      const b = tool.backend;
      if (b.kind !== "exec") throw new ToolbeltError("INTERNAL", `${tool.name} is not an exec tool`);
      const view = options.views(tool.family);
      const secrets = new Secrets(view.secrets);
      // Every value redaction may look for: declared secrets and any variable a template can mark as one.
      const longest = Math.max(0, ...[...view.secrets, ...Object.values(view.env)].map((v) => (typeof v === "string" ? v.length : 0)));
      const rc: RenderContext = { input: args, env: view.env, secrets, tool: tool.name };
      refuseNul(tool.name, args);
      // A working directory is a path, not a secret: rendering it does not mark its value for redaction.
      const cwd = b.cwd !== undefined ? renderString(b.cwd, { ...rc, secrets: new Secrets() }) : undefined;
      const input = await confinePaths(tool.name, args, b.paths, roots, cwd ?? process.cwd());
      let argv = renderArgs(b.args, input);
      // The minimal base plus the tool's declared env (family env merged in by the build): nothing of the gateway's own.
      let env: Record<string, string> = { ...base, ...Object.fromEntries(Object.entries(b.env ?? {}).map(([k, t]) => [k, renderString(t, rc)])) };
      if (isGit(b.command)) ({ argv, env } = await hardenedGit(tool.name, b.command, argv, env, cwd, roots, ctx.signal));

      return new Promise<BackendOutput>((resolve, reject) => {
        let settled = false;
        const settle = (f: () => void) => {
          if (settled) return;
          settled = true;
          ctx.signal.removeEventListener("abort", onAbort);
          f();
        };
        const child = spawn(b.command, argv, {
          ...(cwd !== undefined ? { cwd } : {}),
          env,
          shell: false,
          detached: true,
          stdio: ["ignore", "pipe", "pipe"],
        });
        const killTree = () => {
          try {
            if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
          } catch {
            child.kill("SIGKILL");
          }
        };
        const onAbort = () => {
          killTree();
          settle(() => reject(ctx.signal.reason));
        };
        if (ctx.signal.aborted) return onAbort();
        ctx.signal.addEventListener("abort", onAbort, { once: true });

        const out: Buffer[] = [];
        let outSize = 0;
        let errTail = "";
        let errCut = false;
        const keep = STDERR_TAIL + longest;
        child.stdout.on("data", (chunk: Buffer) => {
          outSize += chunk.byteLength;
          if (outSize > maxOut) {
            killTree();
            settle(() =>
              reject(
                new ToolbeltError("UPSTREAM_BAD_OUTPUT", `${tool.name} wrote more than ${maxOut} bytes to stdout; narrow the request`, {
                  tool: tool.name,
                  max_bytes: maxOut,
                }),
              ),
            );
            return;
          }
          out.push(chunk);
        });
        child.stderr.on("data", (chunk: Buffer) => {
          const next = errTail + chunk.toString("utf8");
          errCut ||= next.length > keep;
          errTail = next.slice(-keep);
        });
        child.on("error", (e: NodeJS.ErrnoException) =>
          settle(() =>
            reject(
              new ToolbeltError("UPSTREAM_ERROR", `${tool.name} could not start ${b.command} (${e.code ?? e.message}); tell the operator`, {
                tool: tool.name,
                command: b.command,
              }),
            ),
          ),
        );
        child.on("close", (code, signal) =>
          settle(() => {
            const stdout = secrets.redact(Buffer.concat(out).toString("utf8"));
            const stderr = redactedTail(secrets, errTail, errCut, longest);
            if (code === 0) {
              if (b.output === "text") return resolve({ result: { text: stdout } });
              try {
                return resolve({ result: JSON.parse(stdout) as unknown });
              } catch {
                return reject(
                  new ToolbeltError("UPSTREAM_BAD_OUTPUT", `${tool.name} promises JSON output but printed something else: ${stdout.slice(0, 300)}`, {
                    tool: tool.name,
                    stdout: stdout.slice(0, 1000),
                  }),
                );
              }
            }
            // git's stderr can quote a file it read (alternates, shallow): its caller hears a fixed message, the log the rest.
            const git = isGit(b.command);
            const shown = git ? {} : { stderr };
            const how = code === null ? `was killed by ${signal ?? "a signal"}` : `exited with status ${code}`;
            const failed = git
              ? gitFailure(tool.name, code, signal, stderr)
              : new ToolbeltError("UPSTREAM_ERROR", `${tool.name} ${how}: ${stderr.trim() || "(no stderr)"}`, {
                  tool: tool.name,
                  exit_code: code,
                  ...(signal ? { signal } : {}),
                  stderr,
                });
            if (code === null) return reject(failed);
            // The command's own way of saying it found nothing (grep: 1): the caller's question, not a failure.
            const nothing = b.not_found_exit_codes?.includes(code)
              ? new ToolbeltError(
                  "UPSTREAM_NOT_FOUND",
                  `${tool.name} found nothing (exit status ${code})${git ? "" : `: ${stderr.trim() || "no match"}`}`,
                  { tool: tool.name, exit_code: code, ...shown },
                  { cause: failed.cause },
                )
              : undefined;
            // A declared path that does not exist says best what to fix: it names the input.
            missingPathError(tool.name, input, b.paths, { exit_code: code, ...shown }).then(
              (missing) => reject(missing ?? nothing ?? failed),
              () => reject(nothing ?? failed),
            );
          }),
        );
      });
    },
  };
}
