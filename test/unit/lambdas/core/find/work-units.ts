// The work units of find over fixed sets of requests, as an agent asks (default options) and with explain:
// every request of the example registry's eval sets (test/eval/sets/example/*.jsonl) asked of the example
// registry (registry/), and the GitHub set's dev and first held-out requests (test/eval/sets/github/queries.jsonl)
// asked of GitHub's REST API as the importer makes it (an API's catalog: the rules only such catalogs run).
// Deterministic: no time is measured.
//   npx tsx test/unit/lambdas/core/find/work-units.ts          prints the units (the baseline's format)
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { compileRegistry } from "../../../../../build/build.js";
import { type Artifact, artifactFromFiles } from "../../../../../lambdas/artifact.js";
import { createFinder, type FinderOptions } from "../../../../../lambdas/core/find/index.js";
import { Retriever } from "../../../../../lambdas/core/find/retrieve.js";
import { newWork, type WorkUnits } from "../../../../../lambdas/core/find/work.js";
import { githubTools } from "../../../../eval/generated.js";
import { loadJsonlTools, loadTools, readJsonl } from "../../../../eval/harness.js";

const ROOT = join(import.meta.dirname, "../../../../..");
const SETS = ["queries", "fresh", "late"].map((f) => join(ROOT, `test/eval/sets/example/${f}.jsonl`));

export const requests = (): string[] =>
  SETS.flatMap((f) =>
    readFileSync(f, "utf8")
      .split("\n")
      .filter((l) => l.trim())
      .map((l) => (JSON.parse(l) as { query: string }).query),
  );

/** The units of the fixed request set on the example registry (`options` as FinderOptions, for the regression test's doubled rerank). */
let example: Promise<Artifact> | undefined;
const exampleArtifact = () =>
  (example ??= compileRegistry(join(ROOT, "registry")).then((built) => {
    if (!built.files) throw new Error("the example registry does not build");
    return artifactFromFiles(built.files);
  }));

/** The GitHub REST API's operations as a JSONL import of them makes them, and the GitHub set's requests. */
let github: Promise<Artifact> | undefined;
const githubArtifact = () => (github ??= githubTools().then(async (file) => (await loadTools(loadJsonlTools(file), "github")).artifact));
const githubRequests = () => readJsonl<{ query: string }>(join(ROOT, "test/eval/sets/github/queries.jsonl")).map((q) => q.query);

/** The catalogs measured: the baseline holds one set of units for each. */
export const CATALOGS = { example: { artifact: exampleArtifact, requests }, github: { artifact: githubArtifact, requests: githubRequests } };
export type Catalog = keyof typeof CATALOGS;

export async function measureWork(options: Omit<FinderOptions, "work"> = {}, catalog: Catalog = "example"): Promise<WorkUnits> {
  const work = newWork();
  const finder = createFinder(await CATALOGS[catalog].artifact(), { ...options, work });
  for (const query of CATALOGS[catalog].requests()) {
    await finder.find({ query });
    await finder.find({ query, explain: true, schemas: "none" });
  }
  return work;
}

/** A Retriever without the families, which hands every tool it touched to the later stages (the reference and the regression for `ranked`). */
export class EveryTouched extends Retriever {
  constructor(...[index, params, work]: ConstructorParameters<typeof Retriever>) {
    super(index, params, work);
  }
}

if (process.argv[1] === import.meta.filename) console.log(JSON.stringify({ units: await measureWork(), github: await measureWork({}, "github") }, null, 2));
