// Regression (issue 28): four OpenAPI documents written by others (the `@readme/oas-examples` package:
// STAPI 3.0, the ReadMe API 3.1, Train Travel 3.1, USPTO 3.0) are imported as a new user would, and one
// operation of each is called through the gateway against a loopback server that routes by the same
// document and records the raw request: exactly what the caller sent goes out, in the body's own
// encoding, with credentials from declared settings the model never sees.
import { cp, mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { loadRegistry } from "../../../build/load.js";
import { createHttpBackend } from "../../../lambdas/backends/http.js";
import { familyViews } from "../../../lambdas/backends/variables.js";
import { createCallGateway } from "../../../lambdas/core/call/gateway.js";
import type { CatalogTool } from "../../../registry/contract/artifact.js";
import { callerFor, toolMap } from "../call/helpers.js";
import { cli, ROOT } from "./cli-helpers.js";

const EXAMPLES = join(ROOT, "node_modules/@readme/oas-examples");
const DOCS = {
  stapi: "3.0/json/star-trek.json",
  readme: "3.1/json/readme.json",
  train: "3.1/json/train-travel.json",
  uspto: "3.0/json/uspto.json",
} as const;
const SECRET = "k-9f8e7d6c5b4a";

type Seen = { method: string; path: string; query: [string, string][]; headers: Record<string, string>; body: string; raw: Buffer };
type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** A loopback server that answers the document's operations (by path template and method) and records each raw request. */
async function documentServer(doc: Obj): Promise<{ url: string; seen: Seen[]; server: Server }> {
  const routes = Object.entries(isObj(doc.paths) ? doc.paths : {}).flatMap(([path, item]) =>
    Object.keys(isObj(item) ? item : {}).map((method) => ({
      method: method.toUpperCase(),
      re: new RegExp(`^${path.replace(/\{[^}]+\}/g, "[^/]+")}$`),
    })),
  );
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://x");
      const known = routes.some((r) => r.method === req.method && r.re.test(url.pathname));
      seen.push({
        method: req.method ?? "",
        path: url.pathname,
        query: [...url.searchParams],
        headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])),
        body: Buffer.concat(chunks).toString("utf8"),
        raw: Buffer.concat(chunks),
      });
      res.writeHead(known ? 200 : 404, { "content-type": "application/json" });
      res.end(known ? "{}" : '{"error":"no such operation"}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, server };
}

let dir: string;
const outputs: Record<string, string> = {};
const servers: Server[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "toolbelt-oas-examples-"));
  await cp(join(ROOT, "test/fixtures/registries/valid"), dir, { recursive: true });
  for (const [family, file] of Object.entries(DOCS)) {
    const r = await cli(["import-openapi", "--spec", join(EXAMPLES, file), "--family", family, "--registry", dir]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    outputs[family] = r.stdout.replaceAll(dir, "REGISTRY");
  }
}, 60_000);

afterAll(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    s.close();
  }
  await rm(dir, { recursive: true, force: true });
});

/** The imported family served by the gateway, its base URL and every declared secret pointed at a loopback server for its document. */
async function family(name: keyof typeof DOCS) {
  const doc = JSON.parse(await readFile(join(EXAMPLES, DOCS[name]), "utf8")) as Obj;
  const upstream = await documentServer(doc);
  servers.push(upstream.server);
  const reg = await loadRegistry(dir);
  const { families, tools } = reg.catalog;
  const fam = families.find((f) => f.name === name)!;
  const prefix = name.toUpperCase();
  const env = Object.fromEntries(Object.keys(fam.variables ?? {}).map((v) => [v, v === `${prefix}_BASE_URL` ? upstream.url : SECRET]));
  const gateway = createCallGateway({ tools: toolMap(tools), backends: { http: createHttpBackend({ views: familyViews(families, env) }) } });
  const caller = callerFor("agent", `${name}.*`);
  return {
    seen: upstream.seen,
    tool: (verb: string) => tools.find((t) => t.name === `${name}.${verb}`) as CatalogTool,
    file: parse(await readFile(join(dir, `families/${name}/${name}.yaml`), "utf8")) as { tools: Obj[] },
    variables: fam.variables ?? {},
    diagnostics: reg.diagnostics.filter((d) => d.tool?.startsWith(`${name}.`) && d.severity === "error"),
    call: (verb: string, args: Obj) => gateway.call({ tool: `${name}.${verb}`, args }, caller),
  };
}

const props = (t: CatalogTool) => Object.keys((t.input_schema as { properties: Obj }).properties);

describe("four real OpenAPI documents, re-imported and called", () => {
  it("ReadMe 3.1: the PATCH of a guide called with {title, state} sends exactly that (no server defaults)", async () => {
    const f = await family("readme");
    expect(f.diagnostics).toEqual([]);
    // The body stays one argument (its schema is not a plain object of optional fields).
    await f.call("updateGuide", { branch: "stable", slug: "intro", body: { title: "Hello", state: "current" } });
    expect(f.seen).toHaveLength(1);
    expect(f.seen[0]).toMatchObject({ method: "PATCH", path: "/branches/stable/guides/intro", query: [] });
    expect(JSON.parse(f.seen[0]!.body)).toEqual({ title: "Hello", state: "current" });
    expect(f.seen[0]!.headers.authorization).toBe(`Bearer ${SECRET}`);
    // Its multipart uploads are tools now; a file part is sent from its documented base64 object.
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff]);
    await f.call("uploadImage", { body: { file: { content_base64: png.toString("base64"), filename: "logo.png", content_type: "image/png" } } });
    const upload = f.seen[1]!;
    expect(upload.headers["content-type"]).toMatch(/^multipart\/form-data; boundary=/);
    const form = await new Request("http://x", {
      method: "POST",
      headers: { "content-type": upload.headers["content-type"]! },
      body: new Uint8Array(upload.raw),
    }).formData();
    const file = form.get("file") as File;
    expect([file.name, file.type, Buffer.from(await file.arrayBuffer())]).toEqual(["logo.png", "image/png", png]);
  });

  it("Train Travel 3.1: create-booking takes no readOnly `id`, and sends only the caller's fields; examples its schema refuses are left out", async () => {
    const f = await family("train");
    expect(f.diagnostics).toEqual([]);
    const booking = f.tool("create-booking");
    expect(props(booking)).not.toContain("id");
    const trip = "4f4e4e1c-c824-4d63-b37a-d8d698862f1d";
    await f.call("create-booking", { trip_id: trip, passenger_name: "Ada" });
    expect(f.seen[0]).toMatchObject({ method: "POST", path: "/bookings", query: [] });
    expect(JSON.parse(f.seen[0]!.body)).toEqual({ trip_id: trip, passenger_name: "Ada" });
    // The document's trip id example has 7 hex digits in its first group: not a uuid, so not shown to agents.
    const tripId = (booking.input_schema as { properties: Record<string, Obj> }).properties.trip_id!;
    expect(tripId.examples).toBeUndefined();
    expect(outputs.train).toMatch(/import warnings? in family `train`/);
    expect(outputs.train).toContain("$.input_schema.properties.trip_id.examples[0]");
    // A GET without the boolean filters sends none of their defaults.
    await f.call("get-trips", { origin: trip, destination: trip, date: "2026-12-24T10:00:00Z" });
    expect(f.seen[1]!.query.map(([k]) => k).sort()).toEqual(["date", "destination", "origin"]);
  });

  it("STAPI 3.0: a search is a url-encoded form of the caller's fields; the apiKey query parameter is a declared secret, not an argument", async () => {
    const f = await family("stapi");
    expect(f.diagnostics).toEqual([]);
    // Every search is a POST of a url-encoded form: 40 of the document's 120 operations.
    const searches = f.file.tools.filter((t) => t.method === "POST" && String(t.url).endsWith("/search"));
    expect(searches.length).toBe(40);
    expect(props(f.tool("post_animal_search"))).not.toContain("apiKey");
    expect(f.variables).toMatchObject({ STAPI_API_KEY: { secret: true } });
    await f.call("post_animal_search", { name: "cat", avian: false });
    expect(f.seen[0]).toMatchObject({ method: "POST", path: "/animal/search", query: [["apiKey", SECRET]] });
    expect(f.seen[0]!.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(f.seen[0]!.body).toBe("name=cat&avian=false");
  });

  it("USPTO 3.0: perform-search sends the criteria as a form, without the document's defaults for start and rows", async () => {
    const f = await family("uspto");
    expect(f.diagnostics).toEqual([]);
    await f.call("perform-search", { dataset: "oa_citations", version: "v1", body: { criteria: "patentNumber:7000000" } });
    expect(f.seen[0]).toMatchObject({ method: "POST", path: "/oa_citations/v1/records" });
    expect(f.seen[0]!.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(new URLSearchParams(f.seen[0]!.body).toString()).toBe("criteria=patentNumber%3A7000000");
  });

  it("prints the next step with the registry named, and warnings grouped per family with a count", () => {
    for (const out of Object.values(outputs)) expect(out).toContain("next: npm run registry:check -- --registry REGISTRY");
    expect(outputs.stapi).toMatch(/registry:check: \d+ warnings in family `stapi` \([A-Z_]+ ×\d+/);
    expect(outputs.stapi).toContain("--warnings lists them");
  });
});
