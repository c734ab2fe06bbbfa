// File roots, issue 24: a dangling symlink inside a root let a path-creating tool write outside the
// roots (the check took the failing realpath for "a path still to be created"), and a root could
// reach the gateway's own files (data directory, artifact, policy, key file). Real temp directories
// and symlinks, through the real backends (createBackends) and once through POST /v1/call.
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBackends } from "../../../lambdas/backends/index.js";
import { createFileRoots, MAX_SYMLINK_HOPS, realPathOf } from "../../../lambdas/backends/roots.js";
import { createCallGateway, type CallGateway } from "../../../lambdas/core/call/gateway.js";
import { createCallModule, type CallModule } from "../../../lambdas/http/routes/call.js";
import type { CatalogTool } from "../../../registry/contract/artifact.js";
import { startTestApi, type TestApi } from "../../helpers/api.js";
import { testArtifactInput } from "../../helpers/artifact.js";
import { callerFor, catalogTool, metaTools } from "./helpers.js";

const caller = callerFor("roots-links-test", "*");
const CANARY = "canary-gateway-internal-3b9d";
let scratch: string;
/** The one root, standing for the project directory `npm start` serves by default. */
let root: string;
let outside: string;
/** The gateway's own files, inside the root as with `npm start`. */
let internal: { dataDir: string; artifactDir: string; policy: string; keyFile: string };

const pathInput = { type: "object", properties: { path: { type: "string" } }, required: ["path"] };
/** A tool that creates the file it is given, as a registry's `touch` does; and one that reads it. */
const tools = (): CatalogTool[] => [
  catalogTool("scratch.touch", { kind: "exec", command: "touch", args: ["{{input.path}}"], paths: ["path"], output: "text" }, { input_schema: pathInput }),
  catalogTool(
    "scratch.read",
    { kind: "exec", command: "head", args: ["-c", "4096", "{{input.path}}"], paths: ["path"], output: "text" },
    { input_schema: pathInput },
  ),
  catalogTool(
    "scratch.git_log",
    { kind: "exec", command: "git", args: ["-C", "{{input.path}}", "log", "--oneline"], paths: ["path"], output: "text" },
    { input_schema: pathInput },
  ),
];

function gatewayFor(deniedPaths?: string[]): CallGateway {
  const { backends } = createBackends({ env: { PATH: process.env.PATH }, families: [], fileRoots: [root], ...(deniedPaths ? { deniedPaths } : {}) });
  return createCallGateway({ tools: new Map(tools().map((t) => [t.name, t])), backends });
}
const allInternal = () => Object.values(internal);

/** What a caller sees of a call: the result, or the error's code, status and message. */
const outcome = (p: Promise<unknown>) =>
  p.then(
    () => ({ code: "OK" }) as { code?: string; status?: number; message?: string },
    (e: { code?: string; status?: number; message?: string }) => ({ code: e.code, status: e.status, message: e.message }),
  );

beforeAll(() => {
  scratch = realpathSync(mkdtempSync(join(tmpdir(), "toolbelt-roots-links-")));
  root = join(scratch, "project");
  outside = join(scratch, "outside");
  mkdirSync(root);
  mkdirSync(outside);
  writeFileSync(join(root, "notes.txt"), "inside the root\n");
  internal = {
    dataDir: join(root, ".toolbelt", "data"),
    artifactDir: join(root, "dist", "artifact"),
    policy: join(root, "registry", "policy.yaml"),
    keyFile: join(root, ".toolbelt", "local-key"),
  };
  mkdirSync(internal.dataDir, { recursive: true });
  mkdirSync(internal.artifactDir, { recursive: true });
  mkdirSync(join(root, "registry"));
  writeFileSync(join(internal.dataDir, "table.ldb"), `${CANARY}\n`);
  writeFileSync(join(internal.artifactDir, "manifest.json"), `{"note":"${CANARY}"}\n`);
  writeFileSync(internal.policy, `# ${CANARY}\n`);
  writeFileSync(internal.keyFile, `${CANARY}\n`);
  // Dangling links: to a file to be created outside, to a missing directory outside, to a missing file inside, a chain, a loop.
  symlinkSync(join(outside, "created-by-touch"), join(root, "dangling-out"));
  symlinkSync("../outside/relative-created", join(root, "dangling-out-relative"));
  symlinkSync(join(outside, "no-such-dir"), join(root, "dangling-dir-out"));
  symlinkSync("missing-inside.txt", join(root, "dangling-in"));
  symlinkSync("dangling-out", join(root, "chain-1"));
  symlinkSync("chain-1", join(root, "chain-2"));
  symlinkSync("loop-b", join(root, "loop-a"));
  symlinkSync("loop-a", join(root, "loop-b"));
  // Links inside the root to the gateway's own files.
  symlinkSync(internal.keyFile, join(root, "key-link"));
  symlinkSync(join(internal.dataDir, "new-record"), join(root, "data-link-dangling"));
});

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("a dangling symlink inside a root (regression: `touch` created a file outside the roots)", () => {
  it("refuses to create through a dangling link pointing outside, absolute or relative, direct or chained: 403, nothing created", async () => {
    const gateway = gatewayFor();
    for (const link of ["dangling-out", "dangling-out-relative", "chain-2", "dangling-dir-out/file"]) {
      const out = await outcome(gateway.call({ tool: "scratch.touch", args: { path: join(root, link) } }, caller));
      expect({ link, ...out }).toMatchObject({ link, code: "PATH_OUTSIDE_ROOTS", status: 403, message: expect.stringContaining("is outside the file roots") });
    }
    expect(existsSync(join(outside, "created-by-touch"))).toBe(false);
    expect(existsSync(join(outside, "relative-created"))).toBe(false);
  });

  it("answers 404 UPSTREAM_NOT_FOUND, not 502, to reading a dangling link whose target inside the root does not exist", async () => {
    const out = await outcome(gatewayFor().call({ tool: "scratch.read", args: { path: join(root, "dangling-in") } }, caller));
    expect(out).toMatchObject({ code: "UPSTREAM_NOT_FOUND", status: 404 });
  });

  it("creates the target of a dangling link that stays inside the root (the command is handed the target)", async () => {
    await gatewayFor().call({ tool: "scratch.touch", args: { path: join(root, "dangling-in") } }, caller);
    expect(existsSync(join(root, "missing-inside.txt"))).toBe(true);
    rmSync(join(root, "missing-inside.txt"));
  });

  it("refuses a symlink loop with 403 naming the link count, and realPathOf follows relative targets from the link's directory", async () => {
    const out = await outcome(gatewayFor().call({ tool: "scratch.touch", args: { path: join(root, "loop-a") } }, caller));
    expect(out).toMatchObject({ code: "PATH_OUTSIDE_ROOTS", message: expect.stringContaining(`more than ${MAX_SYMLINK_HOPS} symbolic links`) });
    expect(await realPathOf(join(root, "dangling-out-relative"))).toBe(join(outside, "relative-created"));
    expect(await realPathOf(join(root, "chain-2"))).toBe(join(outside, "created-by-touch"));
    expect(await realPathOf(join(root, "dangling-dir-out", "a", "b"))).toBe(join(outside, "no-such-dir", "a", "b"));
  });
});

describe("the gateway's own files are never inside a root (data directory, artifact, policy, key file)", () => {
  it("refuses reads and writes under each of them with 403 saying it is gateway-internal, directly, by `..` and through a link", async () => {
    const gateway = gatewayFor(allInternal());
    const asked: [string, string][] = [
      ["scratch.read", join(internal.dataDir, "table.ldb")],
      ["scratch.touch", join(internal.dataDir, "injected")],
      ["scratch.read", join(internal.artifactDir, "manifest.json")],
      ["scratch.read", internal.policy],
      ["scratch.read", internal.keyFile],
      ["scratch.read", join(root, "registry", "..", ".toolbelt", "local-key")],
      ["scratch.read", join(root, "key-link")],
      ["scratch.touch", join(root, "data-link-dangling")],
      ["scratch.git_log", internal.dataDir],
    ];
    for (const [tool, path] of asked) {
      const out = await outcome(gateway.call({ tool, args: { path } }, caller));
      expect({ tool, path, ...out }).toMatchObject({
        tool,
        path,
        code: "PATH_OUTSIDE_ROOTS",
        status: 403,
        message: expect.stringContaining("gateway-internal path"),
      });
      expect(out.message).not.toContain(CANARY);
    }
    expect(existsSync(join(internal.dataDir, "injected"))).toBe(false);
    expect(existsSync(join(internal.dataDir, "new-record"))).toBe(false);
  });

  it("keeps the rest of the root usable (npm start's default root is the project directory)", async () => {
    const gateway = gatewayFor(allInternal());
    const read = await gateway.call({ tool: "scratch.read", args: { path: join(root, "notes.txt") } }, caller);
    expect(read.result).toEqual({ text: "inside the root\n" });
    await gateway.call({ tool: "scratch.touch", args: { path: join(root, "dist", "other") } }, caller);
    expect(existsSync(join(root, "dist", "other"))).toBe(true);
  });

  it("compares by real path: a denied path named through a symlink is denied all the same, and a path outside the roots still says so", async () => {
    const viaLink = join(scratch, "project-link");
    symlinkSync(root, viaLink);
    const roots = createFileRoots([root], { deny: [join(viaLink, ".toolbelt")] });
    const what = { tool: "t.x", input: "path" };
    await expect(roots.confine(internal.keyFile, root, what)).rejects.toMatchObject({
      code: "PATH_OUTSIDE_ROOTS",
      message: expect.stringContaining("gateway-internal"),
    });
    await expect(roots.confine(join(outside, "x"), root, what)).rejects.toMatchObject({ message: expect.stringContaining("is outside the file roots") });
    expect(await roots.confine("notes.txt", root, what)).toBe(join(root, "notes.txt"));
  });
});

describe("POST /v1/call with a registry tool that creates a file", () => {
  let api: TestApi;
  let calls: CallModule;

  beforeAll(async () => {
    calls = createCallModule({
      env: {},
      backends: (deps) =>
        createBackends({ env: { PATH: process.env.PATH }, families: deps.artifact.families, fileRoots: [root], deniedPaths: allInternal() }).backends,
    });
    api = await startTestApi({ input: testArtifactInput([...metaTools(), ...tools()]), extraRoutes: [calls] });
  });
  afterAll(async () => {
    await calls?.close();
    await api?.close();
  });

  it("answers 403 for a dangling link out and for the data directory, creating nothing, and 200 inside the root", async () => {
    const touch = (path: string) => api.request("/v1/call", { json: { tool: "scratch.touch", args: { path } } });
    const out = await touch(join(root, "dangling-out"));
    expect(out.status).toBe(403);
    expect(await out.json()).toMatchObject({ error: { code: "PATH_OUTSIDE_ROOTS" } });
    const data = await touch(join(internal.dataDir, "via-rest"));
    expect(data.status).toBe(403);
    expect(JSON.stringify(await data.json())).toContain("gateway-internal path");
    expect(existsSync(join(outside, "created-by-touch"))).toBe(false);
    expect(existsSync(join(internal.dataDir, "via-rest"))).toBe(false);
    expect((await touch(join(root, "via-rest"))).status).toBe(200);
    expect(existsSync(join(root, "via-rest"))).toBe(true);
  });
});
