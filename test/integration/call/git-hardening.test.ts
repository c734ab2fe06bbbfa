// Git that runs nothing from the repository: the example registry's git tools, called through the
// real call gateway and exec backend against hostile repositories built here. Each vector first
// runs plain git on the repository (the control: the trap is armed and fires), then the tool, which
// must not fire it.
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, unlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createExecBackend } from "../../../lambdas/backends/exec.js";
import { familyViews } from "../../../lambdas/backends/variables.js";
import { driverOverrides, gitFailure, hardenArgs, hardenEnv, subcommandIndex } from "../../../lambdas/backends/git-hardening.js";
import { createCallGateway, type CallGateway } from "../../../lambdas/core/call/gateway.js";
import { registryArtifact } from "../../helpers/example-registry.js";
import { callerFor, catalogTool } from "./helpers.js";

const caller = callerFor("git-hardening-test", "git.*");
let scratch: string;
let marker: string;
let trap: string;
/** Records that it ran and exits at once (ssh's stdin stays open: draining it would wait for git). */
let quickTrap: string;
let gateway: CallGateway;

/** The environment plain git runs with in the controls: the test's own, without any GIT_* setting. */
const plainEnv = () => Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("GIT_")));
const plainGit = (cwd: string, ...args: string[]) => spawnSync("git", args, { cwd, env: plainEnv(), encoding: "utf8", timeout: 10_000 });

const fired = () => existsSync(marker);
const disarm = () => existsSync(marker) && unlinkSync(marker);

let count = 0;
/** A repository with two commits of a.txt (and whatever `files` adds), owned by the test's user. */
function hostileRepo(files: Record<string, string> = {}): string {
  const dir = join(scratch, "repos", `repo-${++count}`);
  mkdirSync(dir);
  const git = (...args: string[]) =>
    execFileSync("git", ["-C", dir, "-c", "user.name=Eve", "-c", "user.email=eve@example.com", ...args], { env: plainEnv(), stdio: "pipe" });
  git("init", "-q", "-b", "main");
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  writeFileSync(join(dir, "a.txt"), "one\n");
  git("add", ".");
  git("commit", "-q", "-m", "first");
  writeFileSync(join(dir, "a.txt"), "one\ntwo\n");
  git("commit", "-q", "-am", "second");
  return dir;
}
const setConfig = (repo: string, key: string, value: string) => execFileSync("git", ["-C", repo, "config", key, value], { env: plainEnv() });

/** A commit carrying a signature header, so `log.showSignature` makes git verify it. */
function addSignedCommit(repo: string, armor: "PGP" | "SSH"): void {
  const g = (args: string[], input?: string) =>
    execFileSync("git", ["-C", repo, ...args], { env: plainEnv(), encoding: "utf8", ...(input ? { input } : {}) }).trim();
  const tree = g(["rev-parse", "HEAD^{tree}"]);
  const parent = g(["rev-parse", "HEAD"]);
  const body = `tree ${tree}\nparent ${parent}\nauthor Eve <eve@example.com> 1700000000 +0000\ncommitter Eve <eve@example.com> 1700000000 +0000\ngpgsig -----BEGIN ${armor} SIGNATURE-----\n AAAA\n -----END ${armor} SIGNATURE-----\n\nsigned\n`;
  const commit = g(["hash-object", "-t", "commit", "-w", "--stdin"], body);
  g(["update-ref", "HEAD", commit]);
}

const call = (tool: string, args: Record<string, unknown>) => gateway.call({ tool, args }, caller);
/** What a caller sees of a call: the result, or the error's message and details. */
const visible = (p: Promise<unknown>): Promise<{ ok: boolean; text: string }> =>
  p.then(
    (r) => ({ ok: true, text: JSON.stringify(r) }),
    (e: { message?: string; details?: unknown }) => ({ ok: false, text: JSON.stringify({ message: e.message, details: e.details }) }),
  );

beforeAll(async () => {
  scratch = realpathSync(mkdtempSync(join(tmpdir(), "toolbelt-git-hostile-")));
  // The repositories live under the one file root; the trap, hooks and canaries outside it.
  mkdirSync(join(scratch, "repos"));
  marker = join(scratch, "fired");
  trap = join(scratch, "trap.sh");
  // Records that it ran, drains stdin (filters and textconv write to it) and succeeds.
  writeFileSync(trap, `#!/bin/sh\necho "$0 $*" >> '${marker}'\ncat >/dev/null 2>&1\nexit 0\n`);
  chmodSync(trap, 0o755);
  quickTrap = join(scratch, "quick-trap.sh");
  writeFileSync(quickTrap, `#!/bin/sh\necho "$0 $*" >> '${marker}'\nexit 1\n`);
  chmodSync(quickTrap, 0o755);
  const git = (await registryArtifact()).tools.filter((t) => t.family === "git");
  git.push(
    catalogTool("git.refresh_index", { kind: "exec", command: "git", args: ["-C", "{{input.repo}}", "update-index", "-q", "--refresh"], output: "text" }),
  );
  gateway = createCallGateway({
    tools: new Map(git.map((t) => [t.name, t])),
    backends: { exec: createExecBackend({ env: { PATH: process.env.PATH }, views: familyViews([], {}), roots: [join(scratch, "repos")] }) },
  });
}, 60_000);

afterAll(() => rmSync(scratch, { recursive: true, force: true }));
beforeEach(() => disarm());

describe("finding 2: read-only git tools ran programs named by the repository's config", () => {
  it("core.fsmonitor does not run from git.status", async () => {
    const repo = hostileRepo();
    setConfig(repo, "core.fsmonitor", trap);
    plainGit(repo, "status", "--short");
    expect(fired()).toBe(true);
    disarm();
    const res = await call("git.status", { repo });
    expect(fired()).toBe(false);
    expect((res.result as { text: string }).text).toMatch(/^## main/);
  });

  it("diff.external does not run from git.diff", async () => {
    const repo = hostileRepo();
    setConfig(repo, "diff.external", trap);
    plainGit(repo, "diff", "HEAD~1", "HEAD");
    expect(fired()).toBe(true);
    disarm();
    const res = await call("git.diff", { repo, from: "HEAD~1" });
    expect(fired()).toBe(false);
    expect((res.result as { text: string }).text).toContain("+two");
  });

  it("log.showSignature with gpg.program does not run from git.log", async () => {
    const repo = hostileRepo();
    addSignedCommit(repo, "PGP");
    setConfig(repo, "log.showSignature", "true");
    setConfig(repo, "gpg.program", trap);
    plainGit(repo, "log", "-1");
    expect(fired()).toBe(true);
    disarm();
    const res = await call("git.log", { repo });
    expect(fired()).toBe(false);
    expect((res.result as { text: string }).text).toContain("signed");
  });

  it("log.showSignature with gpg.ssh.program does not run from git.show", async () => {
    const repo = hostileRepo();
    addSignedCommit(repo, "SSH");
    setConfig(repo, "log.showSignature", "true");
    setConfig(repo, "gpg.ssh.program", trap);
    setConfig(repo, "gpg.ssh.allowedSignersFile", "/dev/null");
    plainGit(repo, "show", "HEAD");
    expect(fired()).toBe(true);
    disarm();
    await call("git.show", { repo });
    expect(fired()).toBe(false);
  });
});

describe("every other vector of repository-controlled execution", () => {
  // The example tools never write the index (GIT_OPTIONAL_LOCKS=0), so hooks are tried with a tool that does.
  it("core.hooksPath (post-index-change) does not run from a git tool that writes the index", async () => {
    const repo = hostileRepo();
    const hooks = join(scratch, `hooks-${count}`);
    mkdirSync(hooks);
    writeFileSync(join(hooks, "post-index-change"), readFileSync(trap));
    chmodSync(join(hooks, "post-index-change"), 0o755);
    setConfig(repo, "core.hooksPath", hooks);
    utimesSync(join(repo, "a.txt"), new Date(), new Date(Date.now() + 5000)); // the index needs a refresh
    plainGit(repo, "status");
    expect(fired()).toBe(true);
    disarm();
    utimesSync(join(repo, "a.txt"), new Date(), new Date(Date.now() + 10_000));
    await call("git.refresh_index", { repo });
    expect(fired()).toBe(false);
  });

  it("a hook in .git/hooks does not run from a git tool that writes the index", async () => {
    const repo = hostileRepo();
    writeFileSync(join(repo, ".git/hooks/post-index-change"), readFileSync(trap));
    chmodSync(join(repo, ".git/hooks/post-index-change"), 0o755);
    utimesSync(join(repo, "a.txt"), new Date(), new Date(Date.now() + 5000));
    plainGit(repo, "status");
    expect(fired()).toBe(true);
    disarm();
    utimesSync(join(repo, "a.txt"), new Date(), new Date(Date.now() + 10_000));
    await call("git.refresh_index", { repo });
    expect(fired()).toBe(false);
  });

  it("diff.<driver>.textconv (named by .gitattributes) does not run from git.diff, git.show or git.blame", async () => {
    const repo = hostileRepo({ ".gitattributes": "*.txt diff=conv\n" });
    setConfig(repo, "diff.conv.textconv", trap);
    plainGit(repo, "show", "HEAD");
    expect(fired()).toBe(true);
    disarm();
    await call("git.diff", { repo, from: "HEAD~1" });
    await call("git.show", { repo });
    await call("git.blame", { repo, path: "a.txt" });
    expect(fired()).toBe(false);
  });

  it("diff.<driver>.command does not run from git.diff", async () => {
    const repo = hostileRepo({ ".gitattributes": "*.txt diff=ext\n" });
    setConfig(repo, "diff.ext.command", trap);
    plainGit(repo, "diff", "HEAD~1", "HEAD");
    expect(fired()).toBe(true);
    disarm();
    const res = await call("git.diff", { repo, from: "HEAD~1" });
    expect(fired()).toBe(false);
    expect((res.result as { text: string }).text).toContain("+two");
  });

  it("filter.<driver>.clean does not run from git.status", async () => {
    const repo = hostileRepo({ ".gitattributes": "*.txt filter=clean\n" });
    setConfig(repo, "filter.clean.clean", trap);
    setConfig(repo, "filter.clean.required", "true");
    // Same size, new mtime: git must hash the file again, through the clean filter.
    writeFileSync(join(repo, "a.txt"), "one\nTWO\n");
    utimesSync(join(repo, "a.txt"), new Date(), new Date(Date.now() + 5000));
    plainGit(repo, "status");
    expect(fired()).toBe(true);
    disarm();
    const res = await call("git.status", { repo });
    expect(fired()).toBe(false);
    expect((res.result as { text: string }).text).toContain("M a.txt");
  });

  it("a filter driver named in bytes that are not UTF-8 (which no override can name) makes the call fail, not run it", async () => {
    const repo = hostileRepo();
    writeFileSync(join(repo, ".gitattributes"), Buffer.from("*.txt filter=\xff\n", "latin1"));
    writeFileSync(
      join(repo, ".git/config"),
      Buffer.concat([readFileSync(join(repo, ".git/config")), Buffer.from(`[filter "\xff"]\n\tclean = ${trap}\n`, "latin1")]),
    );
    writeFileSync(join(repo, "a.txt"), "one\nTWO\n");
    utimesSync(join(repo, "a.txt"), new Date(), new Date(Date.now() + 5000));
    plainGit(repo, "diff", "HEAD", "--stat");
    expect(fired()).toBe(true);
    disarm();
    await expect(call("git.status", { repo })).rejects.toMatchObject({ code: "INVALID_ARGUMENTS", message: expect.stringContaining("not UTF-8") });
    expect(fired()).toBe(false);
  });

  it("include.path and includeIf bring no program in: core.fsmonitor from an included file does not run from git.status", async () => {
    const repo = hostileRepo();
    const included = join(scratch, `included-${count}`);
    writeFileSync(included, `[core]\n\tfsmonitor = ${trap}\n[diff]\n\texternal = ${trap}\n`);
    setConfig(repo, "include.path", included);
    setConfig(repo, `includeIf.gitdir:${repo}/.path`, included);
    plainGit(repo, "status");
    expect(fired()).toBe(true);
    disarm();
    await call("git.status", { repo });
    await call("git.diff", { repo, from: "HEAD~1" });
    expect(fired()).toBe(false);
  });

  it("a partial clone's lazy fetch (ext:: transport) does not run from git.show_file", async () => {
    const repo = hostileRepo();
    const blob = execFileSync("git", ["-C", repo, "rev-parse", "HEAD:a.txt"], { encoding: "utf8" }).trim();
    rmSync(join(repo, ".git/objects", blob.slice(0, 2), blob.slice(2)));
    setConfig(repo, "core.repositoryformatversion", "1");
    setConfig(repo, "extensions.partialClone", "origin");
    setConfig(repo, "remote.origin.promisor", "true");
    setConfig(repo, "remote.origin.url", `ext::sh -c touch% ${marker}`);
    setConfig(repo, "protocol.ext.allow", "always");
    plainGit(repo, "show", "HEAD:a.txt");
    expect(fired()).toBe(true);
    disarm();
    await expect(call("git.show_file", { repo, path: "a.txt" })).rejects.toMatchObject({ code: "UPSTREAM_ERROR" });
    expect(fired()).toBe(false);
  });

  it("a lazy fetch over ssh:// does not run core.sshCommand from git.show_file", async () => {
    const repo = hostileRepo();
    const blob = execFileSync("git", ["-C", repo, "rev-parse", "HEAD:a.txt"], { encoding: "utf8" }).trim();
    rmSync(join(repo, ".git/objects", blob.slice(0, 2), blob.slice(2)));
    setConfig(repo, "core.repositoryformatversion", "1");
    setConfig(repo, "extensions.partialClone", "origin");
    setConfig(repo, "remote.origin.promisor", "true");
    setConfig(repo, "remote.origin.url", "ssh://example.invalid/x.git");
    setConfig(repo, "core.sshCommand", quickTrap);
    plainGit(repo, "show", "HEAD:a.txt");
    expect(fired()).toBe(true);
    disarm();
    await expect(call("git.show_file", { repo, path: "a.txt" })).rejects.toMatchObject({ code: "UPSTREAM_ERROR" });
    expect(fired()).toBe(false);
  });

  it("a hostile submodule's filter does not run from git.status (no recursion into submodules)", async () => {
    const inner = hostileRepo({ ".gitattributes": "*.txt filter=clean\n" });
    const outer = hostileRepo();
    execFileSync(
      "git",
      ["-C", outer, "-c", "protocol.file.allow=always", "-c", "user.name=Eve", "-c", "user.email=eve@example.com", "submodule", "add", "-q", inner, "sub"],
      { env: plainEnv(), stdio: "pipe" },
    );
    const sub = join(outer, "sub");
    setConfig(sub, "filter.clean.clean", trap);
    writeFileSync(join(sub, "a.txt"), "one\nTWO\n");
    utimesSync(join(sub, "a.txt"), new Date(), new Date(Date.now() + 5000));
    plainGit(outer, "status");
    expect(fired()).toBe(true);
    disarm();
    utimesSync(join(sub, "a.txt"), new Date(), new Date(Date.now() + 10_000));
    await call("git.status", { repo: outer });
    expect(fired()).toBe(false);
  });

  it("a bare repository committed inside a tree is not entered (safe.bareRepository=explicit)", async () => {
    const repo = hostileRepo();
    const bare = join(repo, "evil.git");
    execFileSync("git", ["init", "-q", "--bare", "-b", "main", bare], { env: plainEnv() });
    execFileSync("git", ["-C", repo, "push", "-q", bare, "main"], { env: plainEnv() });
    addSignedCommit(repo, "PGP");
    execFileSync("git", ["-C", repo, "push", "-q", "-f", bare, "main"], { env: plainEnv() });
    setConfig(bare, "log.showSignature", "true");
    setConfig(bare, "gpg.program", trap);
    plainGit(bare, "log", "-1");
    expect(fired()).toBe(true);
    disarm();
    const out = await visible(call("git.log", { repo: bare }));
    expect(fired()).toBe(false);
    expect(out.ok).toBe(false);
  });

  it("git.diff reads no file outside the repository (absolute paths made git diff --no-index)", async () => {
    const repo = hostileRepo();
    const outside = join(scratch, `outside-${count}.txt`);
    writeFileSync(outside, "canary-outside-the-repository\n");
    const plain = plainGit(repo, "diff", "--end-of-options", outside, "/dev/null");
    expect(plain.stdout).toContain("canary-outside-the-repository");
    const out = await visible(call("git.diff", { repo, from: outside, to: "/dev/null" }));
    expect(out.text).not.toContain("canary-outside-the-repository");
  });

  it("blame.ignoreRevsFile cannot make git.blame print a line of a file outside the repository", async () => {
    const repo = hostileRepo();
    const outside = join(scratch, `secret-${count}.txt`);
    writeFileSync(outside, "canary-first-line\n");
    setConfig(repo, "blame.ignoreRevsFile", outside);
    expect(plainGit(repo, "blame", "HEAD", "--", "a.txt").stderr).toContain("canary-first-line");
    const out = await visible(call("git.blame", { repo, path: "a.txt" }));
    expect(out.text).not.toContain("canary-first-line");
    expect(out.ok).toBe(false);
    expect(out.text).toContain("blame.ignorerevsfile");
  });
});

describe("issue 24: git read files outside the roots through .git internals", () => {
  /** A file outside the root whose first line git would quote, and a private repository outside it too. */
  const CANARY = "canary-outside-line";
  let canary: string;
  let privateRepo: string;
  beforeAll(() => {
    canary = join(scratch, "canary.txt");
    writeFileSync(canary, `${CANARY}:x:0:0:root:/root:/bin/bash\n${CANARY}-second:x:1:1::/usr/sbin:/bin/sh\n`);
    privateRepo = join(scratch, "private");
    mkdirSync(privateRepo);
    const g = (...args: string[]) =>
      execFileSync("git", ["-C", privateRepo, "-c", "user.name=P", "-c", "user.email=p@example.com", ...args], { env: plainEnv() });
    g("init", "-q", "-b", "main");
    writeFileSync(join(privateRepo, "secret.txt"), "canary-private-content\n");
    g("add", ".");
    g("commit", "-q", "-m", "private");
  });
  const privateHead = () => execFileSync("git", ["-C", privateRepo, "rev-parse", "HEAD"], { env: plainEnv(), encoding: "utf8" }).trim();
  /** Replaces `.git/<entry>` of `repo` with a symlink to `target`. */
  const plant = (repo: string, entry: string, target: string) => {
    const at = join(repo, ".git", entry);
    rmSync(at, { recursive: true, force: true });
    mkdirSync(join(at, ".."), { recursive: true });
    symlinkSync(target, at);
  };
  /** The call is refused with 403 naming the entry, and nothing of the canaries reaches the caller. */
  const refused = async (p: Promise<unknown>, entry: string, content = "canary") => {
    const err = await p.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ code: "PATH_OUTSIDE_ROOTS", message: expect.stringContaining(JSON.stringify(entry)), details: { entry } });
    const seen = JSON.stringify({ message: (err as Error).message, details: (err as { details: unknown }).details });
    expect(seen).not.toContain(content);
  };

  it("objects/info/alternates symlinked to a file outside: git.log of an unknown revision quoted every line of it", async () => {
    const repo = hostileRepo();
    plant(repo, "objects/info/alternates", canary);
    // Any object lookup that misses reads the alternates ("unable to normalize alternate object path: <line>").
    expect(plainGit(repo, "cat-file", "-e", "1234567890".repeat(4)).stderr).toContain(`${CANARY}-second`);
    await refused(call("git.log", { repo, rev: "nosuch" }), "objects/info/alternates");
  });

  it("objects/info/alternates naming another repository's objects outside the roots: git.show_file printed its content", async () => {
    const repo = hostileRepo();
    writeFileSync(join(repo, ".git/objects/info/alternates"), `# shared\n${join(privateRepo, ".git/objects")}\n`);
    writeFileSync(join(repo, ".git/refs/heads/stolen"), `${privateHead()}\n`);
    expect(plainGit(repo, "show", "stolen:secret.txt").stdout).toContain("canary-private-content");
    await refused(call("git.show_file", { repo, rev: "stolen", path: "secret.txt" }), "objects/info/alternates line 2");
  });

  it("an alternate inside the roots whose own alternates lead outside is refused too; one that stays inside is served", async () => {
    const middle = hostileRepo();
    writeFileSync(join(middle, ".git/objects/info/alternates"), `${join(privateRepo, ".git/objects")}\n`);
    const repo = hostileRepo();
    writeFileSync(join(repo, ".git/objects/info/alternates"), `${join(middle, ".git/objects")}\n`);
    writeFileSync(join(repo, ".git/refs/heads/stolen"), `${privateHead()}\n`);
    expect(plainGit(repo, "show", "stolen:secret.txt").stdout).toContain("canary-private-content");
    await refused(call("git.show_file", { repo, rev: "stolen", path: "secret.txt" }), "objects/info/alternates line 1 → info/alternates line 1");
    writeFileSync(join(middle, ".git/objects/info/alternates"), "");
    const shared = join(scratch, "repos", `shared-${count}`);
    execFileSync("git", ["clone", "-q", "--shared", middle, shared], { env: plainEnv() });
    expect(((await call("git.log", { repo: shared })).result as { text: string }).text).toContain("second");
  });

  it("objects symlinked to another repository's objects: git.show_file printed its content", async () => {
    const repo = hostileRepo();
    plant(repo, "objects", join(privateRepo, ".git/objects"));
    writeFileSync(join(repo, ".git/refs/heads/stolen"), `${privateHead()}\n`);
    expect(plainGit(repo, "show", "stolen:secret.txt").stdout).toContain("canary-private-content");
    await refused(call("git.show_file", { repo, rev: "stolen", path: "secret.txt" }), "objects");
  });

  it("a pack file symlinked out of objects/pack is refused", async () => {
    const repo = hostileRepo();
    plant(repo, "objects/pack/pack-0000000000000000000000000000000000000000.idx", canary);
    await refused(call("git.log", { repo }), "objects/pack/pack-0000000000000000000000000000000000000000.idx");
  });

  it("shallow symlinked to a file outside: git.log quoted its first line", async () => {
    const repo = hostileRepo();
    plant(repo, "shallow", canary);
    expect(plainGit(repo, "log").stderr).toContain(CANARY);
    await refused(call("git.log", { repo }), "shallow");
  });

  it("shallow symlinked to the gateway's /proc/<pid>/environ: git.log quoted its environment", async () => {
    const repo = hostileRepo();
    const environ = `/proc/${process.pid}/environ`;
    const first = readFileSync(environ, "utf8").split("\n")[0]!.split("\0")[0]!;
    plant(repo, "shallow", environ);
    expect(plainGit(repo, "log").stderr).toContain(first);
    const out = await visible(call("git.log", { repo }));
    expect(out.ok).toBe(false);
    expect(out.text).not.toContain(first);
    expect(out.text).toContain('\\"shallow\\" is a symbolic link');
  });

  it("packed-refs symlinked to a file outside: git.log of an unknown revision quoted its first line", async () => {
    const repo = hostileRepo();
    plant(repo, "packed-refs", "/etc/passwd");
    expect(plainGit(repo, "log", "nosuch").stderr).toContain("root:x:0:0");
    await refused(call("git.log", { repo, rev: "nosuch" }), "packed-refs", "root:x");
  });

  it("info/grafts symlinked to a file outside: git.log quoted its first line", async () => {
    const repo = hostileRepo();
    plant(repo, "info/grafts", canary);
    expect(plainGit(repo, "log").stderr).toContain(CANARY);
    await refused(call("git.log", { repo }), "info/grafts");
  });

  it("refs, a ref below it, HEAD, index, config and a pseudo-ref symlinked anywhere are refused", async () => {
    const cases: [string, string][] = [
      ["refs", join(privateRepo, ".git/refs")],
      ["refs/heads/x", canary],
      ["HEAD", join(privateRepo, ".git/HEAD")],
      ["index", canary],
      ["config", join(privateRepo, ".git/config")],
      ["ORIG_HEAD", canary],
    ];
    for (const [entry, target] of cases) {
      const repo = hostileRepo();
      plant(repo, entry, target);
      // A symlinked HEAD is no repository for git's discovery: whatever git says then, nothing of the target is shown.
      if (entry === "HEAD") {
        const out = await visible(call("git.log", { repo }));
        expect({ entry, ok: out.ok, leaked: out.text.includes("canary") }).toEqual({ entry, ok: false, leaked: false });
        continue;
      }
      await refused(call("git.log", { repo }), entry);
    }
  });

  it("a linked worktree: the common git directory's internals are checked as well as its own git directory", async () => {
    const main = hostileRepo();
    const linked = join(scratch, "repos", `linked-${count}`);
    execFileSync("git", ["-C", main, "worktree", "add", "-q", linked], { env: plainEnv() });
    expect(((await call("git.log", { repo: linked })).result as { text: string }).text).toContain("second");
    plant(main, "shallow", canary);
    expect(plainGit(linked, "log").stderr).toContain(CANARY);
    const err = await call("git.log", { repo: linked }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "PATH_OUTSIDE_ROOTS", message: expect.stringContaining('common git directory entry "shallow"') });
  });

  it("commondir symlinked to a file outside: git's rev-parse quoted its first line, which reaches no caller now", async () => {
    const repo = hostileRepo();
    plant(repo, "commondir", canary);
    expect(plainGit(repo, "rev-parse", "--git-dir").stderr).toContain(CANARY);
    const out = await visible(call("git.log", { repo }));
    expect(out.ok).toBe(false);
    expect(out.text).not.toContain("canary");
  });

  it("GIT_ALTERNATE_OBJECT_DIRECTORIES from a tool's env never reaches git", async () => {
    expect(hardenEnv({ GIT_ALTERNATE_OBJECT_DIRECTORIES: "/x", PATH: "/bin" })).not.toHaveProperty("GIT_ALTERNATE_OBJECT_DIRECTORIES");
    const repo = hostileRepo();
    writeFileSync(join(repo, ".git/refs/heads/stolen"), `${privateHead()}\n`);
    const tool = catalogTool("git.env_alternates", {
      kind: "exec",
      command: "git",
      args: ["-C", "{{input.repo}}", "show", "stolen:secret.txt"],
      env: { GIT_ALTERNATE_OBJECT_DIRECTORIES: join(privateRepo, ".git/objects") },
      output: "text",
    });
    const withEnv = createCallGateway({
      tools: new Map([[tool.name, tool]]),
      backends: { exec: createExecBackend({ env: { PATH: process.env.PATH }, views: familyViews([], {}), roots: [join(scratch, "repos")] }) },
    });
    const out = await visible(withEnv.call({ tool: tool.name, args: { repo } }, caller));
    expect(out.ok).toBe(false);
    expect(out.text).not.toContain("canary-private-content");
  });
});

describe("issue 24: git's stderr reaches the caller only as a fixed message", () => {
  it("an unknown revision is 404 with a fixed message; git's words go to the error's cause (the log), not its details", async () => {
    const repo = hostileRepo();
    const err = (await call("git.log", { repo, rev: "no-such-branch" }).catch((e: unknown) => e)) as {
      code: string;
      message: string;
      details: object;
      cause: Error;
    };
    expect(err).toMatchObject({ code: "UPSTREAM_NOT_FOUND", details: { tool: "git.log", exit_code: 128 } });
    expect(err.message).toBe("git.log: git knows no such revision or object in this repository; check the revision (branch, tag or commit)");
    expect(JSON.stringify(err.details)).not.toContain("no-such-branch");
    expect(err.cause.message).toContain("bad revision 'no-such-branch'");
  });

  it("a bare repository is 422 with a fixed message, not 502 with git's words", async () => {
    const bare = join(scratch, "repos", `bare-${++count}.git`);
    execFileSync("git", ["init", "-q", "--bare", bare], { env: plainEnv() });
    const err = await call("git.log", { repo: bare }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "INVALID_ARGUMENTS", status: 422, details: { tool: "git.log", exit_code: 128 } });
    expect(JSON.stringify((err as { details: unknown }).details)).not.toContain("stderr");
  });

  it("each recognised failure has its fixed message and status; anything else is a generic 502 keeping git's words out", () => {
    const seen = (stderr: string, exit: number | null = 128) => {
      const e = gitFailure("git.x", exit, exit === null ? "SIGKILL" : null, stderr);
      return { code: e.code, status: e.status, leaked: JSON.stringify({ m: e.message, d: e.details }).includes("SECRET-LINE") };
    };
    const cases: [string, string, number][] = [
      ["fatal: not a git repository (or any of the parent directories): .git SECRET-LINE", "UPSTREAM_NOT_FOUND", 404],
      ["fatal: cannot change to '/r/SECRET-LINE': No such file or directory", "UPSTREAM_NOT_FOUND", 404],
      ["fatal: cannot use bare repository '/r/SECRET-LINE' (safe.bareRepository is 'explicit')", "INVALID_ARGUMENTS", 422],
      ["fatal: detected dubious ownership in repository at '/r/SECRET-LINE'", "INVALID_ARGUMENTS", 422],
      ["fatal: ambiguous argument 'SECRET-LINE': both revision and filename", "INVALID_ARGUMENTS", 422],
      ["fatal: path 'SECRET-LINE' does not exist in 'HEAD'", "UPSTREAM_NOT_FOUND", 404],
      ["fatal: no such path SECRET-LINE in HEAD", "UPSTREAM_NOT_FOUND", 404],
      ["error: unable to normalize alternate object path: SECRET-LINE\nfatal: bad revision 'x'", "UPSTREAM_NOT_FOUND", 404],
      ["fatal: ambiguous argument 'SECRET-LINE': unknown revision or path not in the working tree.", "UPSTREAM_NOT_FOUND", 404],
      ["fatal: bad shallow line: SECRET-LINE", "UPSTREAM_ERROR", 502],
      ["fatal: bad object SECRET-LINE", "UPSTREAM_ERROR", 502],
    ];
    for (const [stderr, code, status] of cases) expect({ stderr, ...seen(stderr) }).toEqual({ stderr, code, status, leaked: false });
    expect(seen("fatal: bad revision 'SECRET-LINE'", 1)).toEqual({ code: "UPSTREAM_ERROR", status: 502, leaked: false });
    expect(seen("SECRET-LINE", null)).toEqual({ code: "UPSTREAM_ERROR", status: 502, leaked: false });
  });
});

describe("the hardening's parts", () => {
  it("puts the overrides before the author's arguments and the no-driver flags right after the subcommand", () => {
    const argv = hardenArgs(["-C", "/r", "log", "--oneline"]);
    expect(argv[0]).toBe("--no-pager");
    expect(argv).toContain("core.fsmonitor=false");
    expect(argv.slice(-5)).toEqual(["/r", "log", "--no-ext-diff", "--no-textconv", "--oneline"]);
    expect(subcommandIndex(["-c", "a=b", "-C", "x", "status"])).toBe(4);
    expect(subcommandIndex(["--version"])).toBe(-1);
  });

  it("overrides every driver the repository names, including subsections with dots and =", () => {
    const listing = [
      "core.bare\nfalse",
      "filter.a.b=c.clean\nevil",
      "diff.X.textconv\nevil",
      "merge.m.driver\nevil",
      "credential.https://h.helper\nevil",
      "trailer.sign.cmd\nevil",
      "user.name\nEve",
      "",
    ].join("\0");
    expect(Object.fromEntries(driverOverrides(listing))).toEqual({
      "filter.a.b=c.clean": "",
      "filter.a.b=c.required": "false",
      "diff.X.textconv": "",
      "merge.m.driver": "",
      "credential.https://h.helper": "",
      "trailer.sign.cmd": "",
    });
  });
});
