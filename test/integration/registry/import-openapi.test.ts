// registry:import-openapi round trips: document → family → check clean → find → call against a loopback
// server built from the same document. Documents: GitHub's published description (@octokit/openapi, a
// subset), and two small ones written for these tests (OpenAPI 3.0 YAML, 3.1 JSON).
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { loadRegistry } from "../../../build/load.js";
import { createHttpBackend } from "../../../lambdas/backends/http.js";
import { familyViews } from "../../../lambdas/backends/variables.js";
import { createCallGateway } from "../../../lambdas/core/call/gateway.js";
import { createFinder } from "../../../lambdas/core/find/index.js";
import { memoryTestArtifact } from "../../helpers/artifact.js";
import { startOpenApiServer, type OpenApiServer, type Received } from "../../helpers/openapi-server.js";
import { callerFor, toolMap } from "../call/helpers.js";
import { freePort } from "../../../lambdas/local/ports.js";
import { cli, ROOT } from "./cli-helpers.js";

const PETSTORE = join(ROOT, "test/fixtures/openapi/petstore-3.0.yaml");
const NOTES = join(ROOT, "test/fixtures/openapi/notes-3.1.json");
const GITHUB = join(ROOT, "node_modules/@octokit/openapi/generated/api.github.com.json");
const TOKEN = "pet-token-5e6f7a8b";
const KEY = "pet-key-1a2b3c4d";

const temps: string[] = [];
const servers: OpenApiServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await Promise.all(temps.map((d) => rm(d, { recursive: true, force: true })));
});

async function registryCopy(from = "test/fixtures/registries/valid"): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "toolbelt-openapi-"));
  temps.push(dir);
  await cp(join(ROOT, from), dir, { recursive: true });
  return dir;
}

async function serve(doc: Record<string, unknown>, credentials: Record<string, string>, basePath = ""): Promise<OpenApiServer> {
  const s = await startOpenApiServer(doc, credentials, basePath);
  servers.push(s);
  return s;
}

/** The registry as the gateway serves it: check, artifact, finder, and calls through the http backend. */
async function gatewayOf(dir: string, env: Record<string, string>) {
  const reg = await loadRegistry(dir);
  const { families, tools } = reg.catalog;
  const finder = createFinder(await memoryTestArtifact({ families, tools, always_loaded: reg.alwaysLoaded }));
  const gateway = createCallGateway({ tools: toolMap(tools), backends: { http: createHttpBackend({ views: familyViews(families, env) }) } });
  const caller = callerFor("agent", "*");
  return {
    // The documents leave some parameters without a description or an example: the check says so in
    // convention warnings (it should); anything else would be a problem of the import.
    diagnostics: reg.diagnostics.filter((d) => !["PARAM_UNDOCUMENTED", "REQUIRED_WITHOUT_EXAMPLE"].includes(d.code)),
    tools,
    find: async (query: string) => (await finder.find({ query, limit: 3 })).tools.map((t) => t.name),
    call: async (tool: string, args: Record<string, unknown>) => (await gateway.call({ tool, args }, caller)).result as Received,
    callError: (tool: string, args: Record<string, unknown>) => gateway.call({ tool, args }, caller).catch((e: unknown) => e),
  };
}

describe("registry:import-openapi", () => {
  it("imports an OpenAPI 3.0 document (refs, path/query/header/body parameters, two security schemes) that checks clean and calls its server", async () => {
    const dir = await registryCopy();
    const r = await cli(["import-openapi", "--spec", PETSTORE, "--family", "petstore", "--registry", dir]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    // The multipart upload is a tool now; the next step names the registry the family went into.
    expect(r.stdout.replaceAll(dir, "REGISTRY")).toMatchInlineSnapshot(`
      "6 tools from 7 operations written to REGISTRY/families/petstore/petstore.yaml; family \`petstore\` added to families.yaml
      variables to set where the gateway runs: PETSTORE_BASE_URL, PETSTORE_BEARER_AUTH, PETSTORE_API_KEY_AUTH
      2 operation(s) left out:
        countPets: HEAD is not a method http tools use
        legacyListPets: deprecated
      registry:check: 4 warnings in family \`petstore\` (PARAM_UNDOCUMENTED ×4); --warnings lists them
      next: npm run registry:check -- --registry REGISTRY
      "
    `);
    const server = await serve(parse(await readFile(PETSTORE, "utf8")), { bearerAuth: TOKEN, apiKeyAuth: KEY }, "/v1");
    const g = await gatewayOf(dir, { PETSTORE_BASE_URL: `${server.url}/v1`, PETSTORE_BEARER_AUTH: TOKEN, PETSTORE_API_KEY_AUTH: KEY });
    expect(g.diagnostics).toEqual([]);
    expect((await g.find("add a new pet to the shop"))[0]).toBe("petstore.createPet");

    // The body's properties are top-level arguments; the 3.0 `nullable` became a null the schema accepts.
    expect(await g.call("petstore.createPet", { name: "Rex", tag: null, category: { name: "dogs", parent: { name: "animals" } } })).toEqual({
      operation: "createPet",
      path: {},
      query: {},
      headers: { "content-type": "application/json" },
      body: { name: "Rex", tag: null, category: { name: "dogs", parent: { name: "animals" } } },
    });
    // Arrays become repeated query values; an optional header the caller leaves out is not sent.
    expect(await g.call("petstore.listPets", { limit: 2, tags: ["a", "b"] })).toMatchObject({ query: { limit: ["2"], tags: ["a", "b"] }, headers: {} });
    const id = "0b6e4c1e-4d7a-4c3e-9a0e-1f2d3c4b5a69";
    expect(await g.call("petstore.listPets", { "X-Request-Id": id })).toMatchObject({ headers: { "X-Request-Id": id } });
    expect(await g.call("petstore.showPetById", { petId: 7 })).toMatchObject({ operation: "showPetById", path: { petId: "7" } });
    // deletePet's first security alternative is a cookie, which an http tool cannot send: it uses the API key.
    expect(await g.call("petstore.deletePet", { petId: 7 })).toBeNull();
    expect(await g.call("petstore.get_health", {})).toEqual({ text: "ok GET /health" });
    // The imported schema means what the document says: 3.0 `exclusiveMinimum: true` with `minimum: 0`.
    expect(await g.callError("petstore.showPetById", { petId: 0 })).toMatchObject({ code: "INVALID_ARGUMENTS", status: 422 });
  });

  it("imports an OpenAPI 3.1 document (server variables, API key in the query, oneOf and non-JSON-object bodies) that checks clean and calls its server", async () => {
    const dir = await registryCopy();
    const r = await cli(["import-openapi", "--spec", NOTES, "--family", "notes", "--registry", dir]);
    expect(r.code).toBe(0);
    const file = await readFile(join(dir, "families/notes/notes.yaml"), "utf8");
    // Names from operationIds (`notes/get` → `notes.get`) or, without one, from the method and path.
    expect(file.match(/^ {2}- name: .+$/gm)).toEqual([
      "  - name: get_stats",
      "  - name: notes.create",
      "  - name: notes.get",
      "  - name: notes.search",
      "  - name: notes.update",
    ]);
    expect(await readFile(join(dir, "families.yaml"), "utf8")).toContain("the document's first server is https://eu.notes.example/api");
    const server = await serve(JSON.parse(await readFile(NOTES, "utf8")), { key: KEY }, "/api");
    const g = await gatewayOf(dir, { NOTES_BASE_URL: `${server.url}/api`, NOTES_KEY: KEY });
    expect(g.diagnostics).toEqual([]);
    expect((await g.find("find notes containing words"))[0]).toBe("notes.notes.search");

    expect(await g.call("notes.notes.search", { q: "milk", filter_tag: "home" })).toMatchObject({ query: { q: ["milk"], "filter[tag]": ["home"] } });
    // A body whose property `id` would clash with the path parameter stays one `body` argument, sent with its own media type.
    expect(await g.call("notes.notes.update", { id: "n1", body: { text: "eggs" } })).toMatchObject({
      path: { id: "n1" },
      headers: { "content-type": "application/merge-patch+json" },
      body: { text: "eggs" },
    });
    expect(await g.call("notes.notes.create", { body: { items: ["milk"] } })).toMatchObject({ operation: "notes/create", body: { items: ["milk"] } });
    expect(await g.callError("notes.notes.get", { id: "../admin" })).toMatchObject({ code: "INVALID_ARGUMENTS" });
    expect(await g.call("notes.get_stats", {})).toMatchObject({ operation: "GET /stats" });
  });

  it("imports a subset of GitHub's published OpenAPI description that checks clean, and calls a server built from the same document", async () => {
    const dir = await registryCopy();
    const ops = ["repos/get", "issues/create", "issues/list-for-repo", "pulls/list"].flatMap((o) => ["--operations", o]);
    const r = await cli(["import-openapi", "--spec", GITHUB, "--family", "github", "--registry", dir, "--description", "The GitHub REST API.", ...ops]);
    expect(r.stderr).toBe("");
    expect(r.stdout).toMatch(/^4 tools from 4 operations written to .*families\/github\/github\.yaml; family `github` added to families\.yaml\n/);
    const server = await serve(JSON.parse(await readFile(GITHUB, "utf8")), {});
    const g = await gatewayOf(dir, { GITHUB_BASE_URL: server.url });
    expect(g.diagnostics).toEqual([]);
    expect(g.tools.filter((t) => t.family === "github").map((t) => t.name)).toEqual([
      "github.issues.create",
      "github.issues.list-for-repo",
      "github.pulls.list",
      "github.repos.get",
    ]);
    expect((await g.find("open a new issue in a repository"))[0]).toBe("github.issues.create");
    expect(await g.call("github.repos.get", { owner: "octokit", repo: "rest.js" })).toMatchObject({
      operation: "repos/get",
      path: { owner: "octokit", repo: "rest.js" },
    });
    expect(await g.call("github.issues.create", { owner: "o", repo: "r", title: "Broken", labels: ["bug"] })).toMatchObject({
      operation: "issues/create",
      body: { title: "Broken", labels: ["bug"] },
    });
    expect(await g.call("github.issues.list-for-repo", { owner: "o", repo: "r", state: "open", per_page: 5 })).toMatchObject({
      query: { state: ["open"], per_page: ["5"] },
    });
  });

  it("writes the same bytes for the same document, refuses to overwrite a family, and re-imports with --replace", async () => {
    const [a, b] = [await registryCopy(), await registryCopy()];
    for (const dir of [a, b]) expect((await cli(["import-openapi", "--spec", PETSTORE, "--family", "pets", "--registry", dir])).code).toBe(0);
    const tools = await readFile(join(a, "families/pets/pets.yaml"), "utf8");
    const families = await readFile(join(a, "families.yaml"), "utf8");
    expect(await readFile(join(b, "families/pets/pets.yaml"), "utf8")).toBe(tools);
    expect(await readFile(join(b, "families.yaml"), "utf8")).toBe(families);

    const again = await cli(["import-openapi", "--spec", PETSTORE, "--family", "pets", "--registry", a]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/families\/pets already exists: pass --replace to re-import the family/);
    const replaced = await cli(["import-openapi", "--spec", PETSTORE, "--family", "pets", "--registry", a, "--replace", "--operations", "listPets"]);
    expect(replaced.stdout).toMatch(/^1 tools from 1 operations written to .*; family `pets` replaced in families\.yaml\n/);
    expect(await readFile(join(a, "families/pets/pets.yaml"), "utf8")).toMatch(/tools:\n {2}- name: listPets\n/);
    // Only the family's own entry changed: its variables now name only what listPets reads.
    const after = await readFile(join(a, "families.yaml"), "utf8");
    expect(after.slice(0, after.indexOf("  - name: pets"))).toBe(families.slice(0, families.indexOf("  - name: pets")));
    expect(after).not.toContain("PETS_BEARER_AUTH");
    expect((await loadRegistry(a)).diagnostics).toEqual([]);
  });

  it("adds its family to the example registry's families.yaml without touching another byte", async () => {
    const dir = await mkdtemp(join(tmpdir(), "toolbelt-openapi-"));
    temps.push(dir);
    const original = await readFile(join(ROOT, "registry/families.yaml"), "utf8");
    await writeFile(join(dir, "families.yaml"), original);
    expect((await cli(["import-openapi", "--spec", PETSTORE, "--family", "petstore", "--registry", dir])).code).toBe(0);
    const after = await readFile(join(dir, "families.yaml"), "utf8");
    expect(after.startsWith(original)).toBe(true);
    // A blank line before it when the last entry has one (a family added to registry/ without one: none).
    expect(after.slice(original.length)).toMatch(/^\n? {2}- name: petstore\n {4}description: A pet shop/);
  });

  it("says what is wrong with a document it cannot import", async () => {
    const dir = await registryCopy();
    const swagger = join(dir, "swagger.json");
    await writeFile(swagger, JSON.stringify({ swagger: "2.0", info: { title: "old", version: "1" }, paths: {} }));
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/openapi.json`;
    const runs = await Promise.all([
      cli(["import-openapi", "--spec", swagger, "--family", "old", "--registry", dir]),
      cli(["import-openapi", "--spec", PETSTORE, "--family", "pets", "--registry", dir, "--operations", "nothing*"]),
      cli(["import-openapi", "--spec", url, "--family", "gone", "--registry", dir]),
      cli(["import-openapi", "--spec", PETSTORE, "--family", "Bad.Name", "--registry", dir]),
    ]);
    expect(runs.map((r) => r.code)).toEqual([1, 1, 1, 1]);
    expect(runs[0]!.stderr).toContain("is Swagger 2.0: OpenAPI 3.0 or 3.1 documents only");
    expect(runs[1]!.stderr).toContain("has no operation matching nothing* to import (7 in all)");
    expect(runs[2]!.stderr).toMatch(new RegExp(`^import-openapi: cannot read the OpenAPI document ${url.replace(/[.]/g, "\\.")}: .+`));
    expect(runs[3]!.stderr).toContain("family name `Bad.Name` must be lower-case");
  });
});
