// docs/settings.md and docs/errors.md are held to the code: every environment variable read in lambdas/,
// build/, infra/ and registry/ is in the settings table and every name there is read; every code of
// ERROR_STATUS is in the errors table with its status. The scan itself is tested on a small sample first.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ERROR_STATUS } from "../../../lambdas/core/errors.js";
import { firstColumnNames, readSources, scanSources } from "./env-scan.js";

const names = (uses: { name: string }[]) => [...new Set(uses.map((u) => u.name))].sort();

describe("the environment scan", () => {
  const sample = scanSources([
    {
      file: "sample.ts",
      text: [
        `// process.env.IN_A_COMMENT is prose, /* env.NOR_THIS */ either`,
        `const url = "http://example.com"; // a URL's slashes are not a comment start`,
        `const a = process.env.DOT_READ ?? env?.OPTIONAL_READ;`,
        `const b = env["BRACKET_READ"] + ctx.env['SINGLE_QUOTED'] + childEnv[\`TEMPLATE_READ\`];`,
        `const c = process.env\n  .SPLIT_OVER_LINES;`,
        `const { DESTRUCTURED, RENAMED: renamed, WITH_DEFAULT = "x" } = process.env;`,
        `if ("IN_CHECK" in env) {}`,
        `export const THING_ENV = "CONSTANT_NAME"; const d = env[THING_ENV];`,
        `export const LIMIT_ENV = { bytes: "TOOLBELT_LIMIT_BYTES" }; const e = env[LIMIT_ENV.bytes];`,
        `export const BASE_VARIABLES = ["HOME_LIKE", "LOCALE_LIKE"] as const;`,
        `parse(raw, "TOOLBELT_PASSED_ALONG");`,
        `const f = env[someName]; env[\`GIT_KEY_\${i}\`] = v;`,
        `environment.TOOLBELT_WRITTEN = "1"; process.env.SDK_FLAG ??= "true"; env.NOT_READ == 1 && env.COMPARED;`,
        `const re = /env.REGEX_TEXT/; const g = 4 / 2; // env.AFTER_DIVISION`,
        `const msg = "set TOOLBELT_IN_A_MESSAGE"; // TOOLBELT_IN_PROSE, TOOLBELT_A/B_SHORTHAND`,
        `const SCHEMA_ENV = 1; const EnvSchema = z.object({\n  SCHEMA_KEY: text,\n  OTHER_KEY: positiveInt(3),\n});`,
      ].join("\n"),
    },
  ]);

  it("finds reads in every spelling and only in code", () => {
    expect(names(sample.reads)).toEqual(
      [
        "BRACKET_READ",
        "COMPARED",
        "CONSTANT_NAME",
        "DESTRUCTURED",
        "DOT_READ",
        "HOME_LIKE",
        "IN_CHECK",
        "LOCALE_LIKE",
        "NOT_READ",
        "OPTIONAL_READ",
        "OTHER_KEY",
        "RENAMED",
        "SCHEMA_KEY",
        "SINGLE_QUOTED",
        "SPLIT_OVER_LINES",
        "TEMPLATE_READ",
        "TOOLBELT_LIMIT_BYTES",
        "TOOLBELT_PASSED_ALONG",
        "WITH_DEFAULT",
      ].sort(),
    );
  });

  it("tells writes and unresolved keys apart from reads", () => {
    expect(names(sample.writes)).toEqual(["SDK_FLAG", "TOOLBELT_WRITTEN"]);
    expect(sample.dynamic.map((d) => d.expr)).toEqual(["env[someName]"]);
  });

  it("sees TOOLBELT_ names in prose and messages, not shorthands", () => {
    expect(names(sample.mentions)).toEqual(["TOOLBELT_IN_A_MESSAGE", "TOOLBELT_IN_PROSE", "TOOLBELT_LIMIT_BYTES", "TOOLBELT_PASSED_ALONG", "TOOLBELT_WRITTEN"]);
  });
});

describe("docs/settings.md", () => {
  const scan = scanSources(readSources(".", ["lambdas", "build", "infra", "registry"]));
  const documented = firstColumnNames(readFileSync("docs/settings.md", "utf8"));
  const read = names(scan.reads);

  it("lists every variable the code reads", () => {
    expect(read.filter((n) => !documented.includes(n))).toEqual([]);
  });

  it("lists only variables the code reads, each once", () => {
    expect(documented.filter((n) => !read.includes(n))).toEqual([]);
    expect(documented.filter((n, i) => documented.indexOf(n) !== i)).toEqual([]);
  });

  it("names only documented settings in code, comments and messages", () => {
    expect(names(scan.mentions).filter((n) => !documented.includes(n))).toEqual([]);
  });

  it("has every gateway setting the construct sets read somewhere", () => {
    expect(names(scan.writes.filter((w) => w.name.startsWith("TOOLBELT_") && w.file.startsWith("infra/"))).filter((n) => !read.includes(n))).toEqual([]);
  });

  // Keys no constant names: the registry's own variables (families' `variables`, a model role's key_env),
  // read by name at runtime and listed by registry:check, never a setting of the gateway's.
  it("reads no other variable by a computed name", () => {
    expect(scan.dynamic.map((d) => `${d.file}: ${d.expr}`).sort()).toEqual([
      "build/cli.ts: env[name]", // --max-schema-* fallbacks: SCHEMA_LIMIT_ENV's names, passed in
      "build/pull.ts: env[name]", // ${NAME} in a pulled server's URL and headers
      "lambdas/backends/templates.ts: ctx.env[name]", // a family's declared variables
      "lambdas/core/health.ts: env[v]", // a family's declared variables in its upstream's URL (health probes)
      "lambdas/core/health.ts: env[v]",
      "lambdas/core/redaction.ts: env[n]", // the values of secret names (gateway credentials, declared secrets, TOOLBELT_SECRETS)
      "lambdas/core/redaction.ts: env[n]",
      "lambdas/http/routes/admin.ts: env[name]", // whether a family's declared variables are set (the console's catalog)
      "lambdas/http/routes/admin.ts: env[name]",
      "lambdas/models/index.ts: env[spec.key_env]", // a model role's key_env
      "lambdas/secrets.ts: env[name]", // TOOLBELT_SECRETS' variable names
      "registry/contract/upstream-settings.ts: env[k]", // which declared variables are set
    ]);
  });
});

describe("docs/errors.md", () => {
  const rows = [...readFileSync("docs/errors.md", "utf8").matchAll(/^\|\s*`([A-Z_]+)`\s*\|\s*(\d{3})\s*\|/gm)].map((m) => [m[1]!, Number(m[2])] as const);

  it("lists every code of ERROR_STATUS once, with its status", () => {
    expect(Object.fromEntries(rows)).toEqual(ERROR_STATUS);
    expect(rows.length).toBe(Object.keys(ERROR_STATUS).length);
  });
});
