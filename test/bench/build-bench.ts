// `npm run bench:build`: check and build times for generated registries of 1,000 and 10,000 tools
// (~20 families, realistic tools with schemas, templates and governance). Prints figures; asserts nothing.
import { execFileSync } from "node:child_process";
import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { emitArtifact, writeArtifact } from "../../build/artifact.js";
import { buildSearchIndex } from "../../build/search-index.js";
import { loadRegistry } from "../../build/load.js";

const FAMILIES = 20;
const TOOLS_PER_FILE = 50;
const VERBS = ["get", "list", "create", "update", "delete", "search", "export", "import", "sync", "archive", "restore", "count", "tag", "share", "watch"];
const NOUNS = [
  "invoice",
  "customer",
  "ticket",
  "order",
  "report",
  "user",
  "project",
  "comment",
  "file",
  "message",
  "event",
  "payment",
  "shipment",
  "contract",
  "lead",
  "task",
  "note",
  "alert",
  "metric",
  "release",
];
const ADJ = ["recent", "open", "archived", "pending", "shared", "flagged", "overdue", "public", "private", "draft"];
const PROPS = ["id", "query", "limit", "cursor", "status", "owner", "since", "until", "tags", "format", "email", "region", "priority", "amount", "currency"];

/** Deterministic pseudo-random numbers, so every run benchmarks the same registry. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => (s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32;
}

function tool(family: string, i: number, r: () => number) {
  const verb = VERBS[i % VERBS.length]!;
  const noun = NOUNS[Math.floor(i / VERBS.length) % NOUNS.length]!;
  const adj = ADJ[Math.floor(r() * ADJ.length)]!;
  const name = `${verb}_${adj}_${noun}_${i}`;
  const n = 2 + Math.floor(r() * 5);
  const props: Record<string, unknown> = {};
  for (let k = 0; k < n; k++) {
    const p = PROPS[(i + k * 3) % PROPS.length]!;
    props[p] =
      p === "limit"
        ? { type: "integer", minimum: 1, maximum: 500, description: "Maximum number of results" }
        : p === "tags"
          ? { type: "array", items: { type: "string" }, description: `Tags of the ${noun}` }
          : p === "status"
            ? { enum: ["open", "closed", "pending"], description: `Status of the ${noun}` }
            : p === "email"
              ? { type: "string", format: "email", description: "E-mail address of the person" }
              : { type: "string", description: `The ${p} of the ${adj} ${noun}` };
  }
  const keys = Object.keys(props);
  const required = keys.slice(0, 1);
  const input_schema = { type: "object", required, properties: props, additionalProperties: false };
  const description = `${verb[0]!.toUpperCase()}${verb.slice(1)} ${adj} ${noun}s in ${family} by ${keys.join(", ")}.`;
  const readOnly = ["get", "list", "search", "count", "export", "watch"].includes(verb);
  const governance = readOnly
    ? { read_only: true }
    : verb === "delete"
      ? { destructive: true, consequential: true, affects: required[0], impact: 0.6 }
      : { idempotent: verb === "update" };
  const kind = i % 3;
  if (kind === 0) {
    return {
      name,
      kind: "http",
      description,
      input_schema,
      ...governance,
      method: readOnly ? "GET" : verb === "delete" ? "DELETE" : "POST",
      url: `\${${family.toUpperCase().replace(/-/g, "_")}_URL}/${noun}s/{{input.${required[0]}}}`,
      headers: { Authorization: `Bearer \${${family.toUpperCase().replace(/-/g, "_")}_TOKEN}`, Accept: "application/json" },
      ...(readOnly ? {} : { body: Object.fromEntries(keys.map((k) => [k, `{{input.${k}}}`])) }),
      timeout_secs: 10,
    };
  }
  if (kind === 1) {
    return {
      name,
      kind: "exec",
      description,
      input_schema,
      ...governance,
      command: `${family}-cli`,
      args: [verb, noun, ...keys.map((k) => `--${k}={{input.${k}}}`)],
      output: "json",
    };
  }
  return {
    name,
    kind: "builtin",
    description,
    input_schema,
    ...governance,
    handler: "reshape",
    output_schema: { type: "object", properties: { ok: { type: "boolean" } } },
  };
}

async function generate(total: number): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `toolbelt-bench-${total}-`));
  const r = rng(total);
  const perFamily = Math.ceil(total / FAMILIES);
  const families = [];
  let made = 0;
  for (let f = 0; f < FAMILIES && made < total; f++) {
    const family = `fam-${NOUNS[f]}`;
    const prefix = family.toUpperCase().replace(/-/g, "_");
    families.push({
      name: family,
      description: `Tools for ${NOUNS[f]} records in a business system.`,
      source: { tools: `families/${family}` },
      // What its http tools' templates read (tool() above): a family sees only what it declares.
      variables: { [`${prefix}_URL`]: {}, [`${prefix}_TOKEN`]: { secret: true } },
    });
    await mkdir(join(dir, "families", family), { recursive: true });
    const count = Math.min(perFamily, total - made);
    for (let start = 0; start < count; start += TOOLS_PER_FILE) {
      const tools = [];
      for (let i = start; i < Math.min(count, start + TOOLS_PER_FILE); i++) tools.push(tool(family, i, r));
      await writeFile(join(dir, "families", family, `tools-${String(start / TOOLS_PER_FILE).padStart(3, "0")}.yaml`), stringify({ version: 1, tools }));
    }
    made += count;
  }
  await writeFile(join(dir, "families.yaml"), stringify({ version: 1, always_loaded: [`${families[0]!.name}.*`], families }));
  return dir;
}

const ms = (t0: number) => performance.now() - t0;

function timed(args: string[]): { wall: number; cpu: number } {
  const cmd = [process.execPath, "--import", "tsx", "build/cli.ts", ...args].map((a) => `'${a}'`).join(" ");
  const report = execFileSync("bash", ["-c", `TIMEFORMAT='%R %U %S'; { time (${cmd} >/dev/null 2>&1); } 2>&1`], { encoding: "utf8" });
  return parseTime(report);
}

function parseTime(text: string): { wall: number; cpu: number } {
  const [real, user, sys] = text.trim().split(/\s+/).slice(-3).map(Number);
  return { wall: real! * 1000, cpu: (user! + sys!) * 1000 };
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (x: number) => `${x.toFixed(0).padStart(6)} ms`;

async function bench(total: number, runs: number): Promise<void> {
  const dir = await generate(total);
  try {
    const check: number[] = [],
      checkCpu: number[] = [],
      index: number[] = [],
      emit: number[] = [],
      write: number[] = [];
    let tools = 0,
      bytes = 0;
    for (let k = 0; k < runs; k++) {
      let t0 = performance.now();
      const cpu0 = process.cpuUsage();
      const reg = await loadRegistry(dir);
      check.push(ms(t0));
      const cpu = process.cpuUsage(cpu0);
      checkCpu.push((cpu.user + cpu.system) / 1000);
      if (!reg.ok) throw new Error(`generated registry has errors: ${JSON.stringify(reg.diagnostics.slice(0, 3))}`);
      tools = reg.catalog.tools.length;
      t0 = performance.now();
      await buildSearchIndex(reg.catalog);
      index.push(ms(t0));
      t0 = performance.now();
      const files = await emitArtifact({
        families: reg.catalog.families,
        tools: reg.catalog.tools,
        always_loaded: reg.alwaysLoaded,
        skipped_families: reg.skippedFamilies,
      });
      emit.push(ms(t0));
      t0 = performance.now();
      await writeArtifact(join(dir, "..", `${dir.split("/").pop()}-artifact`), files);
      write.push(ms(t0));
      bytes = Object.values(files).reduce((n, s) => n + Buffer.byteLength(s), 0);
    }
    await rm(join(dir, "..", `${dir.split("/").pop()}-artifact`), { recursive: true, force: true });
    // What CI pays: the whole CLI in a fresh process (tsx start-up, cold JIT). bash's `time` gives its CPU too.
    const out = join(dir, "..", `${dir.split("/").pop()}-cli-artifact`);
    const cliCheck = timed(["check", "--registry", dir]);
    const cliBuild = timed(["build", "--registry", dir, "--out", out]);
    await rm(out, { recursive: true, force: true });
    const m = median(emit);
    console.log(`${tools} tools, ${FAMILIES} families (median of ${runs} in-process runs):`);
    console.log(`  check (load + validate)         ${fmt(median(check))}   (CPU ${fmt(median(checkCpu)).trim()}, all threads)`);
    console.log(`  build (emitArtifact)            ${fmt(m)}   of which search index ${fmt(median(index))} (${((median(index) / m) * 100).toFixed(0)}%)`);
    console.log(`  write artifact                  ${fmt(median(write))}   (${(bytes / 1024 / 1024).toFixed(1)} MB)`);
    console.log(`  check + build + write           ${fmt(median(check) + m + median(write))}`);
    console.log(`  first (cold) in-process check   ${fmt(check[0]!)}`);
    console.log(`  CLI \`check\` (fresh process)     ${fmt(cliCheck.wall)}   (CPU ${fmt(cliCheck.cpu).trim()})`);
    console.log(`  CLI \`build\` (fresh process)     ${fmt(cliBuild.wall)}   (CPU ${fmt(cliBuild.cpu).trim()}; check + build + write)`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

// The machine may be shared: the load average says how far wall times can be trusted.
const load = () =>
  loadavg()
    .map((x) => x.toFixed(1))
    .join(" ");
console.log(`build bench on ${cpus().length} cores, Node ${process.version}, load average ${load()}`);
await bench(1_000, 3);
await bench(10_000, 3);
console.log(`load average at the end ${load()}`);
