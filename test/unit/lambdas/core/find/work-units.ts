// The work units of find over a fixed set of requests: every request of the example registry's eval
// sets (test/eval/sets/example/*.jsonl), asked of the example registry (registry/), as an agent asks
// (default options) and with explain. Deterministic: no time is measured.
//   npx tsx test/unit/lambdas/core/find/work-units.ts          prints the units (the baseline's format)
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { compileRegistry } from "../../../../../build/build.js";
import { type Artifact, artifactFromFiles } from "../../../../../lambdas/artifact.js";
import { createFinder, type FinderOptions } from "../../../../../lambdas/core/find/index.js";
import { Retriever } from "../../../../../lambdas/core/find/retrieve.js";
import { newWork, type WorkUnits } from "../../../../../lambdas/core/find/work.js";

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

export async function measureWork(options: Omit<FinderOptions, "work"> = {}): Promise<WorkUnits> {
  const work = newWork();
  const finder = createFinder(await exampleArtifact(), { ...options, work });
  for (const query of requests()) {
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

if (process.argv[1] === import.meta.filename) console.log(JSON.stringify(await measureWork(), null, 2));
