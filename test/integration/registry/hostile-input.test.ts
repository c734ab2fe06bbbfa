// Regression tests (issue 24): the registry tools read documents and servers anyone may control. An
// imported OpenAPI document must not make the importer read files or URLs, a pulled server's control
// and bidi characters must not reach a terminal or a generated file raw, and an oversized or deeply
// nested schema must be refused by name, never crash the pull or the check.
import { createServer, type Server } from "node:http";
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cli, ROOT, type CliResult } from "./cli-helpers.js";
import { startHostileUpstream, type HostileUpstream } from "./hostile-upstream.js";

/** What must never be printed or written raw: C0 but tab and newline, DEL, C1, bidi controls. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const SECRET = "s3cret-marker-9f8e7d";

const temps: string[] = [];
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  await Promise.all(closers.map((c) => c()));
  await Promise.all(temps.map((d) => rm(d, { recursive: true, force: true })));
});

async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `toolbelt-hostile-${prefix}-`));
  temps.push(dir);
  return dir;
}

async function registryCopy(): Promise<string> {
  const dir = await tempDir("reg");
  await cp(join(ROOT, "test/fixtures/registries/valid"), dir, { recursive: true });
  return dir;
}

/** Every file under `dir`, concatenated: where a leaked secret or a raw control character would be. */
async function allText(dir: string): Promise<string> {
  const files = (await readdir(dir, { recursive: true, withFileTypes: true })).filter((e) => e.isFile());
  return (await Promise.all(files.map((f) => readFile(join(f.parentPath, f.name), "utf8")))).join("\n");
}

/** A loopback server for documents: each path's body, and every path asked for. */
async function documentServer(bodies: Record<string, string>): Promise<{ url: string; asked: string[] }> {
  const asked: string[] = [];
  const server: Server = createServer((req, res) => {
    asked.push(req.url ?? "");
    const body = bodies[req.url ?? ""];
    if (body === undefined) res.writeHead(404).end();
    else res.writeHead(200, { "content-type": "application/json" }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, asked };
}

/** An OpenAPI 3.0 document with one GET operation whose only parameter is `parameter`. */
function openapi(parameter: unknown, info: Record<string, unknown> = { title: "Hostile", version: "1.0.0" }): string {
  return JSON.stringify({
    openapi: "3.0.3",
    info,
    paths: {
      "/items": { get: { operationId: "listItems", summary: "List the items.", parameters: [parameter], responses: { "200": { description: "ok" } } } },
    },
  });
}

function noStackTrace(r: CliResult): void {
  expect(r.stderr).not.toMatch(/\n\s+at /);
  expect(r.stderr).not.toMatch(/Maximum call stack/);
}

describe("registry:import-openapi with a hostile document (issue 24)", () => {
  it("regression: a $ref to file:// in a document fetched by URL is an error naming the ref and the operation, and the file is never read", async () => {
    const outside = await tempDir("outside");
    const secretFile = join(outside, "secret.json");
    await writeFile(secretFile, JSON.stringify({ name: "q", in: "query", description: SECRET, schema: { type: "string" } }));
    const ref = `file://${secretFile}`;
    const served = await documentServer({ "/openapi.json": openapi({ $ref: ref }) });
    const dir = await registryCopy();
    const r = await cli(["import-openapi", "--spec", `${served.url}/openapi.json`, "--family", "hostile", "--registry", dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`operation listItems of ${served.url}/openapi.json has the external $ref \`${ref}\``);
    noStackTrace(r);
    expect(await allText(dir)).not.toContain(SECRET);
    expect(await readdir(join(dir, "families"))).not.toContain("hostile");
  });

  it("regression: relative and http refs in a document on disk are refused too, and nothing is fetched", async () => {
    const root = await tempDir("relative");
    await mkdir(join(root, "outside"));
    await mkdir(join(root, "specs"));
    await writeFile(join(root, "outside/secret.json"), JSON.stringify({ name: "q", in: "query", description: SECRET, schema: { type: "string" } }));
    const served = await documentServer({ "/param.json": JSON.stringify({ name: "q", in: "query", description: SECRET }) });
    const relative = join(root, "specs/relative.json");
    const viaHttp = join(root, "specs/http.json");
    // The external ref sits in a component the operation reaches: the message still names the operation.
    const component = JSON.parse(openapi({ $ref: "#/components/parameters/Q" })) as Record<string, unknown>;
    component.components = { parameters: { Q: { $ref: "../outside/secret.json" } } };
    await writeFile(relative, JSON.stringify(component));
    await writeFile(viaHttp, openapi({ $ref: `${served.url}/param.json` }));
    const dir = await registryCopy();
    const runs = [
      await cli(["import-openapi", "--spec", relative, "--family", "relative", "--registry", dir]),
      await cli(["import-openapi", "--spec", viaHttp, "--family", "viahttp", "--registry", dir]),
    ];
    expect(runs.map((r) => r.code)).toEqual([1, 1]);
    expect(runs[0]!.stderr).toContain("operation listItems of");
    expect(runs[0]!.stderr).toContain("has the external $ref `../outside/secret.json`");
    expect(runs[1]!.stderr).toContain(`has the external $ref \`${served.url}/param.json\``);
    runs.forEach(noStackTrace);
    expect(served.asked).toEqual([]);
    expect(await allText(dir)).not.toContain(SECRET);
  });

  it("regression: a newline in info.version cannot end the generated file's header comment, and control characters are escaped everywhere", async () => {
    const root = await tempDir("header");
    const spec = join(root, "spec.json");
    const doc = JSON.parse(
      openapi(
        { name: "q", in: "query", description: "Query \u001b[2J\u202etext.", schema: { type: "string" } },
        { title: "Evil\u001b]0;pwned\u0007 API", version: "1.0\nextra: injected\n#", description: "Bidi \u202egnirts\u202c here." },
      ),
    ) as { paths: Record<string, Record<string, Record<string, unknown>>> };
    doc.paths["/items"]!.get!.summary = "List \u0000the\u009b items\u2066.";
    // A HEAD operation is left out and listed by its operationId on stdout.
    doc.paths["/items"]!.head = { operationId: "peek\u001b[31m", responses: { "200": { description: "ok" } } };
    await writeFile(spec, JSON.stringify(doc));
    const dir = await registryCopy();
    const r = await cli(["import-openapi", "--spec", spec, "--family", "evil", "--registry", dir]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(UNSAFE);
    expect(r.stdout).toContain("peek\\u001b[31m: HEAD is not a method");
    const generated = await readFile(join(dir, "families/evil/evil.yaml"), "utf8");
    const lines = generated.split("\n");
    // The header is the first three lines, all comments; the next line is the file's first key.
    expect(lines.slice(0, 3).every((l) => l.startsWith("# "))).toBe(true);
    expect(lines[3]).toBe("version: 1");
    expect(generated).not.toContain("\nextra: injected");
    expect(lines[1]).toContain("from Evil\\u001b]0;pwned\\u0007 API 1.0\\u000aextra: injected\\u000a# (OpenAPI 3.0.3)");
    expect(generated).not.toMatch(UNSAFE);
    expect(await readFile(join(dir, "families.yaml"), "utf8")).not.toMatch(UNSAFE);
    const check = await cli(["check", "--registry", dir]);
    expect(check.code).toBe(0);
  });
});

/** A tool entry of a tools/list answer whose input schema is `schemaJson`, raw JSON text. */
const toolsWithSchema = (name: string, schemaJson: string) =>
  JSON.stringify([{ name, description: "Nests deeply.", inputSchema: "@@" }]).replace('"@@"', schemaJson);
const nested = (levels: number) => `${'{"type":"object","properties":{"a":'.repeat(levels)}{"type":"string"}${"}}".repeat(levels)}`;
/** About 11 MB: one property whose description is long enough. */
const huge = () => JSON.stringify({ type: "object", properties: { a: { type: "string", description: "x".repeat(11 * 1024 * 1024) } } });

async function upstream(serverInfo: { name: string; version: string }, toolsJson: string): Promise<HostileUpstream> {
  const u = await startHostileUpstream(serverInfo, toolsJson);
  closers.push(u.close);
  return u;
}

describe("registry:pull and registry:check with a hostile MCP server (issue 24)", () => {
  it("regression: escape, bidi and NUL characters in server and tool names never reach stdout, families.yaml or the snapshot raw", async () => {
    const u = await upstream(
      { name: "evil\u001b[2J\u001b[31m\u202eserver", version: "1.0\u0000\n2" },
      JSON.stringify([
        { name: "ok", title: "T\u2067itle", description: "Reads \u001b[8mhidden\u001b[0m text\u202e.", inputSchema: { type: "object", properties: {} } },
        { name: "bad\u001b[31mname\u202e", description: "A bad name.", inputSchema: { type: "object", properties: {} } },
      ]),
    );
    const dir = await registryCopy();
    const pull = await cli(["pull", "--url", u.url, "--family", "evil", "--registry", dir]);
    expect(pull.stderr).toBe("");
    expect(pull.code).toBe(0);
    expect(pull.stdout).not.toMatch(UNSAFE);
    expect(pull.stdout).toContain("2 tools from evil\\u001b[2J\\u001b[31m\\u202eserver 1.0\\u0000\\u000a2 written to");
    expect(await readFile(join(dir, "families.yaml"), "utf8")).toContain("description: Tools of the MCP server evil\\u001b[2J\\u001b[31m\\u202eserver.");
    expect(await allText(dir)).not.toMatch(UNSAFE);
    // The bad name fails the name policy, and every output format of the check shows it escaped.
    for (const format of ["text", "github", "json"]) {
      const check = await cli(["check", "--registry", dir, "--format", format]);
      expect(check.code).toBe(1);
      expect(check.stdout).not.toMatch(UNSAFE);
      expect(check.stdout).toContain("BAD_NAME");
      if (format === "json") {
        const names = (JSON.parse(check.stdout) as { diagnostics: { tool?: string }[] }).diagnostics.map((d) => d.tool);
        expect(names).toContain("evil.bad\u001b[31mname\u202e");
      } else expect(check.stdout).toContain("bad\\u001b[31mname\\u202e");
    }
  });

  it("regression: a 3,000-level input schema makes registry:pull exit 1 naming the tool and field (it overflowed the stack), and writes nothing", async () => {
    const u = await upstream({ name: "deep", version: "1" }, toolsWithSchema("abyss", nested(3000)));
    const dir = await registryCopy();
    const r = await cli(["pull", "--url", u.url, "--family", "deep", "--registry", dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      "pull: tool `abyss` inputSchema: the schema is nested deeper than 32 levels (TOOLBELT_MAX_SCHEMA_DEPTH): flatten it, or raise the limit if an agent really needs it; nothing written\n",
    );
    noStackTrace(r);
    expect(await readdir(join(dir, "snapshots"))).toEqual(["everything.json"]);
  });

  it("regression: an 11 MB input schema makes registry:pull exit 1 naming the tool and field", async () => {
    const u = await upstream({ name: "wide", version: "1" }, toolsWithSchema("wide", huge()));
    const dir = await registryCopy();
    const r = await cli(["pull", "--url", u.url, "--family", "wide", "--registry", dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^pull: tool `wide` inputSchema: the schema is \d+ bytes as JSON, more than 65536 \(TOOLBELT_MAX_SCHEMA_BYTES\)/);
  });

  it("regression: snapshots with an 11 MB, a 400-level or a 3,000-level schema fail registry:check naming the tool and field (they passed, or said only `Maximum call stack size exceeded`)", async () => {
    const cases = [
      { schema: huge(), message: /the schema is \d+ bytes as JSON, more than 65536 \(TOOLBELT_MAX_SCHEMA_BYTES\)/ },
      { schema: nested(400), message: /the schema is nested deeper than 32 levels \(TOOLBELT_MAX_SCHEMA_DEPTH\)/ },
      { schema: nested(3000), message: /the schema is nested deeper than 32 levels \(TOOLBELT_MAX_SCHEMA_DEPTH\)/ },
    ];
    for (const { schema, message } of cases) {
      const dir = await registryCopy();
      const file = join(dir, "snapshots/everything.json");
      const snapshot = JSON.parse(await readFile(file, "utf8")) as { tools: { name: string; inputSchema: unknown }[] };
      snapshot.tools[0]!.inputSchema = "@@";
      await writeFile(file, JSON.stringify(snapshot).replace('"@@"', schema));
      const r = await cli(["check", "--registry", dir]);
      expect(r.code).toBe(1);
      noStackTrace(r);
      const line = r.stdout.split("\n").find((l) => l.includes("error SCHEMA_INVALID"));
      expect(line).toMatch(new RegExp(`everything\\.${snapshot.tools[0]!.name} \\$\\.tools\\[0\\]\\.inputSchema: ${message.source}`));
    }
  });

  it("takes the limits from --max-schema-bytes / --max-schema-depth, else TOOLBELT_MAX_SCHEMA_BYTES / TOOLBELT_MAX_SCHEMA_DEPTH", async () => {
    const dir = await registryCopy();
    const tight = await cli(["check", "--registry", dir], { TOOLBELT_MAX_SCHEMA_BYTES: "100" });
    expect(tight.code).toBe(1);
    expect(tight.stdout).toMatch(/more than 100 \(TOOLBELT_MAX_SCHEMA_BYTES\)/);
    const flagWins = await cli(["check", "--registry", dir, "--max-schema-bytes", "65536"], { TOOLBELT_MAX_SCHEMA_BYTES: "100" });
    expect(flagWins.code).toBe(0);
    const shallow = await cli(["check", "--registry", dir, "--max-schema-depth", "2"]);
    expect(shallow.stdout).toMatch(/nested deeper than 2 levels/);
    const bad = await cli(["check", "--registry", dir], { TOOLBELT_MAX_SCHEMA_DEPTH: "lots" });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^TOOLBELT_MAX_SCHEMA_DEPTH must be a positive whole number, got `lots`/);
  });
});
