// Finding 1 of #7 (sandbox): exec children inherited the gateway's whole environment, so a caller
// granted only a file reader read TOOLBELT_API_KEY and DEMO_SERVICE_TOKEN from /proc/self/environ.
// Real processes: the backends as the handlers wire them, over a gateway environment holding keys.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBackends } from "../../../lambdas/backends/index.js";
import { EXEC_HOME } from "../../../lambdas/backends/variables.js";
import { createCallGateway, type CallGateway } from "../../../lambdas/core/call/gateway.js";
import type { FamilyInfo } from "../../../registry/contract/artifact.js";
import { callerFor, catalogTool, toolMap } from "./helpers.js";

const caller = callerFor("reader", "probe.*", "files.*");
// Unique values: any occurrence in an answer or a child's environment can only be a leak.
const API_KEY = "canary-api-key-7d1f0c9e";
const AWS_SECRET = "canary-aws-secret-4b8e2a61";
const DEMO_TOKEN = "canary-demo-token-93c5e7b0";
const SSM_VALUE = "canary-ssm-value-1a6d4f28";
const UNDECLARED = "canary-undeclared-5e0b9c37";
const PROBE_SECRET = "canary-probe-secret-0f3a8d52";
const LEAKS = [API_KEY, AWS_SECRET, DEMO_TOKEN, SSM_VALUE, UNDECLARED];

/** The gateway's environment: its own keys, another family's secret, SSM-loaded and undeclared settings. */
const gatewayEnv = {
  ...process.env,
  TOOLBELT_API_KEY: API_KEY,
  AWS_SECRET_ACCESS_KEY: AWS_SECRET,
  DEMO_SERVICE_TOKEN: DEMO_TOKEN,
  TOOLBELT_SECRETS: JSON.stringify({ SSM_TOKEN: "/toolbelt/ssm-token" }),
  SSM_TOKEN: SSM_VALUE,
  SOME_UNDECLARED_SETTING: UNDECLARED,
  PROBE_SECRET,
  LANG: "C.UTF-8",
  LC_MESSAGES: "C",
  TZ: "UTC",
  HOME: "/root/of/the/gateway",
};

const families: Pick<FamilyInfo, "name" | "variables">[] = [
  { name: "probe", variables: { PROBE_SECRET: { secret: true } } },
  { name: "files", variables: {} },
  { name: "notes", variables: { DEMO_SERVICE_TOKEN: { secret: true } } },
];

let gateway: CallGateway;
let scratch: string;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "toolbelt-exec-env-"));
  const node = process.execPath;
  const tools = [
    // The finding's own tool: head on a path the caller chooses.
    catalogTool(
      "files.read_head",
      { kind: "exec", command: "head", args: ["--lines=100", "--", "{{input.path}}"], output: "text" },
      { input_schema: { type: "object", required: ["path"], properties: { path: { type: "string" } } } },
    ),
    catalogTool("probe.environ", {
      kind: "exec",
      command: node,
      args: ["-e", "process.stdout.write(JSON.stringify(process.env))"],
      // As the build writes it: the family's env merged with the tool's.
      env: { PROBE_TOKEN: "${PROBE_SECRET}", PROBE_MODE: "fixed" },
      output: "json",
    }),
    catalogTool("probe.reads_undeclared", {
      kind: "exec",
      command: node,
      args: ["-e", "process.stdout.write(process.env.X ?? '')"],
      env: { X: "${SOME_UNDECLARED_SETTING}" },
      output: "text",
    }),
  ];
  const { backends } = createBackends({ env: gatewayEnv, families });
  gateway = createCallGateway({ tools: toolMap(tools), backends });
});

afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe("exec children inherit the gateway's whole environment (#7 finding 1)", () => {
  it("files.read_head on /proc/self/environ shows no key, token or setting of the gateway", async () => {
    const res = await gateway.call({ tool: "files.read_head", args: { path: "/proc/self/environ" } }, caller);
    const text = (res.result as { text: string }).text;
    for (const leak of LEAKS) expect(text).not.toContain(leak);
    expect(text).not.toContain("TOOLBELT_");
    // What the child does see: the minimal base, nothing else.
    const names = text
      .split("\0")
      .filter(Boolean)
      .map((kv) => kv.slice(0, kv.indexOf("=")));
    expect(names.sort()).toEqual(["HOME", "LANG", "LC_MESSAGES", "PATH", "TZ"]);
  });

  it("a child gets exactly the base (PATH, HOME, LANG, LC_*, TZ) plus its declared env, rendered from its family's variables", async () => {
    const res = await gateway.call({ tool: "probe.environ", args: {} }, caller);
    const env = res.result as Record<string, string>;
    expect(env).toEqual({
      PATH: process.env.PATH,
      HOME: EXEC_HOME,
      LANG: "C.UTF-8",
      LC_MESSAGES: "C",
      TZ: "UTC",
      // The declared secret reaches the child that declares it, and is redacted on its way back.
      PROBE_TOKEN: "[redacted]",
      PROBE_MODE: "fixed",
    });
  });

  it("a variable the family does not declare is not visible to its templates: 503 naming it, no value", async () => {
    const err = await gateway.call({ tool: "probe.reads_undeclared", args: {} }, caller).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "UNAVAILABLE", status: 503, details: { variable: "SOME_UNDECLARED_SETTING" } });
    expect((err as Error).message).toMatch(/does not declare/);
    expect(JSON.stringify(err)).not.toContain(UNDECLARED);
  });

  it("declared secrets, SSM-loaded values and the gateway's credentials are redacted from output that reached them another way", async () => {
    const file = join(scratch, "found-on-disk.txt");
    await writeFile(file, [PROBE_SECRET, DEMO_TOKEN, SSM_VALUE, API_KEY, AWS_SECRET].join("\n") + "\n");
    const res = await gateway.call({ tool: "files.read_head", args: { path: file } }, caller);
    expect((res.result as { text: string }).text).toBe(Array(5).fill("[redacted]").join("\n") + "\n");
  });
});
