// Writes build/background-df.json: per encoded term, the number of tools whose text (name, description,
// parameters) contains it, over two large public tool catalogs (seal-tools 4,076, Apache-2.0; MetaTool
// 199, MIT). The build reads it to tell a word generic among tools in general ("order", "show", "full")
// from one specific to the catalog at hand (test/eval/README.md, "A verdict across catalog sizes").
//   npx tsx test/eval/background-gen.ts [EVAL_DIR]   (EVAL_DIR default ../shared/eval)
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { catalogFromJsonl } from "../../build/sources/jsonl.js";
import { encode, toolFieldTexts } from "../../registry/contract/search-options.js";
import { loadJsonlTools } from "./harness.js";

const dir = process.argv[2] ?? "../shared/eval";
/** Terms in fewer tools than this weigh as specific anyway (their idf is near the maximum). */
const MIN_DF = 4;
const df = new Map<string, number>();
let n = 0;
for (const set of ["seal-tools", "metatool"]) {
  const file = join(dir, set, "tools.jsonl");
  const { tools, families } = catalogFromJsonl(loadJsonlTools(file), { source: file });
  const famDesc = new Map(families.map((f) => [f.name, f.description]));
  for (const t of tools) {
    const f = toolFieldTexts(t, famDesc.get(t.family) ?? "");
    for (const term of new Set(encode([f.name, f.desc, f.params].join(" ")))) df.set(term, (df.get(term) ?? 0) + 1);
    n++;
  }
}
const kept = [...df].filter(([, c]) => c >= MIN_DF).sort((a, b) => (a[0] < b[0] ? -1 : 1));
writeFileSync(
  join(import.meta.dirname, "../../build/background-df.json"),
  `${JSON.stringify({ source: "seal-tools (Apache-2.0) + MetaTool (MIT) tool texts, encoded terms in >= 4 tools", docs: n, df: Object.fromEntries(kept) })}\n`,
);
console.log(`${n} tools, ${df.size} terms, ${kept.length} kept`);
