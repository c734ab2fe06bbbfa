// Small in-test catalogs and artifacts built with the real build/artifact.ts emitter (never dist/).
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { emitArtifact, writeArtifact, type ArtifactInput, type EmitOptions } from "../../build/artifact.js";
import type { CatalogTool, FamilyInfo } from "../../registry/contract/artifact.js";
import { BUILTIN_HANDLERS } from "../../registry/contract/callable.js";
import type { JsonSchema } from "../../registry/contract/schema-types.js";
import { artifactFromFiles, loadArtifact, type Artifact } from "../../lambdas/artifact.js";

/**
 * A catalog tool with sensible defaults, override any field: a callable backend, as the build would accept it
 * (the meta-tools' builtin handlers; for other tools an http endpoint on a port nothing listens on).
 */
export function testTool(name: string, over: Partial<CatalogTool> = {}): CatalogTool {
  const family = name.slice(0, name.indexOf("."));
  const verb = name.slice(family.length + 1);
  const builtin = family === "toolbelt" && (BUILTIN_HANDLERS as readonly string[]).includes(verb) ? verb : undefined;
  const input_schema: JsonSchema = over.input_schema ?? {
    type: "object",
    properties: { text: { type: "string", description: `Text for ${name}` } },
    required: ["text"],
    additionalProperties: false,
  };
  return {
    name,
    family,
    kind: builtin ? "builtin" : "http",
    description: `Does ${name.replace(/[._]/g, " ")}.`,
    input_schema,
    governance: {},
    timeout_ms: 60_000,
    backend: builtin ? { kind: "builtin", handler: builtin } : { kind: "http", method: "POST", url: `http://127.0.0.1:9/${name}`, output: "json" },
    source: `families/${family}/tools.yaml`,
    ...over,
  };
}

/** An artifact input from tools; families are derived (examples: the first three verbs), `variables` declared per family. */
export function testArtifactInput(
  tools: CatalogTool[],
  opts: { always_loaded?: string[]; descriptions?: Record<string, string>; variables?: Record<string, FamilyInfo["variables"]> } = {},
): ArtifactInput {
  const byFamily = new Map<string, CatalogTool[]>();
  for (const t of tools) byFamily.set(t.family, [...(byFamily.get(t.family) ?? []), t]);
  const families: FamilyInfo[] = [...byFamily].map(([name, ts]) => ({
    name,
    description: opts.descriptions?.[name] ?? `The ${name} family.`,
    required: true,
    tool_count: ts.length,
    examples: ts.slice(0, 3).map((t) => t.name.slice(name.length + 1)),
    ...(opts.variables?.[name] ? { variables: opts.variables[name] } : {}),
  }));
  return { families, tools, always_loaded: opts.always_loaded ?? ["toolbelt.reshape"] };
}

/**
 * The default small catalog: toolbelt (reshape), git (4 tools), notes (3), admin (2, for deny tests).
 * Descriptions carry distinct words so find can tell them apart.
 */
export function defaultTestTools(): CatalogTool[] {
  return [
    testTool("toolbelt.reshape", { description: "Reshape JSON data with a mapping." }),
    testTool("git.log", { description: "List recent commits of a repository." }),
    testTool("git.diff", { description: "Show the diff between two commits." }),
    testTool("git.status", { description: "Show the working tree status." }),
    testTool("git.blame", { description: "Show who last changed each line of a file." }),
    testTool("notes.create", { description: "Create a note with a title and body." }),
    testTool("notes.search", { description: "Search notes by words." }),
    testTool("notes.delete", { description: "Delete a note by id." }),
    testTool("admin.reset", { description: "Reset the whole workspace." }),
    testTool("admin.audit", { description: "Read the audit trail." }),
  ];
}

/** Test artifacts skip token counting (the tokenizer's load) unless a test asks for it. */
const NO_TOKENS: EmitOptions = { countTokens: false };

/** Build an artifact into `dir` (a new temp dir by default) and load it as the Lambdas do. */
export async function buildTestArtifact(
  dir?: string,
  input: ArtifactInput = testArtifactInput(defaultTestTools()),
  opts: EmitOptions = NO_TOKENS,
): Promise<{ dir: string; artifact: Artifact }> {
  const out = dir ?? (await mkdtemp(join(tmpdir(), "toolbelt-artifact-")));
  await writeArtifact(out, await emitArtifact(input, opts));
  return { dir: out, artifact: loadArtifact(out) };
}

/** The same artifact in memory (unit tests that need no files). */
export async function memoryTestArtifact(input: ArtifactInput = testArtifactInput(defaultTestTools()), opts: EmitOptions = NO_TOKENS): Promise<Artifact> {
  return artifactFromFiles(await emitArtifact(input, opts));
}
