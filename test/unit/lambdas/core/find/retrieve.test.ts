// Retrieve's top-k threshold (Keep): a tool that cannot reach the k-th best counted score is left
// unfinished, and a top-k selection after the rerank must see exactly what it sees with every tool finished.
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileRegistry } from "../../../../../build/build.js";
import { artifactFromFiles } from "../../../../../lambdas/artifact.js";
import { Analyser } from "../../../../../lambdas/core/find/analyse.js";
import { SearchIndex } from "../../../../../lambdas/core/find/postings.js";
import { Reranker } from "../../../../../lambdas/core/find/rerank.js";
import { type Keep, Retriever } from "../../../../../lambdas/core/find/retrieve.js";
import { topK } from "../../../../../lambdas/core/find/top-k.js";
import { newWork } from "../../../../../lambdas/core/find/work.js";
import { DEFAULT_QUERY_PARAMS } from "../../../../../registry/contract/find-tuning.js";
import type { SearchIndexData } from "../../../../../registry/contract/search-options.js";
import type { Artifact } from "../../../../../lambdas/core/ports.js";
import { memoryTestArtifact, testArtifactInput, testTool } from "../../../../helpers/artifact.js";
import { requests } from "./work-units.js";

const ROOT = join(import.meta.dirname, "../../../../..");

async function exampleArtifact(): Promise<Artifact> {
  const built = await compileRegistry(join(ROOT, "registry"));
  if (!built.files) throw new Error("the example registry does not build");
  return artifactFromFiles(built.files);
}

/**
 * A catalog of many similar tools in a few families (tasks whose steps each have a clear best tool
 * among weaker siblings: where the step and family lifts move tools the threshold would skip).
 */
const WORDS =
  "send email message contact translate text french invoice pay customer report chart upload file photo resize calendar meeting schedule weather".split(" ");
function syntheticArtifact(): Promise<Artifact> {
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const tools = Array.from({ length: 160 }, (_, i) => {
    const words = Array.from({ length: 2 + Math.floor(next() * 5) }, () => WORDS[Math.floor(next() * WORDS.length)]!);
    const family = `fam${i % 9}`;
    return testTool(`${family}.${words.slice(0, 2).join("_")}_${i}`, { description: `${words.join(" ")} tool number ${i}.` });
  });
  return memoryTestArtifact(testArtifactInput(tools, { always_loaded: [] }));
}

async function stages(artifact: Artifact) {
  const index = new SearchIndex(artifact.index as SearchIndexData);
  const families = new Map<string, number>();
  for (const t of artifact.tools) if (!families.has(t.family)) families.set(t.family, families.size);
  const work = newWork();
  const analyser = new Analyser(index, DEFAULT_QUERY_PARAMS);
  const retriever = new Retriever(index, DEFAULT_QUERY_PARAMS, work);
  const reranker = new Reranker(
    retriever,
    Uint32Array.from(artifact.tools, (t) => families.get(t.family)!),
  );
  /** Stages 2 and 3, then the k best `counts` accepts: [tool, score] pairs. */
  const best = (query: string, minScore: number, k: number, counts: (d: number) => boolean, keep?: Keep) => {
    const analysis = analyser.analyse(query);
    const plan = reranker.plan(analysis, minScore);
    const r = retriever.retrieve(analysis, minScore, plan.reach, plan.lifts, keep);
    reranker.rerank(r, plan);
    return topK(
      r.docs,
      r.score,
      () => 0,
      k,
      (d) => r.score[d]! >= minScore && r.score[d]! > 0 && counts(d),
    ).map((d) => [d, r.score[d]!]);
  };
  return { best, work, tools: artifact.tools.length };
}

describe("retrieve's top-k threshold", () => {
  it("leaves the k best tools and their scores after the rerank as they are with every tool finished, for any k and filter, and finishes fewer tools", async () => {
    const { best, work } = await stages(await exampleArtifact());
    const filters: ((d: number) => boolean)[] = [() => true, (d) => d % 3 !== 0, (d) => d < 40];
    let unkept = 0;
    let kept = 0;
    let compared = 0;
    for (const query of requests()) {
      for (const minScore of [0.4, 0]) {
        for (const k of [1, 3, 10]) {
          for (const counts of filters) {
            const before = work.scored;
            const all = best(query, minScore, k, counts);
            unkept += work.scored - before;
            const after = work.scored;
            expect(best(query, minScore, k, counts, { k, counts, fall: 1 }), `${query} (min ${minScore}, k ${k})`).toEqual(all);
            kept += work.scored - after;
            compared += all.length;
          }
        }
      }
    }
    expect(compared).toBeGreaterThan(1000);
    expect(kept).toBeLessThan(unkept * 0.8);
  });

  it("finishes every tool that can reach min_score without a Keep, and a k of 0 keeps the floor alone", async () => {
    const { best, tools } = await stages(await exampleArtifact());
    const everyTool = (query: string, keep?: Keep) => best(query, 0, tools, () => true, keep);
    for (const query of ["convert a temperature from celsius to fahrenheit", "send an email and then add a reminder to my todo list"]) {
      const all = everyTool(query);
      expect(all.length).toBeGreaterThan(3);
      expect(everyTool(query, { k: 0, counts: () => true, fall: 1 })).toEqual(all);
      // With k = 1, only the best tool is sure to be finished.
      expect(everyTool(query, { k: 1, counts: () => true, fall: 1 })[0]).toEqual(all[0]);
    }
  });

  it("keeps the k best of a task's ranking where step and family lifts move tools, for random tasks, k and filters", async () => {
    const { best } = await stages(await syntheticArtifact());
    const word = fc.constantFrom(...WORDS);
    const step = fc.array(word, { minLength: 1, maxLength: 5 }).map((ws) => ws.join(" "));
    fc.assert(
      fc.property(
        fc.array(step, { minLength: 1, maxLength: 3 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 4 }),
        fc.constantFrom(0, 0.2, 0.4),
        (steps, k, mod, minScore) => {
          const query = steps.join(", then ");
          const counts = (d: number) => d % mod !== 1;
          expect(best(query, minScore, k, counts, { k, counts, fall: 1 })).toEqual(best(query, minScore, k, counts));
        },
      ),
      { numRuns: 400, seed: 27 },
    );
  });
});
