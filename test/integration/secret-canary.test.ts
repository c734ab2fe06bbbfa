// The secret canary (#7 sandbox): unique values put in the gateway's environment (its API key, an
// AWS secret, a setting no family declares) and in a declared secret (DEMO_SERVICE_TOKEN, which the
// notes and diagnostics families send upstream) must never appear in any response, any exec child's
// environment, any log line or any artifact file, across a sweep that calls every example tool.
// Real processes throughout: `npm start` on a loopback port, its upstreams, and the exec children,
// whose environments are recorded by wrappers put first on the gateway's PATH. The model roles (prompt
// tools, find's decision mode) point at a loopback model that echoes its whole request (its key among
// it) and also shows the secrets it holds, in its answers and in error bodies (issue 24).
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadArtifact, type Artifact } from "../../lambdas/artifact.js";
import type { CatalogTool } from "../../registry/contract/artifact.js";
import { chatReply, httpError, startChatServer, type ChatRequest, type ChatServer, type ScriptedReply } from "../helpers/chat-server.js";

const CANARIES = {
  TOOLBELT_API_KEY: "canary-gateway-key-6c1e9f04a2",
  AWS_SECRET_ACCESS_KEY: "canary-aws-secret-b83d0e57c1",
  TOOLBELT_CANARY_UNDECLARED: "canary-undeclared-2f7a91d6e4",
  DEMO_SERVICE_TOKEN: "canary-declared-secret-9e4b2c7a13",
  TOOLBELT_CANARY_MODEL_KEY: "canary-model-key-47d1a0e8c6",
} as const;
/** What the echoing model holds and shows (every secret of the gateway; the undeclared setting is no secret of anyone's). */
const HELD = [CANARIES.TOOLBELT_API_KEY, CANARIES.AWS_SECRET_ACCESS_KEY, CANARIES.DEMO_SERVICE_TOKEN, CANARIES.TOOLBELT_CANARY_MODEL_KEY].join(" ");
/** A request whose text holds this fails at the model, with the echo as its error body. */
const FAIL = "canary-model-fail";
const ROOT = fileURLToPath(new URL("../../", import.meta.url)).replace(/\/$/, "");
/** Variable names of the gateway that no exec child may carry, whatever their value. */
const GATEWAY_ONLY = /^(TOOLBELT_|AWS_|DEMO_SERVICE_|EVERYTHING_MCP_|DYNAMODB_)/;
/** Calls the sweep has in flight at once. */
const SWEEP_LANES = 4;

let work: string;
let probes: string;
let artifactDir: string;
let child: ChildProcess;
let url = "";
let logs = "";
let artifact: Artifact;
let model: ChatServer;
const answers: { what: string; status: number; body: string }[] = [];

/** Every canary found in `text`, by variable name. */
const leaked = (text: string) =>
  Object.entries(CANARIES)
    .filter(([, v]) => text.includes(v))
    .map(([k]) => k);

/** A wrapper for `command` that records its environment, then runs the real program with the same arguments. */
function wrap(command: string, real: string): void {
  const file = join(probes, "bin", command);
  writeFileSync(file, `#!/bin/sh\n/usr/bin/env > "${join(probes, "envs")}/${command}.$$"\nexec "${real}" "$@"\n`);
  chmodSync(file, 0o755);
}

/** A JSON value of `schema`'s shape whose every string is `text` (enums take their first member). */
function filled(schema: Property & { properties?: Record<string, Property>; minItems?: number }, text: string): unknown {
  if (schema.enum?.length) return schema.enum[0];
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === "object") return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([k, p]) => [k, filled(p, text)]));
  if (type === "array") return Array.from({ length: Math.max(1, schema.minItems ?? 1) }, () => filled(schema.items ?? { type: "string" }, text));
  if (type === "integer" || type === "number") return 1;
  if (type === "boolean") return true;
  return text;
}

/** The echoing model: its key and every message it received, plus what it holds, in an answer of the asked shape or an error. */
function echoModel(req: ChatRequest): ScriptedReply {
  const text = `held: ${HELD}; received: ${JSON.stringify({ authorization: req.headers.authorization, body: req.body })}`;
  if (req.body.logprobs || JSON.stringify(req.body.messages).includes(FAIL)) return httpError(500, text);
  const schema = req.body.response_format?.json_schema?.schema;
  return chatReply(schema ? JSON.stringify(filled(schema as Property, text)) : text);
}

const which = (command: string): string | undefined => {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    try {
      execFileSync("test", ["-x", join(dir, command)]);
      return join(dir, command);
    } catch {
      // not here
    }
  }
  return undefined;
};

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "toolbelt-canary-"));
  probes = join(work, "probes");
  mkdirSync(join(probes, "bin"), { recursive: true });
  mkdirSync(join(probes, "envs"));
  artifactDir = join(work, "artifact");
  // The exec families' commands (registry/families/{files,git,system}).
  for (const command of [
    "cat",
    "date",
    "df",
    "du",
    "find",
    "git",
    "grep",
    "head",
    "id",
    "ls",
    "nproc",
    "realpath",
    "sha256sum",
    "stat",
    "tail",
    "uname",
    "wc",
  ]) {
    const real = which(command);
    if (real) wrap(command, real);
  }
  model = await startChatServer();
  model.script(echoModel);
  const role = { provider: "openai", url: model.url, model: "echo", key_env: "TOOLBELT_CANARY_MODEL_KEY" };
  child = spawn(process.execPath, ["--import", "tsx", "lambdas/local/start.ts"], {
    env: {
      ...process.env,
      ...CANARIES,
      PATH: `${join(probes, "bin")}${delimiter}${process.env.PATH ?? ""}`,
      PORT: "0",
      TOOLBELT_ARTIFACT_DIR: artifactDir,
      TOOLBELT_POLICY: "",
      TOOLBELT_DATA_DIR: "",
      // The project directory, as `npm start` defaults: file and git tools run, on this repository.
      TOOLBELT_FILE_ROOTS: ROOT,
      TOOLBELT_MODELS: JSON.stringify({ prompt: role, decider: role }),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  url = await new Promise<string>((resolve, reject) => {
    const onData = (d: Buffer) => {
      logs += d.toString();
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(logs);
      if (m?.[1]) resolve(m[1]);
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (code) => reject(new Error(`npm start exited with ${code}:\n${logs}`)));
  });
  artifact = loadArtifact(artifactDir);
}, 120_000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((done) => child.once("exit", done));
    child.kill("SIGTERM");
    await exited;
  }
  await model?.close();
  rmSync(work, { recursive: true, force: true });
});

async function request(what: string, method: "GET" | "POST", path: string, body?: unknown): Promise<void> {
  const res = await fetch(url + path, {
    method,
    headers: { authorization: `Bearer ${CANARIES.TOOLBELT_API_KEY}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  answers.push({ what, status: res.status, body: await res.text() });
}

type Property = { type?: string | string[]; examples?: unknown[]; default?: unknown; enum?: unknown[]; items?: Property };

/** A plausible value: the schema's first example, its default, its first enum member, or one of its type. */
function sampleOf(p: Property): unknown {
  if (p.examples?.length) return p.examples[0];
  if (p.default !== undefined) return p.default;
  if (p.enum?.length) return p.enum[0];
  const type = Array.isArray(p.type) ? p.type[0] : p.type;
  if (type === "integer" || type === "number") return 1;
  if (type === "boolean") return true;
  if (type === "array") return p.items ? [sampleOf(p.items)] : [];
  if (type === "object") return {};
  return "canary sweep";
}

/** Valid example arguments: every property with an example, and every required one. */
function exampleArgs(t: CatalogTool): Record<string, unknown> {
  const schema = t.input_schema as { properties?: Record<string, Property>; required?: string[] };
  const props = schema.properties ?? {};
  const args: Record<string, unknown> = {};
  for (const [k, p] of Object.entries(props)) if (p.examples?.length || schema.required?.includes(k)) args[k] = sampleOf(p);
  return args;
}

describe("the secret canary", () => {
  it("appears in no response across a sweep of every example tool, the finding's replays and the REST endpoints", async () => {
    // Records are made before they are read and deleted last, as an agent would; within each of those steps,
    // SWEEP_LANES calls at a time, so a slow tool (server-everything's long-running operation takes 10 s) holds one lane.
    const rank = (n: string) => (/\.(create|set)$/.test(n) ? 0 : /\.delete$/.test(n) ? 2 : 1);
    const tools = [...artifact.tools].sort((a, b) => (a.name < b.name ? -1 : 1));
    expect(tools.length).toBeGreaterThan(90);
    for (const step of [0, 1, 2]) {
      const queue = tools.filter((t) => rank(t.name) === step);
      const lane = async () => {
        for (let t = queue.shift(); t; t = queue.shift()) await request(t.name, "POST", "/v1/call", { tool: t.name, args: exampleArgs(t) });
      };
      await Promise.all(Array.from({ length: SWEEP_LANES }, lane));
    }
    // Finding 1 as it was found, and the gateway's own environment by its pid.
    for (const path of ["/proc/self/environ", `/proc/${child.pid}/environ`, "../../../../../proc/self/environ"]) {
      await request(`files.read_head ${path}`, "POST", "/v1/call", { tool: "files.read_head", args: { path } });
    }
    await request("everything.get-env", "POST", "/v1/call", { tool: "everything.get-env", args: {} });
    await request("health", "GET", "/v1/health");
    await request("find", "POST", "/v1/find", { query: "read environment variables token secret key" });
    // Prompt tools and decision mode against the echoing model: answers, a model error (502), a decider error (fallback_reason).
    await request("writing.summarize failing", "POST", "/v1/call", { tool: "writing.summarize", args: { text: FAIL } });
    await request("toolbelt.find decision", "POST", "/v1/call", { tool: "toolbelt.find", args: { query: "summarize a text", mode: "decision" } });
    await request("find decision", "POST", "/v1/find", { query: "summarize a long report", mode: "decision", chunk_size: 1 });
    await request("openapi", "GET", "/v1/openapi.json");
    await request("misses", "GET", "/v1/admin/misses");

    const leaks = answers.filter((a) => leaked(a.body).length > 0).map((a) => `${a.what} (${a.status}): ${leaked(a.body).join(", ")}`);
    expect(leaks).toEqual([]);
    // The echoing model was asked (prompt tools answered, decisions fell back) and its key was on the wire.
    expect(model.requests.some((r) => r.headers.authorization === `Bearer ${CANARIES.TOOLBELT_CANARY_MODEL_KEY}`)).toBe(true);
    expect(answers.filter((a) => a.what.startsWith("writing.") && a.status === 200).length).toBeGreaterThan(0);
    expect(answers.find((a) => a.what === "writing.summarize failing")?.status).toBe(502);
    expect(answers.find((a) => a.what === "find decision")?.body).toMatch(/"fallback_reason":"http_error: .*\[redacted\]/);
    // The sweep reached the tools: most answered (upstreams run), none was a 500.
    expect(answers.filter((a) => a.status === 200).length).toBeGreaterThan(60);
    expect(answers.filter((a) => a.status >= 500 && a.status !== 502 && a.status !== 503 && a.status !== 504).map((a) => a.what)).toEqual([]);
  }, 300_000);

  it("reaches no exec child's environment: each got only the base and its declared env", () => {
    const files = readdirSync(join(probes, "envs"));
    // head, cat, git, uname... each ran at least once during the sweep.
    expect(files.length).toBeGreaterThan(15);
    const problems: string[] = [];
    for (const f of files) {
      const env = readFileSync(join(probes, "envs", f), "utf8");
      for (const name of leaked(env)) problems.push(`${f}: value of ${name}`);
      for (const line of env.split("\n").filter(Boolean)) {
        const name = line.slice(0, line.indexOf("="));
        if (GATEWAY_ONLY.test(name)) problems.push(`${f}: ${name}`);
      }
      expect(env).toMatch(/^HOME=\/nonexistent$/m);
    }
    expect(problems).toEqual([]);
  });

  it("reaches no log line and no artifact file", () => {
    expect(leaked(logs)).toEqual([]);
    for (const f of readdirSync(artifactDir)) expect(leaked(readFileSync(join(artifactDir, f), "utf8")), f).toEqual([]);
  });
});
