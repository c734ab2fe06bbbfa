// File roots (#7 finding 3): the example registry's file, git and disk tools, through the real call
// gateway and exec backend, reach only the roots. Every tool with a declared path is tried with
// /proc/self/environ, /etc/passwd, a `..` climb and a symlink inside the root pointing out.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createExecBackend } from "../../../lambdas/backends/exec.js";
import { gitFoundNothing } from "../../../lambdas/backends/git-hardening.js";
import { createFileRoots, realPathOf } from "../../../lambdas/backends/roots.js";
import { familyViews } from "../../../lambdas/backends/variables.js";
import { createCallGateway, type CallGateway } from "../../../lambdas/core/call/gateway.js";
import type { CatalogTool } from "../../../registry/contract/artifact.js";
import { registryArtifact } from "../../helpers/example-registry.js";
import { callerFor } from "./helpers.js";

const caller = callerFor("roots-test", "*");
const CANARY = "canary-outside-the-roots-7f3e";
let scratch: string;
/** The one root: a git repository with a file, a symlink out and a symlink in. */
let root: string;
let outside: string;
let tools: CatalogTool[];
let gatewayFor: (roots: string[]) => CallGateway;
let gateway: CallGateway;

const plainGit = (dir: string, ...args: string[]) =>
  execFileSync("git", ["-C", dir, "-c", "user.name=Ada", "-c", "user.email=ada@example.com", ...args], {
    stdio: "pipe",
    env: { PATH: process.env.PATH, HOME: process.env.HOME },
  });

/** Arguments for a tool: `prop` set to `value`, its other required inputs filled with harmless values. */
function argsFor(t: CatalogTool, prop: string, value: string): Record<string, unknown> {
  const fill: Record<string, unknown> = { repo: root, path: "a.txt", pattern: ".", name: "*", rev: "HEAD", from: "HEAD" };
  const required = (t.input_schema as { required?: string[] }).required ?? [];
  return { ...Object.fromEntries(required.map((r) => [r, fill[r]])), [prop]: value };
}
const declared = (t: CatalogTool) => (t.backend.kind === "exec" ? (t.backend.paths ?? []) : []);

/** What a caller sees of a call: the result, or the error's code, message and details. */
const visible = (p: Promise<unknown>) =>
  p.then(
    (r) => ({ ok: true, code: undefined as string | undefined, text: JSON.stringify(r) }),
    (e: { code?: string; message?: string; details?: unknown }) => ({
      ok: false,
      code: e.code,
      text: JSON.stringify({ message: e.message, details: e.details }),
    }),
  );

beforeAll(async () => {
  scratch = realpathSync(mkdtempSync(join(tmpdir(), "toolbelt-roots-")));
  root = join(scratch, "root");
  outside = join(scratch, "outside");
  mkdirSync(root);
  mkdirSync(outside);
  writeFileSync(join(outside, "secret.txt"), `${CANARY}\n`);
  plainGit(root, "init", "-q", "-b", "main");
  writeFileSync(join(root, "a.txt"), "inside the root\n");
  plainGit(root, "add", "a.txt");
  plainGit(root, "commit", "-q", "-m", "first");
  symlinkSync(join(outside, "secret.txt"), join(root, "link-out"));
  symlinkSync(outside, join(root, "dir-out"));
  symlinkSync(join(root, "a.txt"), join(root, "link-in"));

  tools = (await registryArtifact()).tools;
  gatewayFor = (roots) =>
    createCallGateway({
      tools: new Map(tools.map((t) => [t.name, t])),
      backends: { exec: createExecBackend({ env: { PATH: process.env.PATH }, views: familyViews([], {}), roots }) },
    });
  gateway = gatewayFor([root]);
}, 60_000);

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("finding 3: file and git tools read any file", () => {
  it("the example registry declares paths on every files tool, every git tool (repo) and system.disk_free", () => {
    const pathTools = tools.filter((t) => declared(t).length > 0).map((t) => t.name);
    for (const t of tools.filter((t) => t.family === "files" || t.family === "git")) expect(pathTools).toContain(t.name);
    expect(pathTools).toContain("system.disk_free");
    for (const t of tools.filter((t) => t.family === "git")) expect(declared(t)).toEqual(["repo"]);
  });

  const escapes = (): [string, string][] => [
    ["/proc/self/environ", "/proc/self/environ"],
    ["/etc/passwd", "/etc/passwd"],
    ["a `..` climb out of the root", join(relative(process.cwd(), root), "../../../../../../../../etc/passwd")],
    ["a symlink inside the root to a file outside", join(root, "link-out")],
    ["a symlink inside the root to a directory outside", join(root, "dir-out")],
  ];

  it("refuses /proc/self/environ, /etc/passwd, `..` and symlinks out through every declared path of every tool with 403 PATH_OUTSIDE_ROOTS naming the roots", async () => {
    const refused: string[] = [];
    for (const t of tools.filter((t) => declared(t).length > 0)) {
      for (const prop of declared(t)) {
        for (const [what, value] of escapes()) {
          const out = await visible(gateway.call({ tool: t.name, args: argsFor(t, prop, value) }, caller));
          expect({ tool: t.name, what, code: out.code }).toEqual({ tool: t.name, what, code: "PATH_OUTSIDE_ROOTS" });
          expect(out.text).toContain(root);
          expect(out.text).not.toContain(CANARY);
          refused.push(t.name);
        }
      }
    }
    expect(new Set(refused).size).toBeGreaterThanOrEqual(27);
  }, 120_000);

  it("serves paths inside the root, through a symlink that stays inside, and hands the command the real path", async () => {
    const head = await gateway.call({ tool: "files.read_head", args: { path: join(root, "link-in") } }, caller);
    expect(head.result).toEqual({ text: "inside the root\n" });
    const real = await gateway.call({ tool: "files.realpath", args: { path: join(root, "sub/../link-in") } }, caller);
    expect((real.result as { text: string }).text.trim()).toBe(join(root, "a.txt"));
    // grep --recursive follows no symlink below the root it was given (link-out and dir-out lead out).
    const search = await visible(gateway.call({ tool: "files.search", args: { path: root, pattern: "canary|inside" } }, caller));
    expect(search.text).toContain("inside the root");
    expect(search.text).not.toContain(CANARY);
    const log = await gateway.call({ tool: "git.log", args: { repo: root } }, caller);
    expect((log.result as { text: string }).text).toContain("first");
  });

  it("never counts /proc, /sys or /dev as inside, even under a root of /", async () => {
    const everywhere = gatewayFor(["/"]);
    for (const path of ["/proc/self/environ", "/proc/self/status", "/sys/kernel", "/dev/null"]) {
      await expect(everywhere.call({ tool: "files.read_head", args: { path } }, caller)).rejects.toMatchObject({ code: "PATH_OUTSIDE_ROOTS", status: 403 });
    }
    // A real file under / is still inside: wc counts its one line, three words and 16 bytes.
    const counted = await everywhere.call({ tool: "files.line_count", args: { path: join(root, "a.txt") } }, caller);
    expect((counted.result as { text: string }).text.trim().split(/\s+/).slice(0, 3)).toEqual(["1", "3", "16"]);
  });

  it("answers 403 to file and git tools when no roots are configured (a Lambda without fileRoots)", async () => {
    const none = gatewayFor([]);
    const err = await none.call({ tool: "files.read_head", args: { path: join(root, "a.txt") } }, caller).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "PATH_OUTSIDE_ROOTS", status: 403, message: expect.stringContaining("TOOLBELT_FILE_ROOTS") });
    await expect(none.call({ tool: "git.status", args: { repo: root } }, caller)).rejects.toMatchObject({ code: "PATH_OUTSIDE_ROOTS" });
  });
});

describe("a declared path that does not exist (regression: 502 UPSTREAM_ERROR, the command's failure, for the caller's typo)", () => {
  it("answers 404 UPSTREAM_NOT_FOUND naming the input through every declared path of every tool that then fails", async () => {
    const answers = new Map<string, string | undefined>();
    for (const t of tools.filter((t) => declared(t).length > 0)) {
      for (const prop of declared(t)) {
        const out = await visible(gateway.call({ tool: t.name, args: argsFor(t, prop, join(root, "no-such-file")) }, caller));
        answers.set(`${t.name} ${prop}`, out.code);
        if (out.code === "UPSTREAM_NOT_FOUND")
          expect(JSON.parse(out.text)).toMatchObject({
            message: `${t.name}: ${prop} "${join(root, "no-such-file")}" does not exist; check the path`,
            details: { input: prop },
          });
      }
    }
    // A command that succeeds on a missing path (realpath -m) still answers: only a failure is blamed on the path.
    expect([...answers].filter(([, code]) => code !== "UPSTREAM_NOT_FOUND" && code !== undefined)).toEqual([]);
    expect([...answers.values()].filter((code) => code === "UPSTREAM_NOT_FOUND").length).toBeGreaterThanOrEqual(26);
  }, 120_000);

  it("answers 404 for a git revision, object or path that does not exist (regression: 502 'fatal: bad revision'), 502 for git's other failures", async () => {
    const asked: [string, Record<string, unknown>][] = [
      ["git.log", { repo: root, rev: "no-such-branch" }],
      ["git.show", { repo: root, rev: "deadbeef" }],
      ["git.show_file", { repo: root, rev: "HEAD", path: "no-such-file.txt" }],
      ["git.show_file", { repo: root, rev: "no-such-branch", path: "a.txt" }],
      ["git.blame", { repo: root, rev: "HEAD", path: "no-such-file.txt" }],
      ["git.log", { repo: join(root, "a.txt") }],
    ];
    for (const [tool, args] of asked) {
      const out = await visible(gateway.call({ tool, args }, caller));
      expect({ tool, args, code: out.code }).toEqual({ tool, args, code: "UPSTREAM_NOT_FOUND" });
    }
    expect(gitFoundNothing(128, "fatal: detected dubious ownership in repository at '/r'\n")).toBe(false);
    expect(gitFoundNothing(1, "fatal: bad revision 'x'\n")).toBe(false);
  });

  it("keeps 502 for a command that failed on a path that exists", async () => {
    await expect(gateway.call({ tool: "files.read_head", args: { path: root } }, caller)).rejects.toMatchObject({ code: "UPSTREAM_ERROR", status: 502 });
  });
});

describe("a repository cannot lead git out of the roots", () => {
  it("refuses a directory inside the root whose repository is outside it (git's discovery climbs to parents)", async () => {
    const outer = join(scratch, "outer");
    mkdirSync(join(outer, "inner"), { recursive: true });
    plainGit(outer, "init", "-q");
    const err = await gatewayFor([join(outer, "inner")])
      .call({ tool: "git.status", args: { repo: join(outer, "inner") } }, caller)
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "PATH_OUTSIDE_ROOTS", details: { input: "repository" } });
  });

  it("refuses a repository whose core.worktree points outside the roots", async () => {
    const repo = join(root, "worktree-out");
    mkdirSync(repo);
    plainGit(repo, "init", "-q");
    plainGit(repo, "config", "core.worktree", outside);
    await expect(gateway.call({ tool: "git.grep", args: { repo, pattern: "canary" } }, caller)).rejects.toMatchObject({ code: "PATH_OUTSIDE_ROOTS" });
  });

  it("refuses a .git file whose gitdir is outside the roots", async () => {
    const elsewhere = join(outside, "elsewhere");
    plainGit(scratch, "init", "-q", "--separate-git-dir", join(outside, "elsewhere.git"), elsewhere);
    const repo = join(root, "gitfile");
    mkdirSync(repo);
    writeFileSync(join(repo, ".git"), `gitdir: ${join(outside, "elsewhere.git")}\n`);
    await expect(gateway.call({ tool: "git.log", args: { repo } }, caller)).rejects.toMatchObject({ code: "PATH_OUTSIDE_ROOTS" });
  });

  it("lets blame.ignoreRevsFile name a file inside the roots (the usual .git-blame-ignore-revs) and refuses one outside", async () => {
    const repo = join(root, "blame");
    mkdirSync(repo);
    plainGit(repo, "init", "-q");
    writeFileSync(join(repo, "a.txt"), "x\n");
    writeFileSync(join(repo, ".git-blame-ignore-revs"), "# none\n");
    plainGit(repo, "add", ".");
    plainGit(repo, "commit", "-q", "-m", "one");
    plainGit(repo, "config", "blame.ignoreRevsFile", ".git-blame-ignore-revs");
    const blamed = await gateway.call({ tool: "git.blame", args: { repo, path: "a.txt" } }, caller);
    expect((blamed.result as { text: string }).text).toMatch(/^\^?[0-9a-f]+ .*\) x$/m);
    plainGit(repo, "config", "blame.ignoreRevsFile", join(outside, "secret.txt"));
    const out = await visible(gateway.call({ tool: "git.blame", args: { repo, path: "a.txt" } }, caller));
    expect(out.code).toBe("PATH_OUTSIDE_ROOTS");
    expect(out.text).not.toContain(CANARY);
  });
});

describe("git's own path inputs are repository paths, which git keeps inside the work tree", () => {
  it("no git tool's `path` reads a file outside the repository: absolute, `..` or a tracked file swapped for a symlink out", async () => {
    const repo = join(root, "swapped");
    mkdirSync(repo);
    plainGit(repo, "init", "-q");
    writeFileSync(join(repo, "tracked.txt"), "harmless\n");
    plainGit(repo, "add", ".");
    plainGit(repo, "commit", "-q", "-m", "one");
    rmSync(join(repo, "tracked.txt"));
    symlinkSync(join(outside, "secret.txt"), join(repo, "tracked.txt"));
    const withPath = tools.filter((t) => t.family === "git" && "path" in ((t.input_schema as { properties?: object }).properties ?? {}));
    expect(withPath.map((t) => t.name).sort()).toEqual(["git.blame", "git.file_history", "git.grep", "git.ls_files", "git.show_file"]);
    for (const t of withPath) {
      for (const path of [join(outside, "secret.txt"), "../../outside/secret.txt", "tracked.txt", "."]) {
        const out = await visible(gateway.call({ tool: t.name, args: { ...argsFor(t, "repo", repo), path, pattern: "canary" } }, caller));
        expect({ tool: t.name, path, leaked: out.text.includes(CANARY) }).toEqual({ tool: t.name, path, leaked: false });
      }
    }
  }, 60_000);
});

describe("realPathOf", () => {
  it("resolves the existing prefix and keeps the part still to be created", async () => {
    expect(await realPathOf(join(root, "link-in"))).toBe(join(root, "a.txt"));
    expect(await realPathOf(join(root, "dir-out", "new", "file"))).toBe(join(outside, "new", "file"));
    expect(await realPathOf(join(root, "no", "such"))).toBe(join(root, "no", "such"));
  });

  it("confine names the roots and the input, and refuses a not-yet-existing path under a symlink out", async () => {
    const roots = createFileRoots([root]);
    await expect(roots.confine("dir-out/new.txt", root, { tool: "t.x", input: "path" })).rejects.toMatchObject({
      code: "PATH_OUTSIDE_ROOTS",
      message: `t.x: path "dir-out/new.txt" is outside the file roots; use a path inside ${root}`,
      details: { tool: "t.x", input: "path", roots: [root] },
    });
    expect(await roots.confine("new.txt", root, { tool: "t.x", input: "path" })).toBe(join(root, "new.txt"));
  });
});
