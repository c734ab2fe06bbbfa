// Declared upstream settings reach `npm start` or it says what is missing (issue #10): the real
// start.ts as a child process on a real port, a fixture registry whose required family `partner`
// declares PARTNER_URL and PARTNER_TOKEN and whose optional family `extra` declares EXTRA_URL, and a
// loopback partner API that records what reaches it. The first start builds the fixture's artifact
// (a user's own, in TOOLBELT_ARTIFACT_DIR); the second serves it without naming its registry.
import { spawn } from "node:child_process";
import { mkdtempSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixture } from "../../unit/build/helpers.js";

const REGISTRY = fixture("upstream-settings");
const KEY = "upstream-settings-test-key";
const artifactDir = join(mkdtempSync(join(tmpdir(), "toolbelt-settings-")), "artifact");

type Started = { code: Promise<number | null>; url: Promise<string>; output: () => string; stop: () => void };

/** start.ts with only the settings given (none of the caller's shell leaks in); `url` resolves once it listens. */
function start(settings: Record<string, string>, args = ["--registry", REGISTRY]): Started {
  let out = "";
  const proc = spawn(process.execPath, ["--import", "tsx", "lambdas/local/start.ts", ...args], {
    env: { PATH: process.env.PATH ?? "", PORT: "0", TOOLBELT_ARTIFACT_DIR: artifactDir, TOOLBELT_API_KEY: KEY, ...settings },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const code = new Promise<number | null>((done) => proc.once("exit", (c) => done(c)));
  const url = new Promise<string>((resolve, reject) => {
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m?.[1]) resolve(m[1]);
    };
    proc.stdout.on("data", onData);
    proc.stderr.on("data", onData);
    void code.then((c) => reject(new Error(`npm start exited with ${c}:\n${out}`)));
  });
  url.catch(() => {});
  return { code, url, output: () => out, stop: () => proc.kill("SIGTERM") };
}

let partner: Server;
let partnerUrl = "";
const seen: string[] = [];

beforeAll(async () => {
  partner = createServer((req, res) => {
    seen.push(`${req.method} ${req.url} ${req.headers.authorization}`);
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify({ id: req.url?.split("/").pop(), name: "Ada" }));
  });
  await new Promise<void>((done) => partner.listen(0, "127.0.0.1", done));
  partnerUrl = `http://127.0.0.1:${(partner.address() as { port: number }).port}`;
});

afterAll(() => new Promise<void>((done) => partner.close(() => done())));

describe("npm start with declared upstream settings", () => {
  it("stops when a required family lacks a declared setting, naming the family and every missing setting", async () => {
    const s = start({ PARTNER_URL: partnerUrl });
    expect(await s.code).toBe(1);
    expect(s.output()).toContain("family `partner` needs PARTNER_TOKEN (a secret: Bearer token of the partner API)");
    expect(s.output()).not.toContain("listening on");
  }, 60_000);

  it("serves an optional family's neighbours without it, and says so; the user's artifact, named without its registry, is served as built", async () => {
    // The first start built the fixture's artifact (a user's own); with no --registry it is served, not rebuilt from registry/.
    const built = statSync(join(artifactDir, "manifest.json")).mtimeMs;
    const s = start({ PARTNER_URL: partnerUrl, PARTNER_TOKEN: "partner-secret" }, []);
    try {
      const url = await s.url;
      expect(s.output()).toContain(`serving the artifact in ${artifactDir} as it is (built from ${REGISTRY})`);
      expect(statSync(join(artifactDir, "manifest.json")).mtimeMs).toBe(built);
      expect(s.output()).toContain("warning: optional family `extra` needs EXTRA_URL (Base URL of the extra API): left out of what is served until set");
      const post = (path: string, body: unknown) =>
        fetch(url + path, { method: "POST", headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" }, body: JSON.stringify(body) });

      const health = (await (await fetch(`${url}/v1/health`)).json()) as { counts: { families: number; tools: number }; skipped_families: string[] };
      expect(health).toMatchObject({ counts: { families: 2, tools: 2 }, skipped_families: ["extra"] });
      const found = (await (await post("/v1/find", { query: "fetch the extra records", schemas: "none" })).json()) as { tools: { name: string }[] };
      expect(found.tools.map((t) => t.name)).not.toContain("extra.fetch_record");
      const left = await post("/v1/call", { tool: "extra.fetch_record", args: {} });
      expect(left.status).toBe(404);

      const called = await post("/v1/call", { tool: "partner.lookup", args: { id: "r-7" } });
      expect(called.status).toBe(200);
      expect(((await called.json()) as { result: unknown }).result).toEqual({ id: "r-7", name: "Ada" });
      expect(seen).toContain("GET /records/r-7 Bearer partner-secret");
    } finally {
      s.stop();
      await s.code;
    }
  }, 60_000);
});
