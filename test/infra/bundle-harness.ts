// Bundle a handler exactly as the construct does (infra/bundling.ts), lay out its folder as the
// Lambda sees /var/task (bundle + artifact + policy, copied by the construct's own copyIntoBundle),
// and invoke it in a fresh Node process with API Gateway v2 events. Shared by the bundle tests and
// the cold-start bench.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { build, type Metafile } from "esbuild";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { copyIntoBundle, esbuildOptions } from "../../infra/bundling.js";
import { bundleKey, fromCache, toCache } from "./bundle-cache.js";
import { startDynalite } from "../helpers/dynalite.js";
import { httpApiV2Event } from "../helpers/lambda-events.js";
import { lambdaNode } from "../helpers/lambda-node.js";
import { PROJECT_ROOT } from "../../infra/toolbelt-gateway.js";

export type BundleResult = {
  /** The folder standing in for /var/task. */
  dir: string;
  /** `dir/index.mjs` */
  file: string;
  bytes: number;
  metafile: Metafile;
  /** Package names (or project folders such as `build/`) that made it into the bundle. */
  packages: Set<string>;
  text: string;
};

/** `node_modules/@scope/name/...` → `@scope/name`; project files → their top folder (`lambdas/`, `build/`). */
export function packageOf(input: string): string {
  const m = input.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
  if (m) return m[1]!;
  return `${input.split("/")[0]}/`;
}

export async function bundleHandler(entry: string, dir: string): Promise<BundleResult> {
  await mkdir(dir, { recursive: true });
  const file = join(dir, "index.mjs");
  const options = { ...esbuildOptions(join(PROJECT_ROOT, entry), file), absWorkingDir: PROJECT_ROOT, write: true };
  const key = bundleKey(options);
  let metafile = fromCache(key, file, PROJECT_ROOT);
  if (!metafile) {
    metafile = (await build(options)).metafile!;
    toCache(key, file, metafile, PROJECT_ROOT);
  }
  const output = Object.values(metafile.outputs)[0]!;
  const { readFile } = await import("node:fs/promises");
  return {
    dir,
    file,
    bytes: output.bytes,
    metafile,
    packages: new Set(Object.keys(output.inputs).map(packageOf)),
    text: await readFile(file, "utf8"),
  };
}

/** The packages (or project folders) whose bundled files import `module`, e.g. "node:child_process". */
export function importersOf(bundle: BundleResult, module: string): Set<string> {
  const bare = module.replace(/^node:/, "");
  const found = new Set<string>();
  for (const [input, info] of Object.entries(bundle.metafile.inputs)) {
    if (info.imports.some((i) => i.path === bare || i.path === `node:${bare}`)) found.add(packageOf(input));
  }
  return found;
}

/** Copies the deployment files the way the construct does, so the test checks that too. */
export function copyDeploymentFiles(bundleDir: string, staged: { artifactDir: string; policyFile?: string; briefsFile?: string }): void {
  copyIntoBundle(bundleDir, staged);
}

export type Invocation = { event: APIGatewayProxyEventV2 };
export type InvocationResult = APIGatewayProxyStructuredResultV2 & { json?: unknown };
export type RunResult = {
  /** ms from before `import()` of the bundle until it resolved (module scope: artifact, policy, clients). */
  loadMs: number;
  /** ms from before `import()` until the first response came back. */
  firstAnswerMs: number;
  results: InvocationResult[];
  /** `process.version` of the Node that ran the bundle. */
  nodeVersion: string;
  /** What the handler logged (JSON lines: audit records, metrics, errors), in order. */
  logs: Record<string, unknown>[];
};

// The child imports the bundle by file URL, invokes the handler once per event, and prints JSON on a
// line of its own that starts with RESULT_MARK (the handler's log lines come before it, and may follow).
const RESULT_MARK = "@@toolbelt-result ";
const RUNNER = `
import { pathToFileURL } from "node:url";
import { readFileSync } from "node:fs";
const [bundle, eventsFile] = process.argv.slice(2);
const events = JSON.parse(readFileSync(eventsFile, "utf8"));
const context = { callbackWaitsForEmptyEventLoop: false, functionName: "toolbelt", awsRequestId: "bundle-test",
  getRemainingTimeInMillis: () => 10000 };
const t0 = performance.now();
const mod = await import(pathToFileURL(bundle).href);
const loadMs = performance.now() - t0;
const results = [];
let firstAnswerMs;
for (const event of events) {
  const res = await mod.handler(event, context);
  firstAnswerMs ??= performance.now() - t0;
  results.push(res);
}
process.stdout.write("\\n" + ${JSON.stringify(RESULT_MARK)} + JSON.stringify({ loadMs, firstAnswerMs, results, nodeVersion: process.version }) + "\\n");
`;

/**
 * Invokes the bundle in a fresh `node` process (cwd = the bundle folder, which has no node_modules
 * anywhere above it in a temp dir, so a missing dependency cannot be found by accident).
 */
export async function invokeInFreshProcess(
  bundle: BundleResult,
  events: APIGatewayProxyEventV2[],
  env: Record<string, string>,
  // The Lambda runtime's Node by default: what is tested is what runs on AWS.
  node: Promise<string> = lambdaNode(),
): Promise<RunResult> {
  const nodeBinary = await node;
  const runner = join(bundle.dir, "..", `runner-${process.pid}.mjs`);
  const eventsFile = join(bundle.dir, "..", `events-${process.pid}-${Date.now()}.json`);
  await writeFile(runner, RUNNER);
  await writeFile(eventsFile, JSON.stringify(events));
  const stdout = await new Promise<string>((resolve, reject) => {
    execFile(
      nodeBinary,
      [runner, bundle.file, eventsFile],
      {
        cwd: bundle.dir,
        // Only what Lambda would set, plus the test's endpoints: nothing leaks in from this process.
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true", ...env },
        maxBuffer: 64 * 1024 * 1024,
        timeout: 60_000,
      },
      (err, out, errOut) => (err ? reject(new Error(`${err.message}\n${errOut}`)) : resolve(out)),
    );
  });
  // The result is its own marked line: the handler's background work (a find-miss record) may still log after it.
  const lines = stdout.split("\n").filter((l) => l.trim() !== "");
  const result = lines.find((l) => l.startsWith(RESULT_MARK));
  if (result === undefined) throw new Error(`the bundle's runner printed no result:\n${stdout.slice(0, 2000)}`);
  const logs = lines.filter((l) => l !== result).map((l) => JSON.parse(l) as Record<string, unknown>);
  const run = { ...(JSON.parse(result.slice(RESULT_MARK.length)) as Omit<RunResult, "logs">), logs };
  for (const r of run.results) {
    if (typeof r.body === "string" && String(r.headers?.["content-type"] ?? "").includes("json")) r.json = JSON.parse(r.body) as unknown;
  }
  return run;
}

/**
 * Events answered by a synthesized asset folder, run as Lambda runs it: the bundle with its artifact,
 * policy and (when present) briefs beside it, against a dynalite of its own (health probes the table).
 */
export async function invokeAsset(dir: string, events: APIGatewayProxyEventV2[]): Promise<InvocationResult[]> {
  const briefs = join(dir, "briefs.json");
  const dynamo = await startDynalite({ table: "toolbelt-asset" });
  try {
    const run = await invokeInFreshProcess({ dir, file: join(dir, "index.mjs") } as BundleResult, events, {
      AWS_REGION: "us-east-1",
      AWS_ACCESS_KEY_ID: "test",
      AWS_SECRET_ACCESS_KEY: "test",
      TOOLBELT_ARTIFACT_DIR: join(dir, "artifact"),
      TOOLBELT_POLICY: join(dir, "policy.json"),
      ...(existsSync(briefs) ? { TOOLBELT_BRIEFS: briefs } : {}),
      TOOLBELT_TABLE: dynamo.table,
      DYNAMODB_ENDPOINT: dynamo.endpoint,
    });
    return run.results;
  } finally {
    await dynamo.close();
  }
}

/** GET /v1/health from a synthesized asset folder (invokeAsset). */
export async function healthFromAsset(dir: string): Promise<InvocationResult> {
  const [health] = await invokeAsset(dir, [httpApiV2Event({ method: "GET", path: "/v1/health" })]);
  return health!;
}
