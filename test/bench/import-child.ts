// Run in a fresh process by find-bench.ts: how long a cold start spends importing the artifact.
import { loadArtifact } from "../../lambdas/artifact.js";
import { createFinder } from "../../lambdas/core/find/index.js";
import type { Finder } from "../../lambdas/core/find/types.js";

const dir = process.argv[2]!;
const t0 = performance.now();
const artifact = loadArtifact(dir);
const t1 = performance.now();
const finder: Finder = createFinder(artifact);
const t2 = performance.now();
await finder.find({ query: "wether forcast" }); // an unknown word: imports the FlexSearch typo index
const t3 = performance.now();
await finder.find({ query: "get the weather forecast" });
const t4 = performance.now();
process.stdout.write(
  JSON.stringify({
    load_ms: t1 - t0,
    finder_ms: t2 - t1,
    first_typo_find_ms: t3 - t2,
    next_find_ms: t4 - t3,
    import_ms: t2 - t0,
    import_with_fuzzy_ms: t3 - t0,
  }),
);
