// The exec backend with real commands: git on a repository the test creates, and node for edge cases.
import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createExecBackend } from "../../../lambdas/backends/exec.js";
import { familyViews } from "../../../lambdas/backends/variables.js";
import { createCallGateway, type CallGateway } from "../../../lambdas/core/call/gateway.js";
import { callerFor, catalogTool, toolMap } from "./helpers.js";

const caller = callerFor("dev", "git.*", "sh.*");
const SECRET = "env-secret-5a4b3c2d";
let repo: string;
let scratch: string;
let gateway: CallGateway;

const git = (...args: string[]) => execFileSync("git", ["-C", repo, ...args], { encoding: "utf8" });

/** A process still exists (zombies, waiting for a reaper, count as gone). */
async function alive(pid: number): Promise<boolean> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, "utf8");
    return !/^\d+ \(.*\) Z/.test(stat);
  } catch {
    return false;
  }
}

beforeAll(async () => {
  repo = await mkdtemp(join(tmpdir(), "toolbelt-git-"));
  scratch = await mkdtemp(join(tmpdir(), "toolbelt-exec-"));
  execFileSync("git", ["init", "-q", repo]);
  git("config", "user.email", "t@example.com");
  git("config", "user.name", "Test");
  for (const [file, msg] of [
    ["a.txt", "first commit"],
    ["b.txt", "second commit"],
    ["a.txt", "third: touch a"],
  ] as const) {
    await writeFile(join(repo, file), `${msg}\n`, { flag: "a" });
    git("add", file);
    git("commit", "-q", "-m", msg);
  }

  const node = process.execPath;
  const tools = [
    catalogTool(
      "git.log",
      {
        kind: "exec",
        command: "git",
        args: ["-C", "{{input.repo}}", "log", "-n", "{{input.count}}", "--pretty=format:%s", "--", "{{input.paths}}"],
        output: "text",
      },
      {
        input_schema: {
          type: "object",
          required: ["repo"],
          properties: { repo: { type: "string" }, count: { type: "integer", default: 10 }, paths: { type: "array", items: { type: "string" } } },
        },
      },
    ),
    catalogTool("git.toplevel", { kind: "exec", command: "git", args: ["rev-parse", "--show-toplevel"], cwd: "${REPO_DIR}", output: "text" }),
    catalogTool(
      "git.count_json",
      { kind: "exec", command: "git", args: ["-C", "{{input.repo}}", "rev-list", "--count", "HEAD"], output: "json" },
      { output_schema: { type: "integer", minimum: 1 } },
    ),
    catalogTool("git.log_as_json", { kind: "exec", command: "git", args: ["-C", "{{input.repo}}", "log", "--oneline"], output: "json" }),
    catalogTool("sh.env", {
      kind: "exec",
      command: node,
      args: ["-e", "process.stdout.write(JSON.stringify({t: process.env.TB_TOKEN, m: process.env.TB_MODE}))"],
      env: { TB_TOKEN: "${SECRET_TOKEN}", TB_MODE: "mode-{{input.mode}}" },
      output: "json",
    }),
    catalogTool("sh.fail_secret", {
      kind: "exec",
      command: node,
      args: ["-e", "console.error('auth failed for ' + process.env.TB_TOKEN); process.exit(3)"],
      env: { TB_TOKEN: "${SECRET_TOKEN}" },
      output: "text",
    }),
    catalogTool(
      "sh.tree",
      {
        kind: "exec",
        command: node,
        // Spawns a grandchild that would outlive a naive kill, writes its pid, then waits forever.
        args: [
          "-e",
          "const c=require('child_process').spawn(process.execPath,['-e','setInterval(()=>{},1000)'],{stdio:'ignore'});require('fs').writeFileSync(process.argv[1], String(c.pid));setInterval(()=>{},1000)",
          "{{input.pidfile}}",
        ],
        output: "text",
      },
      { timeout_ms: 3000 },
    ),
    catalogTool("sh.flood", { kind: "exec", command: node, args: ["-e", "process.stdout.write('x'.repeat(100000))"], output: "text" }),
    catalogTool("sh.no_such_command", { kind: "exec", command: "definitely-not-a-command-xyz", args: [], output: "text" }),
  ];
  gateway = createCallGateway({
    tools: toolMap(tools),
    backends: {
      exec: createExecBackend({
        env: { PATH: process.env.PATH },
        views: familyViews(
          [
            { name: "git", variables: { REPO_DIR: { secret: false } } },
            { name: "sh", variables: { SECRET_TOKEN: { secret: true } } },
          ],
          { REPO_DIR: repo, SECRET_TOKEN: SECRET },
        ),
        maxOutputBytes: 10_000,
        roots: [repo, scratch],
      }),
    },
  });
});

afterAll(async () => {
  await rm(repo, { recursive: true, force: true });
  await rm(scratch, { recursive: true, force: true });
});

describe("exec backend", () => {
  it("runs git with arguments templated from the input (array input expands to several args)", async () => {
    const res = await gateway.call({ tool: "git.log", args: { repo, count: 2 } }, caller);
    expect(res.result).toEqual({ text: "third: touch a\nsecond commit" });
    const onlyA = await gateway.call({ tool: "git.log", args: { repo, paths: ["a.txt"] } }, caller);
    expect(onlyA.result).toEqual({ text: "third: touch a\nfirst commit" });
  });

  it("passes input as data, never through a shell", async () => {
    const res = await gateway.call({ tool: "git.log", args: { repo, count: 1, paths: ["$(touch pwned)", "; rm -rf ."] } }, caller);
    expect(res.result).toEqual({ text: "" });
    expect(git("status", "--porcelain")).toBe("");
  });

  it("runs in the configured cwd (with ${VAR})", async () => {
    const res = await gateway.call({ tool: "git.toplevel", args: {} }, caller);
    expect((res.result as { text: string }).text.trim()).toBe(execFileSync("git", ["-C", repo, "rev-parse", "--show-toplevel"], { encoding: "utf8" }).trim());
  });

  it("parses output: json and checks it against output_schema", async () => {
    await expect(gateway.call({ tool: "git.count_json", args: { repo } }, caller)).resolves.toMatchObject({ result: 3 });
  });

  it("turns output: json that is not JSON into 502 UPSTREAM_BAD_OUTPUT", async () => {
    await expect(gateway.call({ tool: "git.log_as_json", args: { repo } }, caller)).rejects.toMatchObject({ code: "UPSTREAM_BAD_OUTPUT", status: 502 });
  });

  it("captures stderr on a non-zero exit as a structured error (a repo that is not there: the caller's 404, not 502); git's stderr goes to the cause (the log), not the details", async () => {
    const err = await gateway.call({ tool: "git.log", args: { repo: join(scratch, "not-a-repo") } }, caller).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "UPSTREAM_NOT_FOUND", status: 404, details: { exit_code: 128 } });
    expect((err as { details: object }).details).not.toHaveProperty("stderr");
    expect((err as { cause: Error }).cause.message).toMatch(/not a git repository|cannot change to/);
  });

  it("sets env with ${VAR} and input templates; secrets are redacted from output and errors", async () => {
    await expect(gateway.call({ tool: "sh.env", args: { mode: "fast" } }, caller)).resolves.toMatchObject({ result: { t: "[redacted]", m: "mode-fast" } });
    const err = await gateway.call({ tool: "sh.fail_secret", args: {} }, caller).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "UPSTREAM_ERROR", details: { exit_code: 3 } });
    expect(JSON.stringify({ m: (err as Error).message, d: (err as { details: unknown }).details })).not.toContain(SECRET);
  });

  it("kills the whole process tree on timeout and answers 504", async () => {
    const pidfile = join(scratch, "grandchild.pid");
    await expect(gateway.call({ tool: "sh.tree", args: { pidfile } }, caller)).rejects.toMatchObject({ code: "UPSTREAM_TIMEOUT", status: 504 });
    const pid = Number(await readFile(pidfile, "utf8"));
    expect(pid).toBeGreaterThan(0);
    // SIGKILL is delivered asynchronously; poll (bounded) rather than assert a time.
    let gone = false;
    for (let i = 0; i < 100 && !gone; i++) {
      gone = !(await alive(pid));
      if (!gone) await new Promise((r) => setTimeout(r, 20));
    }
    expect(gone).toBe(true);
  });

  it("caps stdout", async () => {
    await expect(gateway.call({ tool: "sh.flood", args: {} }, caller)).rejects.toMatchObject({ code: "UPSTREAM_BAD_OUTPUT", details: { max_bytes: 10_000 } });
  });

  it("reports a command that cannot start", async () => {
    await expect(gateway.call({ tool: "sh.no_such_command", args: {} }, caller)).rejects.toMatchObject({
      code: "UPSTREAM_ERROR",
      message: expect.stringContaining("ENOENT"),
    });
  });
});
