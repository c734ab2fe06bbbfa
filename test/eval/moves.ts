// npx tsx test/eval/moves.ts A B [SET,SET...]
// Which dev requests a change moves: each request whose gold ranks or verdict differ between two
// configurations, A and B, each a JSON object of build parameters (as --params) with an optional "q"
// of query knobs (as --qparams): '{}' is the defaults, '{"capabilityWeight":0,"q":{"stepLift":0.3}}'.
// Dev data only (the own sets' dev splits, the paraphrase dev halves, mcp-dev, seal dev, MetaTool's
// dev halves as verdict-fit.ts draws them, the everyday requests): never a held-out split.
import { join } from "node:path";
import { DEFAULT_SCORER_PARAMS, type ScorerParams } from "../../registry/contract/search-options.js";
import type { QueryParams } from "../../registry/contract/find-tuning.js";
import { everydayRequests } from "./all.js";
import { answerQuery, evalFinder, goldGroups, loadJsonlTools, loadRegistry, loadTools, readJsonl, sample, type EvalQuery, type Loaded } from "./harness.js";
import { loadSet, readSetQueries, readSuite } from "./suite.js";

const [a, b, only] = process.argv.slice(2);
if (!a || !b) {
  console.error("usage: npx tsx test/eval/moves.ts A_JSON B_JSON [SET,SET...]");
  process.exit(2);
}
type Config = { params: ScorerParams; query: Partial<QueryParams> };
const config = (text: string): Config => {
  const { q, ...over } = JSON.parse(text) as Partial<ScorerParams> & { q?: Partial<QueryParams> };
  return { params: { ...DEFAULT_SCORER_PARAMS, ...over }, query: q ?? {} };
};
const [ca, cb] = [config(a), config(b)];
const E = process.env.TOOLBELT_EVAL_DIR ?? "../shared/eval";
const META_SEED = 2026; // verdict-fit.ts's halves
const firstHalf = <T>(items: T[]) => sample(items, items.length, META_SEED).slice(0, Math.floor(items.length / 2));
const split = (file: string, s: string) => readJsonl<EvalQuery>(file).filter((q) => q.split === s);

type DevSet = { name: string; load: (p: ScorerParams) => Promise<Loaded>; queries: () => EvalQuery[] };
const jsonl = (file: string) => (p: ScorerParams) => loadTools(loadJsonlTools(file), file, p);
const live = join(E, "livemcpbench/tools.jsonl");
const sets: DevSet[] = [
  ...readSuite().map((s) => ({ name: s.name, load: (p: ScorerParams) => loadSet(s, p), queries: () => readSetQueries(s).filter((q) => q.split === "dev") })),
  { name: "paraphrase-example", load: (p) => loadRegistry("registry", p), queries: () => split("test/eval/cases/paraphrase-example.jsonl", "dev") },
  { name: "paraphrase-mcp", load: jsonl(live), queries: () => split("test/eval/cases/paraphrase-mcp.jsonl", "dev") },
  { name: "mcp-dev", load: jsonl(live), queries: () => readJsonl<EvalQuery>("test/eval/cases/mcp-dev.jsonl") },
  { name: "seal-dev", load: jsonl(join(E, "seal-tools/tools.jsonl")), queries: () => split(join(E, "seal-tools/queries.jsonl"), "dev") },
  { name: "metatool-no_tool-dev", load: jsonl(join(E, "metatool/tools.jsonl")), queries: () => firstHalf(split(join(E, "metatool/queries.jsonl"), "no_tool")) },
  { name: "metatool-single-dev", load: jsonl(join(E, "metatool/tools.jsonl")), queries: () => firstHalf(split(join(E, "metatool/queries.jsonl"), "single")) },
  { name: "everyday-livemcpbench", load: jsonl(live), queries: () => everydayRequests() },
];

for (const set of sets.filter((s) => !only || only.split(",").includes(s.name))) {
  const [la, lb] = [await set.load(ca.params), await set.load(cb.params)];
  const [fa, fb] = [evalFinder(la.artifact, { finder: { query: ca.query } }), evalFinder(lb.artifact, { finder: { query: cb.query } })];
  let up = 0;
  let down = 0;
  for (const q of set.queries()) {
    const [ra, rb] = [await answerQuery(fa, q.query, undefined), await answerQuery(fb, q.query, undefined)];
    const [ka, kb] = [ra.ranked.map((n) => la.keyOf.get(n)!), rb.ranked.map((n) => lb.keyOf.get(n)!)];
    // Rank of each gold group in the top 10 (0: not there).
    const ranks = (keys: string[]) => goldGroups(q).map((g) => keys.findIndex((k) => g.includes(k)) + 1);
    const [xa, xb] = [ranks(ka), ranks(kb)];
    const gain = xa.reduce((s, r, i) => s + (xb[i]! && (!r || xb[i]! < r) ? 1 : r && (!xb[i] || xb[i]! > r) ? -1 : 0), 0);
    if (gain > 0) up++;
    if (gain < 0) down++;
    if (xa.join() === xb.join() && ra.none === rb.none && (xa.length > 0 || ra.none || ka[0] === kb[0])) continue;
    const none = ra.none === rb.none ? "" : ` none ${ra.none} → ${rb.none}`;
    console.log(
      `${set.name} ${q.kind ?? ""} "${q.query.slice(0, 100)}" gold ranks ${xa.join(",") || "-"} → ${xb.join(",") || "-"}${none} top ${ka[0]} → ${kb[0]}`,
    );
  }
  console.log(`${set.name}: ${up} up, ${down} down (requests whose gold tools rose / fell in the top 10)`);
}
