// Document frequencies of encoded terms among tools in general (background-df.json, written by
// test/eval/background-gen.ts from two large public tool catalogs): the build's yardstick for how
// generic a word is, whatever the size of the catalog it indexes.
import { readFileSync } from "node:fs";

export type Background = { docs: number; df: Record<string, number> };

let cached: Background | undefined;

export function backgroundDf(): Background {
  cached ??= JSON.parse(readFileSync(new URL("./background-df.json", import.meta.url), "utf8")) as Background;
  return cached;
}
