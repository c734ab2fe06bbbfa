// The import boundaries in biome.jsonc state the architecture; `npm run check` holds the tree to them.
// This test holds the rules themselves: it lints a throwaway tree laid out like ours, with the project's
// own biome.jsonc, and asserts that every forbidden import is reported and every allowed one is not.
// A rule that is deleted, narrowed or pointed at a renamed folder fails here instead of going quiet.
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "../../..");
const BIOME = createRequire(import.meta.url).resolve("@biomejs/biome/bin/biome");
const BOUNDARY_RULES = ["style/noRestrictedImports", "style/noProcessEnv", "suspicious/noConsole"];

const ADAPTER = "the core imports no adapter";
const LOADER = "the core reads no files";
const PURE = "the core is pure";
const AWS = "only adapters import the AWS SDK";
const BUILD_FROM_LAMBDAS = "build/ imports nothing from lambdas/";
const LAMBDAS_FROM_BUILD = "Lambda code imports nothing from build/";
const REGISTRY = "registry/contract/ is the contract";
const ENV = "process.env";
const CONSOLE = "console";

/** A file with one import (or use) that the rules must report, and what the report must say. */
const forbidden: [file: string, source: string, message: string][] = [
  ["lambdas/core/stores.ts", `import type { SessionStore } from "../stores/dynamodb.js";\nexport type T = SessionStore;`, ADAPTER],
  ["lambdas/core/find/http.ts", `import { app } from "../../http/app.js";\nexport const a = app;`, ADAPTER],
  ["lambdas/core/call/handlers.ts", `import { handler } from "../../handlers/api.js";\nexport const h = handler;`, ADAPTER],
  ["lambdas/core/config.ts", `import { loadConfig } from "../config.js";\nexport const c = loadConfig;`, ADAPTER],
  ["lambdas/core/backends.ts", `import { httpBackend } from "../backends/http.js";\nexport const b = httpBackend;`, ADAPTER],
  ["lambdas/core/models.ts", `import { bedrock } from "../models/bedrock.js";\nexport const m = bedrock;`, ADAPTER],
  ["lambdas/core/dynamic.ts", `export const load = () => import("../stores/dynamodb.js");`, ADAPTER],
  ["lambdas/core/reexport.ts", `export { errorResponse } from "../http/errors.js";`, ADAPTER],
  ["lambdas/core/loader.ts", `import { loadArtifact } from "../artifact.js";\nexport const l = loadArtifact;`, LOADER],
  ["lambdas/core/find/loader-type.ts", `import type { Artifact } from "../../artifact.js";\nexport type A = Artifact;`, LOADER],
  ["lambdas/core/aws.ts", `import { DynamoDBClient } from "@aws-sdk/client-dynamodb";\nexport const c = DynamoDBClient;`, AWS],
  ["lambdas/core/fs.ts", `import { readFileSync } from "node:fs";\nexport const r = readFileSync;`, PURE],
  ["lambdas/core/event.ts", `import type { APIGatewayProxyEventV2 } from "aws-lambda";\nexport type E = APIGatewayProxyEventV2;`, PURE],
  ["lambdas/core/env.ts", `export const region = process.env.AWS_REGION;`, ENV],
  ["lambdas/core/build.ts", `import { loadRegistry } from "../../build/load.js";\nexport const l = loadRegistry;`, LAMBDAS_FROM_BUILD],
  ["build/lambdas.ts", `import { ToolbeltError } from "../lambdas/core/errors.js";\nexport const e = ToolbeltError;`, BUILD_FROM_LAMBDAS],
  ["build/validate/lambdas.ts", `import { loadConfig } from "../../lambdas/config.js";\nexport const c = loadConfig;`, BUILD_FROM_LAMBDAS],
  ["build/aws.ts", `import { SSMClient } from "@aws-sdk/client-ssm";\nexport const c = SSMClient;`, AWS],
  ["lambdas/http/aws.ts", `import { DynamoDBClient } from "@aws-sdk/client-dynamodb";\nexport const c = DynamoDBClient;`, AWS],
  ["lambdas/backends/aws.ts", `import { SSMClient } from "@aws-sdk/client-ssm";\nexport const c = SSMClient;`, AWS],
  ["lambdas/handlers/aws.ts", `import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";\nexport const c = DynamoDBDocumentClient;`, AWS],
  ["lambdas/http/build.ts", `import { emitArtifact } from "../../build/artifact.js";\nexport const e = emitArtifact;`, LAMBDAS_FROM_BUILD],
  ["lambdas/handlers/dev.ts", `import { startDemoService } from "../../dev/demo-service/index.js";\nexport const d = startDemoService;`, LAMBDAS_FROM_BUILD],
  ["registry/contract/build.ts", `import { loadRegistry } from "../../build/load.js";\nexport const l = loadRegistry;`, REGISTRY],
  ["registry/contract/lambdas.ts", `import type { Artifact } from "../../lambdas/core/ports.js";\nexport type A = Artifact;`, REGISTRY],
  ["lambdas/http/print.ts", `export const say = (s: string) => console.log(s);`, CONSOLE],
  ["build/print.ts", `export const say = (s: string) => console.log(s);`, CONSOLE],
];

/** Imports the architecture allows: the rules must stay silent on them. */
const allowed: [file: string, source: string][] = [
  [
    "lambdas/core/contract.ts",
    [
      `import type { CatalogTool } from "../../registry/contract/artifact.js";`,
      `import { globMatcher } from "../../registry/contract/globs.js";`,
      `import type { Artifact } from "./ports.js";`,
      `import { createHash } from "node:crypto";`,
      `import * as z from "zod/mini";`,
      `export const all = [globMatcher, createHash, z];`,
      `export type T = CatalogTool | Artifact;`,
    ].join("\n"),
  ],
  ["lambdas/core/find/contract.ts", `import type { CatalogTool } from "../../../registry/contract/artifact.js";\nexport type T = CatalogTool;`],
  [
    "lambdas/stores/sdk.ts",
    `import { DynamoDBClient } from "@aws-sdk/client-dynamodb";\nimport type { SessionStore } from "../core/ports.js";\nexport const c = DynamoDBClient;\nexport type S = SessionStore;`,
  ],
  ["lambdas/secrets.ts", `import { SSMClient } from "@aws-sdk/client-ssm";\nexport const c = SSMClient;\nexport const env = process.env;`],
  ["lambdas/models/bedrock.ts", `import { BedrockRuntimeClient } from "@aws-sdk/client-bedrock-runtime";\nexport const c = BedrockRuntimeClient;`],
  [
    "lambdas/http/core.ts",
    `import { ToolbeltError } from "../core/errors.js";\nimport type { Artifact } from "../artifact.js";\nexport const e = ToolbeltError;\nexport type A = Artifact;`,
  ],
  ["lambdas/config.ts", `export const env = process.env;`],
  ["build/contract.ts", `import { globMatcher } from "../registry/contract/globs.js";\nexport const g = globMatcher;`],
  ["build/cli.ts", `console.log("the build CLI prints");`],
  [
    "lambdas/local/start.ts",
    `import { loadRegistry } from "../../build/load.js";\nimport { startDemoService } from "../../dev/demo-service/index.js";\nconsole.log(loadRegistry, startDemoService);`,
  ],
];

type Diagnostic = { category: string; severity: string; message: string; location: { path: string } };

let dir: string;
let byFile: Map<string, Diagnostic[]>;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "toolbelt-boundaries-"));
  copyFileSync(join(ROOT, "biome.jsonc"), join(dir, "biome.jsonc"));
  for (const [file, source] of [...forbidden, ...allowed]) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), `${source}\n`);
  }
  // The throwaway tree is no git checkout, so the config's VCS integration is switched off here.
  const args = [BIOME, "lint", "--vcs-enabled=false", "--reporter=json", "--max-diagnostics=none", ...BOUNDARY_RULES.map((r) => `--only=${r}`), "."];
  const run = spawnSync(process.execPath, args, { cwd: dir, encoding: "utf8" });
  const report = JSON.parse(run.stdout) as { diagnostics: Diagnostic[] };
  byFile = new Map();
  // `--only` also runs a rule where the config leaves it off, at its default severity (warning);
  // biome.jsonc sets every boundary rule to error, so the errors are the config's verdict.
  for (const d of report.diagnostics.filter((d) => d.severity === "error")) byFile.set(d.location.path, [...(byFile.get(d.location.path) ?? []), d]);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("import boundaries (biome.jsonc)", () => {
  it.each(forbidden)("report %s", (file, _source, message) => {
    const found = byFile.get(file) ?? [];
    expect(found.map((d) => d.message)).toEqual([expect.stringContaining(message)]);
  });

  it.each(allowed)("allow %s", (file) => {
    expect(byFile.get(file) ?? []).toEqual([]);
  });

  it("report nothing outside the probe files", () => {
    const probes = new Set([...forbidden, ...allowed].map(([file]) => file));
    expect([...byFile.keys()].filter((f) => !probes.has(f))).toEqual([]);
  });
});
