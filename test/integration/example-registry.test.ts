// The example registry (`registry/`): what `npm start` serves and what people search first.
// It must parse with the contract's schemas, check clean, be honest about governance, and every
// example tool must really answer: each http and exec tool (and two mcp tools) is called through the
// real call gateway and backends against the demo service, server-everything and a temp git repo.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { accessSync, constants, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Ajv2020 } from "ajv/dist/2020.js";
import { parse as parseYaml } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildRegistryArtifact } from "../../build/build.js";
import { loadPolicy, loadRegistry } from "../../build/load.js";
import { loadArtifact, type Artifact } from "../../lambdas/artifact.js";
import { createBackends } from "../../lambdas/backends/index.js";
import type { McpBackend } from "../../lambdas/backends/mcp.js";
import { createCallGateway, type CallGateway } from "../../lambdas/core/call/gateway.js";
import { ToolbeltError } from "../../lambdas/core/errors.js";
import { createFinder } from "../../lambdas/core/find/index.js";
import type { Finder } from "../../lambdas/core/find/types.js";
import { globMatcher } from "../../registry/contract/globs.js";
import { startDemoService, type DemoService } from "../../dev/demo-service/index.js";
import { cli } from "./registry/cli-helpers.js";
import { aboutExample, EXAMPLE_FAMILIES, EXAMPLE_REGISTRY, exampleArtifact, isExampleFamily, isExampleTool } from "../helpers/example-registry.js";
import { startEverything, type Everything } from "../../lambdas/local/everything.js";
import type { CatalogTool } from "../../registry/contract/artifact.js";
import { BriefFile } from "../../registry/contract/brief.js";
import { FamiliesFile } from "../../registry/contract/family.js";
import { canonicalName } from "../../registry/contract/names.js";
import { PolicyFile } from "../../registry/contract/policy.js";
import { SnapshotFile } from "../../registry/contract/snapshot.js";
import { TOOL_KINDS, ToolFile, type ToolDef } from "../../registry/contract/tool.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const REGISTRY = EXAMPLE_REGISTRY;
const readYaml = (rel: string): unknown => parseYaml(readFileSync(join(REGISTRY, rel), "utf8"));

type Schema = { properties?: Record<string, { description?: string; examples?: unknown[]; default?: unknown }>; required?: string[] };
type Entry = { full: string; family: string; file: string; kind: string; def?: ToolDef };

// ---------- the files, read with the contract's zod schemas ----------

// Only the families the project ships (test/helpers/example-registry.ts): one added in a copy is not ours to test.
const listed = FamiliesFile.parse(readYaml("families.yaml"));
const listedOrder = listed.families.map((f) => f.name);
const families = { ...listed, families: listed.families.filter((f) => isExampleFamily(f.name)) };
const entries: Entry[] = [];
for (const fam of families.families) {
  const src = fam.source;
  if ("tools" in src) {
    for (const f of readdirSync(join(REGISTRY, src.tools))
      .filter((n) => /\.ya?ml$/.test(n))
      .sort()) {
      const file = `${src.tools}/${f}`;
      for (const def of ToolFile.parse(readYaml(file)).tools) entries.push({ full: `${fam.name}.${def.name}`, family: fam.name, file, kind: def.kind, def });
    }
  } else if ("mcp" in src) {
    const snap = SnapshotFile.parse(JSON.parse(readFileSync(join(REGISTRY, src.mcp.snapshot), "utf8")));
    for (const t of snap.tools) entries.push({ full: `${fam.name}.${t.name}`, family: fam.name, file: src.mcp.snapshot, kind: "mcp" });
  }
}
const defined = entries.filter((e): e is Entry & { def: ToolDef } => e.def !== undefined);
const EXAMPLE_BRIEFS = ["code-review", "note-taking", "travel-planning"];
const briefFiles = readdirSync(join(REGISTRY, "briefs")).filter((n) => /\.ya?ml$/.test(n));

function onPath(command: string): boolean {
  return (process.env.PATH ?? "").split(delimiter).some((dir) => {
    try {
      accessSync(join(dir, command), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

describe("example registry files", () => {
  it("regression (issue #10): reads the families the project ships, each of them, and nothing added beside them", () => {
    expect(families.families.map((f) => f.name)).toEqual(EXAMPLE_FAMILIES);
  });

  it("has at least 8 families and 60 tools, every kind, and unique names", () => {
    expect(families.families.length).toBeGreaterThanOrEqual(8);
    expect(entries.length).toBeGreaterThanOrEqual(60);
    const kinds = new Set(entries.map((e) => e.kind));
    expect([...kinds].sort()).toEqual([...TOOL_KINDS].sort());
    const canon = entries.map((e) => canonicalName(e.full));
    expect(canon.filter((c, i) => canon.indexOf(c) !== i)).toEqual([]);
    expect(families.always_loaded).toEqual(["toolbelt.reshape"]);
    expect(families.families.filter((f) => !f.required).map((f) => f.name)).toEqual(["diagnostics"]);
  });

  it("runs every exec tool's command from this machine's PATH", () => {
    const commands = [...new Set(defined.flatMap((e) => (e.def.kind === "exec" ? [e.def.command] : [])))].sort();
    expect(commands).toContain("git");
    expect(commands.filter((c) => !onPath(c))).toEqual([]);
  });

  it("describes every family and tool in one sentence", () => {
    const oneSentence = (s: string) => /^[A-Z].*\.$/.test(s) && !/[.!?]\s+[A-Z]/.test(s) && !s.includes("\n");
    expect(families.families.filter((f) => !oneSentence(f.description)).map((f) => f.name)).toEqual([]);
    expect(defined.filter((e) => !oneSentence(e.def.description)).map((e) => e.full)).toEqual([]);
  });

  // Documented parameters, examples for required ones, declared governance, templates that name
  // declared inputs and optional exec inputs with defaults are registry:check rules now (codes
  // PARAM_UNDOCUMENTED, REQUIRED_WITHOUT_EXAMPLE, GOVERNANCE_UNDECLARED, TEMPLATE_REFERENCE,
  // OPTIONAL_INPUT_EMBEDDED), so every registry is held to them by the tool; "loads with no diagnostic
  // at all" below holds the example registry to them.

  it("declares governance truthfully: exec and GET are read-only, writes to records are consequential, deletes destructive", () => {
    const problems: string[] = [];
    for (const e of defined) {
      const d = e.def;
      if (d.read_only && (d.destructive || d.consequential)) problems.push(`${e.full}: read_only with a write declaration`);
      if (d.consequential && !((d.input_schema ?? {}) as Schema).required?.includes(d.affects ?? "")) problems.push(`${e.full}: affects is not required`);
      if (d.kind === "exec" && d.read_only !== true) problems.push(`${e.full}: exec families are read-only`);
      if (d.kind === "http") {
        if (d.method === "GET" && d.read_only !== true) problems.push(`${e.full}: GET but not read_only`);
        if (d.method === "DELETE" && !(d.destructive && d.consequential)) problems.push(`${e.full}: DELETE not destructive and consequential`);
        const writesRecords = /\/(notes|kv)\b/.test(d.url) && d.method !== "GET";
        if (writesRecords && (d.read_only || (!d.consequential && !d.url.endsWith("/notes"))))
          problems.push(`${e.full}: changes a record but is not declared so`);
      }
    }
    expect(problems).toEqual([]);
  });

  it("keeps secrets in ${ENV} references, with one tool sending the demo service's bearer token", () => {
    const headers = defined.flatMap((e) => (e.def.kind === "http" ? Object.entries(e.def.headers ?? {}).map(([k, v]) => ({ tool: e.full, k, v })) : []));
    expect(headers.filter((h) => !/\$\{[A-Z_]+\}/.test(h.v))).toEqual([]);
    expect(
      headers
        .filter((h) => h.k === "Authorization" && h.v === "Bearer ${DEMO_SERVICE_TOKEN}")
        .map((h) => h.tool)
        .sort(),
    ).toEqual(["diagnostics.whoami", "notes.delete"]);
    const urls = defined.flatMap((e) => (e.def.kind === "http" ? [e.def.url] : []));
    expect(urls.filter((u) => !u.startsWith("${DEMO_SERVICE_URL}/"))).toEqual([]);
  });

  it("parses the briefs and the example policy, whose globs all name real tools", async () => {
    const names = entries.map((e) => e.full);
    const briefs = briefFiles.map((f) => BriefFile.parse(readYaml(`briefs/${f}`))).filter((b) => EXAMPLE_BRIEFS.includes(b.name));
    expect(briefs.map((b) => b.name).sort()).toEqual(EXAMPLE_BRIEFS);
    for (const b of briefs) for (const glob of b.tools) expect(names.filter(globMatcher([glob])), `${b.name}: ${glob}`).not.toEqual([]);

    const policy = PolicyFile.parse(readYaml("policy.example.yaml"));
    const dev = policy.principals.find((p) => p.id === "local-dev");
    expect(dev?.keys).toEqual([createHash("sha256").update("dev-key").digest("hex")]);
    const reader = policy.principals.find((p) => p.id === "reader-agent")!;
    const readerMay = (n: string) => globMatcher(reader.allow)(n) && !globMatcher(reader.deny)(n);
    expect(readerMay("git.log")).toBe(true);
    expect(readerMay("notes.delete")).toBe(false);
    expect(readerMay("everything.get-env")).toBe(false);
    // The build's own policy check: unknown principals' globs come back as warnings.
    const checked = await loadPolicy(REGISTRY, { file: "policy.example.yaml", toolNames: names });
    expect(checked.diagnostics).toEqual([]);
  });
});

describe("example registry in an editor", () => {
  it("names the published JSON Schema in each file's modeline, and validates against it", () => {
    const files = ["families.yaml", "policy.example.yaml", ...briefFiles.map((f) => `briefs/${f}`), ...[...new Set(defined.map((e) => e.file))]];
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    const problems: string[] = [];
    for (const file of files) {
      const text = readFileSync(join(REGISTRY, file), "utf8");
      const ref = /^# yaml-language-server: \$schema=(\S+)$/m.exec(text)?.[1];
      if (!ref) {
        problems.push(`${file}: no yaml-language-server modeline`);
        continue;
      }
      const schema = JSON.parse(readFileSync(join(REGISTRY, file, "..", ref), "utf8")) as object;
      if (!ajv.validate(schema, parseYaml(text))) problems.push(`${file}: ${ajv.errorsText()}`);
    }
    expect(problems).toEqual([]);
  });
});

describe("example registry through the build", () => {
  it("loads with no diagnostic at all, briefs included", async () => {
    const reg = await loadRegistry(REGISTRY);
    expect(reg.diagnostics.filter((d) => aboutExample(d, listedOrder))).toEqual([]);
    expect(reg.ok).toBe(true);
    expect(
      reg.catalog.tools
        .map((t) => t.name)
        .filter(isExampleTool)
        .sort(),
    ).toEqual(entries.map((e) => e.full).sort());
    expect(reg.briefs.map((b) => b.name).sort()).toEqual(expect.arrayContaining(EXAMPLE_BRIEFS));
  });

  it("passes `registry:check` (exit 0)", async () => {
    const r = await cli(["check", "--registry", "registry"]);
    expect(r.stdout, r.stderr).toContain("registry OK");
    expect(r.code).toBe(0);
  });

  it("builds an artifact the Lambdas load from disk, with every kind and at least 8 families and 60 tools", async () => {
    const out = mkdtempSync(join(tmpdir(), "toolbelt-example-"));
    try {
      const result = await buildRegistryArtifact(REGISTRY, out);
      expect(result.ok).toBe(true);
      const artifact = loadArtifact(out);
      expect(artifact.families.map((f) => f.name)).toEqual(expect.arrayContaining([...EXAMPLE_FAMILIES]));
      expect(artifact.manifest.counts.families).toBeGreaterThanOrEqual(8);
      expect(artifact.manifest.counts.tools).toBeGreaterThanOrEqual(60);
      const kinds = new Set(artifact.tools.map((t) => t.kind));
      for (const kind of ["http", "mcp", "exec", "builtin"]) expect(kinds, kind).toContain(kind);
      expect(artifact.byName.get("toolbelt.find")?.kind).toBe("builtin");
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});

// ---------- every tool really answers ----------

const PACKAGE_JSON = '{ "name": "demo", "version": "1.0.0" }\n';

/** A small repository with two commits and a tag, so the git tools have something to show. */
function makeRepo(): string {
  const dir = mkdtempSync(join(tmpdir(), "toolbelt-example-repo-"));
  const git = (...args: string[]) =>
    execFileSync("git", ["-C", dir, "-c", "user.name=Ada Example", "-c", "user.email=ada@example.com", ...args], { stdio: "pipe" });
  git("init", "-q", "-b", "main");
  mkdirSync(join(dir, "src"));
  writeFileSync(join(dir, "package.json"), '{ "name": "demo" }\n');
  writeFileSync(join(dir, "src", "app.ts"), "startDemoService();\n");
  git("add", ".");
  git("commit", "-q", "-m", "first commit");
  writeFileSync(join(dir, "package.json"), PACKAGE_JSON);
  git("commit", "-q", "-am", "second commit");
  git("tag", "v1.0");
  return dir;
}

describe("every example tool really answers", () => {
  let demo: DemoService;
  let everything: Everything;
  let repo: string;
  let artifact: Artifact;
  let finder: Finder;
  let mcp: McpBackend;
  let gateway: CallGateway;
  const caller = { principal: "example-test", admin: false, granted: () => true };

  beforeAll(async () => {
    repo = makeRepo();
    demo = await startDemoService({ port: 0 });
    // A minimal environment (the module's rule): the upstream's get-env tool must not see the demo service's token.
    everything = await startEverything();
    artifact = await exampleArtifact();
    finder = createFinder(artifact);
    const env = { ...process.env, DEMO_SERVICE_URL: demo.url, DEMO_SERVICE_TOKEN: demo.token, EVERYTHING_MCP_URL: everything.url };
    const b = createBackends({ env, families: artifact.families, finder, fileRoots: [ROOT, repo] });
    mcp = b.mcp;
    gateway = createCallGateway({ tools: artifact.byName, backends: b.backends });
  });

  afterAll(async () => {
    await mcp?.close();
    await everything?.close();
    await demo?.close();
    if (repo) rmSync(repo, { recursive: true, force: true });
  });

  /** Each property's first example; git tools point at the temp repository. */
  const exampleArgs = (t: CatalogTool): Record<string, unknown> => {
    const args: Record<string, unknown> = {};
    for (const [k, p] of Object.entries((t.input_schema as Schema).properties ?? {})) if (p.examples?.length) args[k] = p.examples[0];
    if (t.family === "git") args.repo = repo;
    return args;
  };
  const call = (tool: string, args: Record<string, unknown> = {}) => gateway.call({ tool, args }, caller);
  const failure = async (p: Promise<unknown>): Promise<ToolbeltError> => {
    try {
      await p;
    } catch (e) {
      if (e instanceof ToolbeltError) return e;
      throw e;
    }
    throw new Error("expected the call to fail");
  };

  const EXPECTED_FAILURES: Record<string, string> = { "diagnostics.fail": "UPSTREAM_ERROR", "diagnostics.malformed": "UPSTREAM_BAD_OUTPUT" };

  it("calls every http and exec tool with its schema's examples", async () => {
    // Records are made before they are read and deleted last, as an agent would.
    const rank = (n: string) => (/\.(create|set)$/.test(n) ? 0 : /\.delete$/.test(n) ? 2 : 1);
    const tools = artifact.tools
      .filter((t) => t.kind === "http" || t.kind === "exec")
      .sort((a, b) => rank(a.name) - rank(b.name) || (a.name < b.name ? -1 : 1));
    expect(tools.length).toBeGreaterThanOrEqual(60);
    const outcomes: Record<string, string> = {};
    for (const t of tools) {
      try {
        await call(t.name, exampleArgs(t));
        outcomes[t.name] = "ok";
      } catch (e) {
        outcomes[t.name] = e instanceof ToolbeltError ? `${e.code}: ${e.message}` : String(e);
      }
    }
    const expected = Object.fromEntries(tools.map((t) => [t.name, EXPECTED_FAILURES[t.name] ?? "ok"]));
    const got = Object.fromEntries(
      Object.entries(outcomes).map(([n, o]) => [n, EXPECTED_FAILURES[n] && o.startsWith(EXPECTED_FAILURES[n]) ? EXPECTED_FAILURES[n] : o]),
    );
    expect(got).toEqual(expected);
  });

  it("answers the questions people ask first with the right tool", async () => {
    const top = async (query: string) => (await finder.find({ query, limit: 3, schemas: false })).tools.map((t) => t.name);
    expect((await top("show recent commits"))[0]).toBe("git.log");
    expect((await top("convert celsius to fahrenheit"))[0]).toBe("convert.temperature");
    expect((await top("add a note"))[0]).toBe("notes.create");
    expect((await top("what time is it in Tokyo"))[0]).toBe("time.now");
    for (const [q, tool] of [
      ["delete a note", "notes.delete"],
      ["who changed this line", "git.blame"],
      ["count words in a text", "text.word_count"],
      ["miles to km", "convert.units"],
      ["average of numbers", "math.statistics"],
      ["store a value under a key", "kv.set"],
      ["generate a uuid", "random.uuid"],
      ["uncommitted changes", "git.status"],
      ["days between two dates", "time.difference"],
    ] as const) {
      expect(await top(q), q).toContain(tool);
    }
    expect((await finder.find({ query: "book a flight to Lisbon" })).verdict).toBe("none");
  });

  it("gives real answers: Tokyo time, 100 °C in °F, git history, file facts", async () => {
    const tokyo = (await call("time.now", { zone: "Tokyo" })).result as { zone: string; utc_offset: string };
    expect(tokyo).toMatchObject({ zone: "Asia/Tokyo", utc_offset: "+09:00" });
    expect(((await call("convert.temperature", { value: 100, from: "C", to: "F" })).result as { result: number }).result).toBe(212);
    const log = ((await call("git.log", { repo })).result as { text: string }).text;
    expect(log.split("\n").map((l) => l.split("\t")[3])).toEqual(["second commit", "first commit"]);
    expect((await call("git.count_commits", { repo })).result).toBe(2);
    expect(((await call("git.tags", { repo })).result as { text: string }).text).toMatch(/^v1\.0\t/);
    const stat = (await call("files.stat", { path: join(repo, "package.json") })).result as { size_bytes: number; type: string };
    expect(stat).toMatchObject({ size_bytes: Buffer.byteLength(PACKAGE_JSON), type: "regular file" });
    expect((await call("system.cpu_count")).result as number).toBeGreaterThanOrEqual(1);
  });

  it("keeps notes through the service, deleting with the bearer token from the environment", async () => {
    const note = (await call("notes.create", { title: "Trip", body: "pack", tags: ["travel"] })).result as { id: string };
    await call("notes.append", { id: note.id, text: "passport" });
    const found = (await call("notes.search", { query: "passport" })).result as { notes: { id: string; body: string }[] };
    expect(found.notes).toEqual([expect.objectContaining({ id: note.id, body: "pack\npassport" })]);
    expect((await call("notes.delete", { id: note.id })).result).toMatchObject({ deleted: true, id: note.id });
    expect(await failure(call("notes.get", { id: note.id }))).toMatchObject({ code: "UPSTREAM_NOT_FOUND", details: { status: 404 } });
    expect((await call("diagnostics.whoami")).result).toEqual({ authenticated: true, scheme: "bearer" });
  });

  it("refuses an option-like revision or path before anything runs", async () => {
    const e = await failure(call("git.log", { repo, rev: "--output=/tmp/owned" }));
    expect(e.code).toBe("INVALID_ARGUMENTS");
    expect((await failure(call("files.find", { path: "-delete", name: "*" }))).code).toBe("INVALID_ARGUMENTS");
  });

  // Failures the caller's input caused once came back as 502 UPSTREAM_ERROR or OUTPUT_SCHEMA_MISMATCH.
  it("caller-caused failures came back as 502: a NUL byte in a path, an overflowing number, a missing key, a search with no match", async () => {
    const cases: [string, Record<string, unknown>, string, number][] = [
      ["files.read_head", { path: join(repo, "package\u0000.json") }, "INVALID_ARGUMENTS", 422],
      ["convert.units", { value: 1e308, from: "km", to: "mm" }, "UPSTREAM_REJECTED_INPUT", 422],
      ["math.evaluate", { expression: "10^400" }, "UPSTREAM_REJECTED_INPUT", 422],
      ["kv.get", { key: "no-such-key" }, "UPSTREAM_NOT_FOUND", 404],
      ["files.search", { pattern: "no line says this", path: repo }, "UPSTREAM_NOT_FOUND", 404],
      ["git.grep", { repo, pattern: "no line says this" }, "UPSTREAM_NOT_FOUND", 404],
    ];
    for (const [tool, args, code, status] of cases) {
      const e = await failure(call(tool, args));
      expect([tool, e.code, e.status], e.message).toEqual([tool, code, status]);
    }
    // The upstream's own failures stay 502.
    expect((await failure(call("diagnostics.fail", {}))).status).toBe(502);
  });

  it("reaches the MCP upstream and the builtins", async () => {
    expect(JSON.stringify((await call("everything.echo", { message: "hello from toolbelt" })).result)).toContain("hello from toolbelt");
    expect(JSON.stringify((await call("everything.get-sum", { a: 2, b: 40 })).result)).toContain("42");
    const found = (await call("toolbelt.find", { query: "show recent commits", limit: 3 })).result as { tools: { name: string }[] };
    expect(found.tools[0]?.name).toBe("git.log");
    const nested = (await call("toolbelt.call", { tool: "math.evaluate", args: { expression: "6 * 7" } })).result as { result: unknown };
    expect(nested.result).toEqual({ expression: "6 * 7", result: 42 });
    const shaped = await call("toolbelt.reshape", {
      data: { notes: [{ id: "n1", title: "Groceries" }], count: 1 },
      mapping: { first: "notes[0].title", n: "/count" },
    });
    expect(shaped.result).toEqual({ first: "Groceries", n: 1 });
  });

  it("times out diagnostics.slow past its declared 3 seconds", async () => {
    const e = await failure(call("diagnostics.slow", { ms: 10_000 }));
    expect(e.code).toBe("UPSTREAM_TIMEOUT");
    expect(e.details.timeout_ms).toBe(3000);
  });
});
