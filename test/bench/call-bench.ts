// npx tsx test/bench/call-bench.ts [--tools 10000]
// In-process call gateway figures: name resolution (exact, near-miss, unknown) over a large catalog,
// argument validation with a cached ajv validator, and a whole gateway call to a builtin tool.
import { parseArgs } from "node:util";
import type { CatalogTool } from "../../registry/contract/artifact.js";
import { createBuiltinBackend } from "../../lambdas/backends/builtin.js";
import { createCallGateway } from "../../lambdas/core/call/gateway.js";
import { createNameResolver } from "../../lambdas/core/call/resolve.js";
import { createSchemaValidator } from "../../lambdas/core/call/validate.js";

const { values } = parseArgs({ options: { tools: { type: "string", default: "10000" } } });
const N = Number(values.tools);

const verbs = ["list", "get", "create", "update", "delete", "search", "count", "export", "import", "sync"];
const nouns = ["issues", "notes", "files", "users", "orders", "commits", "events", "invoices", "tickets", "pages"];
const names: string[] = [];
for (let i = 0; names.length < N; i++) {
  const family = `fam${Math.floor(i / 100)}`;
  names.push(`${family}.${verbs[i % 10]}_${nouns[Math.floor(i / 10) % 10]}_${i}`);
}

function time(label: string, runs: number, fn: (i: number) => unknown): void {
  for (let i = 0; i < Math.min(runs, 200); i++) fn(i); // warm up
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = process.hrtime.bigint();
    fn(i);
    samples.push(Number(process.hrtime.bigint() - t) / 1000);
  }
  samples.sort((a, b) => a - b);
  const q = (p: number) => samples[Math.min(samples.length - 1, Math.floor(p * samples.length))]!.toFixed(1);
  console.log(`${label.padEnd(44)} p50 ${q(0.5).padStart(8)} µs   p99 ${q(0.99).padStart(8)} µs   (${runs} runs)`);
}

async function main() {
  console.log(`catalog: ${N} tools`);
  const t0 = process.hrtime.bigint();
  const resolver = createNameResolver(names);
  console.log(`resolver build (cold start)                  ${(Number(process.hrtime.bigint() - t0) / 1e6).toFixed(1)} ms`);
  const t1 = process.hrtime.bigint();
  resolver.resolve("first.near-miss", () => true);
  console.log(`first near-miss (builds the near-miss index) ${(Number(process.hrtime.bigint() - t1) / 1e6).toFixed(1)} ms`);
  const all = () => true;
  const half = (n: string) => n.charCodeAt(n.length - 1) % 2 === 0;
  time("resolve exact", 20000, (i) => resolver.resolve(names[i % N]!, all));
  time("resolve case/separator variant", 5000, (i) => resolver.resolve(names[i % N]!.toUpperCase().replace(".", "-"), all));
  time("resolve typo (one edit), half granted", 500, (i) => resolver.resolve(names[(i * 7) % N]!.replace("_", ""), half));
  time("resolve unknown name (suggestions)", 500, (i) => resolver.resolve(`nothing.like_this_${i}`, all));

  const schema = {
    type: "object",
    additionalProperties: false,
    required: ["repo"],
    properties: { repo: { type: "string", minLength: 1 }, count: { type: "integer", minimum: 1, default: 20 }, rev: { type: "string", pattern: "^[^-]" } },
  };
  const validator = createSchemaValidator();
  time("validate args (cached validator)", 20000, (i) => validator.check(schema, { repo: ".", count: (i % 50) + 1 }, "input"));
  time("validate bad args (3 problems)", 20000, () => validator.check(schema, { count: "x", rev: "-x", y: 1 }, "input"));

  const tool: CatalogTool = {
    name: "toolbelt.reshape",
    family: "toolbelt",
    kind: "builtin",
    description: "Reshape.",
    input_schema: { type: "object", required: ["data", "mapping"], properties: { data: {}, mapping: { type: "object" } } },
    governance: {},
    timeout_ms: 5000,
    backend: { kind: "builtin", handler: "reshape" },
    source: "bench",
  };
  const gateway = createCallGateway({ tools: new Map([[tool.name, tool]]), backends: { builtin: createBuiltinBackend() } });
  const caller = { principal: "bench", admin: false, granted: all };
  const runs = 20000;
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = process.hrtime.bigint();
    await gateway.call({ tool: "toolbelt.reshape", args: { data: { a: { b: i } }, mapping: { x: "a.b" } } }, caller);
    samples.push(Number(process.hrtime.bigint() - t) / 1000);
  }
  samples.sort((a, b) => a - b);
  console.log(
    `${"gateway call, builtin reshape".padEnd(44)} p50 ${samples[runs / 2]!.toFixed(1).padStart(8)} µs   p99 ${samples[Math.floor(runs * 0.99)]!.toFixed(1).padStart(8)} µs   (${runs} runs)`,
  );
}

await main();
