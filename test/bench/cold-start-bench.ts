// Cold start of the find Lambda: the time from `import()` of the find bundle (infra/bundling.ts
// settings, the bundle that ships) in a fresh Node process to its first answer to POST /v1/find,
// per catalog size. Module scope does the cold-start work (artifact parse, index import, policy),
// so "load" is that work and "first answer" adds the first request.
//
//   npx tsx test/bench/cold-start-bench.ts [--sizes 500,4000,10000] [--runs 5] [--artifact LABEL=DIR ...] [--json]
//
// `npm run bench` (test/bench/find-bench.ts) calls measureColdStart() and prints formatColdStart().
import { createHash } from "node:crypto";
import { mkdtemp, readdir, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { emitArtifact, writeArtifact } from "../../build/artifact.js";
import { ENDPOINT_GROUPS } from "../../infra/endpoint-groups.js";
import type { CatalogTool, FamilyInfo } from "../../registry/contract/artifact.js";
import { httpApiV2Event } from "../helpers/lambda-events.js";
import { bundleHandler, invokeInFreshProcess } from "../infra/bundle-harness.js";

export type ColdStartOptions = {
  /** Prebuilt artifacts to measure, each with a label. Default: synthetic catalogs of `sizes` tools. */
  catalogs?: { label: string; artifactDir: string }[];
  /** Tool counts of the synthetic catalogs built (through build/artifact.ts) when `catalogs` is absent. Default [500, 4000, 10000]. */
  sizes?: number[];
  /** Fresh processes per catalog; the median is reported. Default 5. */
  runs?: number;
  /** The first request's find query. */
  query?: string;
};

export type Stats = { median: number; min: number; max: number };

export type ColdStartRow = {
  label: string;
  tools: number;
  /** Bytes of the artifact's files (what the bundle carries beside its code). */
  artifactBytes: number;
  runs: number;
  /** import() of the bundle until its module scope finished (artifact, index, policy, clients). */
  loadMs: Stats;
  /** import() of the bundle until the first find answer came back: the cold-start figure. */
  firstAnswerMs: Stats;
};

export type ColdStartReport = { node: string; bundleBytes: number; rows: ColdStartRow[] };

const KEY = "cold-start-bench-key";

function stats(xs: number[]): Stats {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  const median = s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
  return { median, min: s[0]!, max: s[s.length - 1]! };
}

// Deterministic pseudo-random words so every run builds the same catalogs.
function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}
const VERBS = ["list", "get", "create", "update", "delete", "search", "send", "fetch", "sync", "export", "import", "render", "check", "move", "tag", "archive"];
const NOUNS = [
  "issue",
  "commit",
  "invoice",
  "ticket",
  "message",
  "file",
  "user",
  "order",
  "report",
  "event",
  "record",
  "image",
  "note",
  "task",
  "alert",
  "payment",
  "branch",
  "contact",
  "calendar",
  "metric",
];
const WORDS = [
  "recent",
  "open",
  "shared",
  "remote",
  "daily",
  "customer",
  "project",
  "team",
  "weather",
  "stock",
  "document",
  "folder",
  "email",
  "channel",
  "repository",
  "database",
  "cluster",
  "invoice",
  "translation",
  "summary",
  "route",
  "price",
  "flight",
  "hotel",
  "recipe",
  "song",
  "video",
  "map",
  "sensor",
  "device",
];

/** A synthetic catalog of `n` tools over families of 25, with varied names, descriptions and parameters. */
export function syntheticCatalog(n: number, seed = 7): { families: FamilyInfo[]; tools: CatalogTool[] } {
  const r = rng(seed + n);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)]!;
  const tools: CatalogTool[] = [];
  for (let i = 0; i < n; i++) {
    const family = `fam${String(Math.floor(i / 25)).padStart(4, "0")}`;
    const verb = pick(VERBS);
    const noun = pick(NOUNS);
    const name = `${family}.${verb}_${noun}_${i}`;
    const extra = [pick(WORDS), pick(WORDS), pick(WORDS)];
    tools.push({
      name,
      family,
      kind: "builtin",
      description: `${verb[0]!.toUpperCase()}${verb.slice(1)} ${extra[0]} ${noun}s for a ${extra[1]} ${extra[2]}.`,
      input_schema: {
        type: "object",
        properties: {
          [`${noun}_id`]: { type: "string", description: `The ${noun} to ${verb}` },
          [extra[0]!]: { type: "string", description: `Which ${extra[0]} ${extra[1]}` },
          limit: { type: "integer", description: "How many results" },
        },
        required: [`${noun}_id`],
      },
      governance: { read_only: verb === "list" || verb === "get" || verb === "search" },
      timeout_ms: 10_000,
      backend: { kind: "builtin", handler: "unavailable" },
      source: `families/${family}/tools.yaml`,
    });
  }
  const families = [...new Set(tools.map((t) => t.family))].map((name) => {
    const own = tools.filter((t) => t.family === name);
    return {
      name,
      description: `Synthetic family ${name}.`,
      required: true,
      tool_count: own.length,
      examples: own.slice(0, 3).map((t) => t.name.split(".")[1]!),
    };
  });
  return { families, tools };
}

async function dirBytes(dir: string): Promise<number> {
  let total = 0;
  for (const f of await readdir(dir)) total += (await stat(join(dir, f))).size;
  return total;
}

export async function measureColdStart(opts: ColdStartOptions = {}): Promise<ColdStartReport> {
  const runs = opts.runs ?? 5;
  const query = opts.query ?? "list recent commits of a repository";
  const work = await mkdtemp(join(tmpdir(), "toolbelt-coldstart-"));
  try {
    const bundle = await bundleHandler(ENDPOINT_GROUPS.api.entry, join(work, "api"));
    const policyFile = join(work, "policy.json");
    const digest = createHash("sha256").update(KEY).digest("hex");
    await writeFile(policyFile, JSON.stringify({ version: 1, principals: [{ id: "bench", keys: [digest], allow: ["*"] }] }));

    let catalogs = opts.catalogs;
    if (!catalogs) {
      catalogs = [];
      for (const n of opts.sizes ?? [500, 4000, 10_000]) {
        const dir = join(work, `artifact-${n}`);
        const { families, tools } = syntheticCatalog(n);
        await writeArtifact(dir, await emitArtifact({ families, tools, always_loaded: [] }));
        catalogs.push({ label: `synthetic-${n}`, artifactDir: dir });
      }
    }

    const rows: ColdStartRow[] = [];
    for (const { label, artifactDir } of catalogs) {
      const { readFile } = await import("node:fs/promises");
      const manifest = JSON.parse(await readFile(join(artifactDir, "manifest.json"), "utf8")) as { counts: { tools: number } };
      const load: number[] = [];
      const first: number[] = [];
      for (let i = 0; i < runs; i++) {
        const run = await invokeInFreshProcess(
          bundle,
          [httpApiV2Event({ method: "POST", path: "/v1/find", headers: { authorization: `Bearer ${KEY}` }, body: { query } })],
          {
            AWS_REGION: "us-east-1",
            AWS_ACCESS_KEY_ID: "bench",
            AWS_SECRET_ACCESS_KEY: "bench",
            TOOLBELT_ARTIFACT_DIR: artifactDir,
            TOOLBELT_POLICY: policyFile,
            TOOLBELT_TABLE: "toolbelt-bench",
            // Find without a session never reaches DynamoDB; a closed port makes sure of it.
            DYNAMODB_ENDPOINT: "http://127.0.0.1:9",
          },
        );
        const status = run.results[0]?.statusCode;
        if (status !== 200) throw new Error(`${label}: find answered ${status}: ${run.results[0]?.body?.slice(0, 300)}`);
        load.push(run.loadMs);
        first.push(run.firstAnswerMs);
      }
      rows.push({ label, tools: manifest.counts.tools, artifactBytes: await dirBytes(artifactDir), runs, loadMs: stats(load), firstAnswerMs: stats(first) });
    }
    return { node: process.version, bundleBytes: bundle.bytes, rows };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

export function formatColdStart(report: ColdStartReport): string {
  const kb = (b: number) => `${(b / 1000).toFixed(0)} KB`;
  const ms = (s: Stats) => `${s.median.toFixed(1)} (${s.min.toFixed(1)}–${s.max.toFixed(1)})`;
  const lines = [
    `Cold start of the find bundle (${kb(report.bundleBytes)} minified, without the artifact) in a fresh Node ${report.node} process`,
    `median (min–max) over ${report.rows[0]?.runs ?? 0} processes; load = import() until module scope done, first answer = until POST /v1/find returned`,
    `${"catalog".padEnd(22)}${"tools".padStart(7)}${"artifact".padStart(11)}   ${"load ms".padEnd(22)}first answer ms`,
    ...report.rows.map(
      (r) => `${r.label.padEnd(22)}${String(r.tools).padStart(7)}${kb(r.artifactBytes).padStart(11)}   ${ms(r.loadMs).padEnd(22)}${ms(r.firstAnswerMs)}`,
    ),
  ];
  return lines.join("\n");
}

async function main(argv: string[]): Promise<void> {
  const opts: ColdStartOptions = {};
  let json = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${arg} needs a value`);
      return v;
    };
    if (arg === "--json") json = true;
    else if (arg === "--runs") opts.runs = Number(value());
    else if (arg === "--sizes") opts.sizes = value().split(",").map(Number);
    else if (arg === "--query") opts.query = value();
    else if (arg === "--artifact") {
      const [label, dir] = value().split("=", 2);
      if (!label || !dir) throw new Error("--artifact takes LABEL=DIR");
      (opts.catalogs ??= []).push({ label, artifactDir: dir });
    } else throw new Error(`unknown option ${arg}; usage: cold-start-bench [--sizes 500,4000,10000] [--runs 5] [--artifact LABEL=DIR] [--query Q] [--json]`);
  }
  const report = await measureColdStart(opts);
  process.stdout.write(json ? `${JSON.stringify(report)}\n` : `${formatColdStart(report)}\n`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  main(process.argv.slice(2)).catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
