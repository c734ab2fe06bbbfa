// The registry CLI: the only place in build/ that prints and exits.
//   check   [--registry DIR] [--format text|json|github] [LIMITS]   exit 0 clean, 1 problems, 2 usage
//   build   [--registry DIR] [--out DIR] [--force] [LIMITS]
//   pull    --url URL --family NAME [--registry DIR] [--out FILE] [--header NAME=VALUE]... [--replace] [LIMITS]
//   pull    --check [--family NAME] [--registry DIR] [--url URL] [--header NAME=VALUE]...   exit 0 unchanged, 1 drift
//   LIMITS: --max-schema-bytes N --max-schema-depth N (else TOOLBELT_MAX_SCHEMA_BYTES, TOOLBELT_MAX_SCHEMA_DEPTH)
//   import  --jsonl FILE --family NAME [--registry DIR] [--description TEXT] [--optional] [--replace] [--warnings]
//   import-openapi --spec FILE|URL --family NAME [--operations GLOB]... [--registry DIR] [--description TEXT] [--optional] [--replace] [--warnings]
//   migrate [--registry DIR] [--check]
//   schema  [--out DIR] [--check]
//   init    --registry DIR
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs, type ParseArgsConfig } from "node:util";
import { buildRegistryArtifact } from "./build.js";
import { loadRegistry } from "./load.js";
import { FORMATS, formatDiagnostics, type Format } from "./report.js";
import { configuredRoles, modelRoleWarnings } from "./validate/models.js";
import { DEFAULT_SCHEMA_LIMITS, SCHEMA_LIMIT_ENV, type SchemaLimits } from "./validate/schema-limits.js";
import { MODELS_ENV } from "../registry/contract/model-roles.js";
import { printable } from "../registry/contract/printable.js";
import { declaredSettings } from "../registry/contract/upstream-settings.js";

const USAGE = `usage: tsx build/cli.ts <command> [options]
  check   [--registry DIR] [--format text|json|github]   validate the registry, report every problem
  build   [--registry DIR] [--out DIR] [--force]          write the artifact (default dist/artifact); --force overwrites another registry's
  pull    --url URL --family NAME [--registry DIR] [--out FILE] [--header NAME=VALUE]... [--replace]
                                                          snapshot an MCP server's tools/list
  pull    --check [--family NAME] [--registry DIR]        compare MCP families' live tools/list with their snapshots;
                                                          exit 1 when a tool changed, was added or removed upstream
  import  --jsonl FILE --family NAME [--registry DIR] [--description TEXT] [--optional] [--replace] [--warnings]
                                                          add a family from a JSONL catalog
  import-openapi --spec FILE|URL --family NAME [--operations GLOB]... [--registry DIR]
          [--description TEXT] [--optional] [--replace]   add http tools from an OpenAPI 3.0/3.1 document
  migrate [--registry DIR] [--check]                      bring registry files to the current version
  schema  [--out DIR] [--check]                           publish the format as JSON Schema
  init    --registry DIR                                  start a new registry: one family of each tool kind
check, build and pull take --max-schema-bytes N (default ${DEFAULT_SCHEMA_LIMITS.maxBytes}, else ${SCHEMA_LIMIT_ENV.maxBytes})
and --max-schema-depth N (default ${DEFAULT_SCHEMA_LIMITS.maxDepth}, else ${SCHEMA_LIMIT_ENV.maxDepth}): the most one tool's input or output schema may hold
`;

class UsageError extends Error {}

const EDITED = { added: "added to", replaced: "replaced in", updated: "updated in", unchanged: "unchanged in" } as const;

/** Left-out operations listed one per line before the rest are counted. */
const SKIPPED_SHOWN = 20;

type Io = {
  out: (s: string) => void;
  err: (s: string) => void;
  /** The environment `${NAME}` references read (pull); process.env when omitted. */
  env?: NodeJS.ProcessEnv;
};

function args<T extends NonNullable<ParseArgsConfig["options"]>>(argv: string[], options: T) {
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals: false }).values;
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

const LIMIT_FLAGS = { "max-schema-bytes": { type: "string" }, "max-schema-depth": { type: "string" } } as const;

/** Per-tool schema limits: a flag, else the environment, else the default. */
function schemaLimits(v: { "max-schema-bytes"?: string; "max-schema-depth"?: string }, env: NodeJS.ProcessEnv): SchemaLimits {
  const read = (flag: string, value: string | undefined, name: string, fallback: number) => {
    const text = value ?? env[name];
    if (text === undefined || text === "") return fallback;
    if (!/^[1-9]\d{0,9}$/.test(text))
      throw new UsageError(`${value !== undefined ? `--${flag}` : name} must be a positive whole number, got \`${printable(text)}\``);
    return Number(text);
  };
  return {
    maxBytes: read("max-schema-bytes", v["max-schema-bytes"], SCHEMA_LIMIT_ENV.maxBytes, DEFAULT_SCHEMA_LIMITS.maxBytes),
    maxDepth: read("max-schema-depth", v["max-schema-depth"], SCHEMA_LIMIT_ENV.maxDepth, DEFAULT_SCHEMA_LIMITS.maxDepth),
  };
}

function need(value: string | undefined, flag: string): string {
  if (!value) throw new UsageError(`${flag} is required`);
  return value;
}

export async function run(argv: string[], raw: Io): Promise<number> {
  // Registry and upstream data reach the terminal escaped: no escape sequence or bidi control of theirs runs.
  const io: Io = { ...raw, out: (s) => raw.out(printable(s, { multiline: true })), err: (s) => raw.err(printable(s, { multiline: true })) };
  const env = io.env ?? process.env;
  const [command, ...rest] = argv;
  // `<command> --help` is a question, not a usage error.
  if (rest.includes("--help") || rest.includes("-h")) {
    io.out(USAGE);
    return 0;
  }
  try {
    switch (command) {
      case "check": {
        const v = args(rest, { registry: { type: "string", default: "registry" }, format: { type: "string", default: "text" }, ...LIMIT_FLAGS });
        if (!FORMATS.includes(v.format as Format)) throw new UsageError(`--format must be one of ${FORMATS.join(", ")}`);
        const reg = await loadRegistry(v.registry, { schemaLimits: schemaLimits(v, env) });
        // Warnings only: which model roles the gateway's environment leaves unset.
        reg.diagnostics.push(...modelRoleWarnings(reg.catalog.tools, configuredRoles(env[MODELS_ENV])));
        const summary = { families: reg.catalog.families.length, tools: reg.catalog.tools.length, settings: declaredSettings(reg.catalog.families) };
        io.out(formatDiagnostics(reg.diagnostics, v.format as Format, v.registry, summary));
        return reg.ok ? 0 : 1;
      }
      case "build": {
        const v = args(rest, {
          registry: { type: "string", default: "registry" },
          out: { type: "string", default: "dist/artifact" },
          force: { type: "boolean", default: false },
          ...LIMIT_FLAGS,
        });
        const result = await buildRegistryArtifact(v.registry, v.out, { overwrite: v.force, schemaLimits: schemaLimits(v, env) });
        if (result.refused) {
          io.err(`${result.refused} (or pass --force)\n`);
          return 1;
        }
        if (!result.ok) {
          io.err(formatDiagnostics(result.diagnostics, "text", v.registry));
          io.err("build failed: nothing written\n");
          return 1;
        }
        if (result.diagnostics.length > 0) io.err(formatDiagnostics(result.diagnostics, "text", v.registry));
        const m = result.manifest!;
        io.out(`artifact written to ${v.out}: ${m.counts.tools} tools in ${m.counts.families} families, registry ${m.registry_hash.slice(0, 12)}\n`);
        return 0;
      }
      case "pull": {
        const v = args(rest, {
          url: { type: "string" },
          family: { type: "string" },
          registry: { type: "string", default: "registry" },
          out: { type: "string" },
          header: { type: "string", multiple: true, default: [] },
          replace: { type: "boolean", default: false },
          check: { type: "boolean", default: false },
          ...LIMIT_FLAGS,
        });
        const { pullSnapshot, checkSnapshots } = await import("./pull.js");
        const headers: Record<string, string> = {};
        for (const h of v.header) {
          const eq = h.indexOf("=");
          if (eq <= 0) throw new UsageError(`--header takes NAME=VALUE, got \`${h}\``);
          headers[h.slice(0, eq)] = h.slice(eq + 1);
        }
        if (v.check) {
          const checked = await checkSnapshots({
            registry: v.registry,
            ...(v.family !== undefined ? { family: v.family } : {}),
            ...(v.url !== undefined ? { url: v.url } : {}),
            ...(v.header.length ? { headers } : {}),
            ...(io.env ? { env: io.env } : {}),
          });
          let drifted = 0;
          for (const f of checked) {
            for (const d of f.drift) {
              drifted++;
              const what =
                d.changed[0] === "added"
                  ? "added upstream (not served until pulled)"
                  : d.changed[0] === "removed"
                    ? "removed upstream"
                    : `changed: ${d.changed.join(", ")}`;
              io.err(`${f.family}: tool \`${printable(d.tool)}\` ${what}\n`);
            }
          }
          if (drifted > 0) {
            io.err(
              `${drifted} tool${drifted === 1 ? "" : "s"} drifted from their snapshots: review the upstream, then pull again to pin the new definitions\n`,
            );
            return 1;
          }
          io.out(`${checked.length} MCP famil${checked.length === 1 ? "y matches its snapshot" : "ies match their snapshots"}\n`);
          return 0;
        }
        const r = await pullSnapshot({
          url: need(v.url, "--url"),
          family: need(v.family, "--family"),
          registry: v.registry,
          out: v.out,
          headers,
          replace: v.replace,
          schemaLimits: schemaLimits(v, env),
          ...(io.env ? { env: io.env } : {}),
        });
        io.out(
          `${r.tools} tools from ${printable(r.server)} written to ${r.file}${r.family && r.family !== "unchanged" ? `; family \`${v.family}\` ${EDITED[r.family]} families.yaml` : ""}\n`,
        );
        return 0;
      }
      case "import": {
        const v = args(rest, {
          jsonl: { type: "string" },
          family: { type: "string" },
          registry: { type: "string", default: "registry" },
          description: { type: "string" },
          optional: { type: "boolean", default: false },
          replace: { type: "boolean", default: false },
          warnings: { type: "boolean", default: false },
        });
        const { importJsonl } = await import("./import-jsonl.js");
        const r = await importJsonl({
          jsonl: need(v.jsonl, "--jsonl"),
          family: need(v.family, "--family"),
          registry: v.registry,
          description: v.description,
          required: !v.optional,
          replace: v.replace,
        });
        io.out(
          `${r.tools} tool${r.tools === 1 ? "" : "s"} copied to ${r.file}${r.family !== "unchanged" ? `; family \`${v.family}\` ${EDITED[r.family]} families.yaml` : ""}\n`,
        );
        const { importReport } = await import("./import-report.js");
        io.out(await importReport({ registry: v.registry, family: need(v.family, "--family"), renamed: r.renamed, full: v.warnings }));
        return 0;
      }
      case "import-openapi": {
        const v = args(rest, {
          spec: { type: "string" },
          family: { type: "string" },
          operations: { type: "string", multiple: true, default: [] },
          registry: { type: "string", default: "registry" },
          description: { type: "string" },
          optional: { type: "boolean", default: false },
          replace: { type: "boolean", default: false },
          warnings: { type: "boolean", default: false },
        });
        const { importOpenApi } = await import("./import-openapi.js");
        const r = await importOpenApi({
          spec: need(v.spec, "--spec"),
          family: need(v.family, "--family"),
          registry: v.registry,
          operations: v.operations,
          description: v.description,
          required: !v.optional,
          replace: v.replace,
        });
        io.out(`${r.tools} tools from ${r.selected} operations written to ${r.file}; family \`${v.family}\` ${EDITED[r.family]} families.yaml\n`);
        io.out(`variables to set where the gateway runs: ${r.variables.join(", ")}\n`);
        if (r.skipped.length > 0) {
          io.out(`${r.skipped.length} operation(s) left out:\n`);
          for (const s of r.skipped.slice(0, SKIPPED_SHOWN)) io.out(`  ${printable(s.operation)}: ${printable(s.reason)}\n`);
          if (r.skipped.length > SKIPPED_SHOWN) io.out(`  … and ${r.skipped.length - SKIPPED_SHOWN} more\n`);
        }
        const { importReport } = await import("./import-report.js");
        io.out(await importReport({ registry: v.registry, family: v.family!, renamed: r.renamed, warnings: r.warnings, full: v.warnings }));
        return 0;
      }
      case "migrate": {
        const v = args(rest, { registry: { type: "string", default: "registry" }, check: { type: "boolean", default: false } });
        const { migrateRegistry } = await import("./migrate.js");
        const r = await migrateRegistry(v.registry, { write: !v.check });
        for (const c of r.changed)
          io.out(`${v.check ? "needs migration" : "migrated"}: ${c.file} (${c.from === undefined ? "no version" : `version ${c.from}`} → ${c.to})\n`);
        for (const p of r.problems) io.err(`${p.file}: ${p.message}\n`);
        io.out(`${r.changed.length} file(s) ${v.check ? "to migrate" : "migrated"}, ${r.scanned} scanned\n`);
        return r.problems.length > 0 || (v.check && r.changed.length > 0) ? 1 : 0;
      }
      case "init": {
        const v = args(rest, { registry: { type: "string" } });
        const dir = need(v.registry, "--registry");
        const { initRegistry } = await import("./init.js");
        const r = initRegistry(dir);
        const env = r.requiredSettings.map((n) => `${n}=… `).join("");
        io.out(
          `a new registry in ${dir}: ${r.files.join(", ")}\nnext: npm run registry:check -- --registry ${dir} (it lists the settings each family declares), then ${env}npm start -- --registry ${dir}\n`,
        );
        return 0;
      }
      case "schema": {
        const v = args(rest, { out: { type: "string", default: "registry/schema" }, check: { type: "boolean", default: false } });
        const { writeJsonSchemas } = await import("./json-schemas.js");
        const r = await writeJsonSchemas(v.out, { check: v.check });
        if (v.check && r.stale.length > 0) {
          io.err(`stale: ${r.stale.join(", ")}: run \`npm run registry:schema\`\n`);
          return 1;
        }
        io.out(`${v.check ? "up to date" : "written"}: ${r.files.join(", ")}\n`);
        return 0;
      }
      case undefined:
        throw new UsageError("a command is required");
      case "help":
      case "--help":
        io.out(USAGE);
        return 0;
      default:
        throw new UsageError(`unknown command \`${command}\``);
    }
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`${e.message}\n${USAGE}`);
      return 2;
    }
    // Operational failures (unreachable server, unwritable folder) get a message, never a stack trace.
    io.err(`${command}: ${printable((e as Error).message ?? String(e))}\n`);
    return 1;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const code = await run(process.argv.slice(2), { out: (s) => process.stdout.write(s), err: (s) => process.stderr.write(s) });
  process.exitCode = code;
}
