// Fit and measure the "no tool fits" model (lambdas/core/find/verdict.ts) on fixed dev/test halves.
//   npx tsx test/eval/verdict-fit.ts [--seed 2026] [--fn 4.5] [--iterations 3000] [--eval-dir ../shared/eval]
// Dev (fit): half of metatool single and half of no_tool (fixed seed), seal-tools dev, own cases,
// and with VERDICT_OWNW > 0 the dev split of the own small-catalog sets (sets/suite.json).
// Test (report): the other metatool halves, seal test_in/out_domain, livemcpbench, the sets' heldout split.
// Prints the fitted weights (to paste into VERDICT_MODEL) and the trade-off before/after.
// Fourth round (README): every catalog also answers the everyday requests (column `everyday`, none
// wanted), `meta-single/hid1` is the share of MetaTool single queries with the right tool first that
// are answered none, and candidate features not in the model can be measured:
//   VERDICT_CANDIDATES=1  each candidate added to VERDICT_MODEL at fixed weights, bias re-chosen
//   VERDICT_EXTRA=a,b     the candidates a, b fitted with the model (logistic + search)
//   VERDICT_NULLW=w       everyday none-rate in the search objective; VERDICT_OWNFN=w own dev false-none as a penalty
//   VERDICT_BIAS_BY=hid1  the bias holds metatool single dev "right tool hidden" at the code model's value, not false-none
//   VERDICT_UPPER=1       an in-sample bound for the own sets: a logistic fit on their dev split alone
//   VERDICT_STD=1         the logistic fit on standardized features (fifth round)
//   VERDICT_DUMP=file     every row (features, candidates, query, top 10 scores) as JSON lines
//   VERDICT_LOAD=file     the rows from such a dump instead of running every query again
//   VERDICT_KEEP=1        start from VERDICT_MODEL and search only the weights it holds at 0; VERDICT_DROP=a,b hold a, b at 0
// Sixth round: each row is decided as the finder decides it (index.ts): no model on a top tool with search hints or
// one asked for by name, the hint rules' factor applied, selfContained 0 when the top tool takes a free text.
import { parseArgs } from "node:util";
import { wordnetSenses } from "../../build/wordnet.js";
import { createFinder, textInput } from "../../lambdas/core/find/index.js";
import { sortedIndexOf } from "../../lambdas/core/find/sorted.js";
import { hasHints, Verdict, VERDICT_MODEL, verdictMargin, type VerdictFeatures, type VerdictModel } from "../../lambdas/core/find/verdict.js";
import { encode, stripAgentPhrasing, type SearchIndexData } from "../../registry/contract/search-options.js";
import { everydayRequests } from "./all.js";
import { goldGroups, loadJsonlTools, loadTools, readJsonl, sample, type EvalQuery, type Loaded } from "./harness.js";
import { loadSet, readSetQueries, readSuite } from "./suite.js";

const { values } = parseArgs({
  options: {
    seed: { type: "string", default: "2026" },
    fn: { type: "string", default: "4.5" },
    l2: { type: "string", default: "0.01" },
    iterations: { type: "string", default: "3000" },
    "eval-dir": { type: "string", default: "../shared/eval" },
  },
});
const seed = Number(values.seed);
const E = values["eval-dir"];

const timing: string[] = [];
type Row = {
  set: string;
  y: number;
  f: VerdictFeatures;
  /** The model decides this row (index.ts): the top tool has no search hints and was not asked for by name. */
  decided: boolean;
  /** The hint rules' factor on the top score (stray, one word: hinted tools and hinted catalogs), 1 elsewhere. */
  other: number;
  q?: string;
  top?: string;
  s?: number[];
  r1?: boolean;
  extra: Record<string, number>;
};

// Candidate features (fourth round), from the query's content words: hit = the top tool matched it
// (explain: the word or an expansion), idf relative to the catalog's rarest word (null: not in the
// catalog), senses = WordNet senses of the surface word, name = some tool's name holds it.
type Word = { hit: boolean; idf: number | null; senses: number; name: boolean };
// What a candidate sees: the words, the everyday tail, the request, the top 10 scores (min_score 0) and
// the coverage of the first two tools (verdict.ts's coverage).
type Seen = { words: Word[]; nullTail: number; query: string; scores: number[]; cov: [number, number] };
const senses = await wordnetSenses();
// Fifth round (README): forms of a request the agent answers itself, generic English chosen from dev queries only
// (quoted text left out, as in verdict.ts), pre-retrieval and query-performance predictors (why, hypothetical and
// minIdf became the model's own features in the sixth round: verdict.ts).
const QUOTED = /"[^"]*"|“[^”]*”|(?<!\w)'[^']*'(?!\w)/g;
// Not "suggest" / "propose" (sixth round: a tool request as often, "Suggest the sentiment of ..." in seal dev).
const REASONING =
  /^\W*(?:please\s+)?(?:prove|devise|come up with|think of|think about|invent|speculate|hypothesi[sz]e|argue|justify|critique|reflect on|ponder)\b/i;
const NAMED = /(?<=[a-z,;] )[A-Z][a-z]+/;
const bare = (q: string) => q.replace(QUOTED, " ");
const raw = (s: number) => -Math.log(1 - Math.min(s, 0.999999)); // the scorer's evidence before calibration, in idfMax units
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const CANDIDATES: Record<string, (seen: Seen) => number> = {
  /** Opens with a verb that asks for the agent's own reasoning or ideas (prove, devise, come up with). */
  reasoning: ({ query }) => (REASONING.test(bare(query)) ? 1 : 0),
  /** A capitalized word after a lower-case one: a named thing (place, product, person) to look up. */
  named: ({ query }) => (NAMED.test(bare(query)) ? 1 : 0),
  /** Pre-retrieval: mean relative idf of the words the catalog knows. */
  avgIdf: ({ words }) => mean(words.filter((w) => w.idf !== null).map((w) => w.idf!)),
  /** Pre-retrieval: share of the content words that are in some tool's name. */
  nameShare: ({ words }) => (words.length ? words.filter((w) => w.name).length / words.length : 0),
  /** Query-performance prediction: normalized query commitment, sd / mean of the top 5 raw scores. */
  commitment: ({ scores }) => {
    const r = scores.slice(0, 5).map(raw);
    const m = mean(r);
    return r.length >= 2 && m > 0 ? Math.sqrt(mean(r.map((v) => (v - m) ** 2))) / m : 0;
  },
  /** The top tool's share of the top 10's score mass. */
  topShare: ({ scores }) => (scores.length ? scores[0]! / scores.slice(0, 10).reduce((a, b) => a + b, 0) : 1),
  /** Score gap between the first and second tool. */
  gap: ({ scores }) => (scores[0] ?? 0) - (scores[1] ?? 0),
  /** ln(1 + tools of the top 10 at or above the default min_score). */
  above: ({ scores }) => Math.log1p(scores.filter((v) => v >= 0.4).length),
  /** The second tool's coverage (a request several unrelated tools half-match is a stray). */
  cov2: ({ cov }) => cov[1],
  /** Coverage of the first tool minus the second's. */
  covGap: ({ cov }) => cov[0] - cov[1],
  /** ln(1 + WordNet senses) of the one word the top tool shares with a request of several (third round's stray word). */
  stray: ({ words: ws }) => {
    const hit = ws.filter((w) => w.hit);
    return ws.length >= 2 && hit.length === 1 ? Math.log1p(hit[0]!.senses) : 0;
  },
  /** The top tool matches the request's first content word (its verb) and nothing after it. */
  verbOnly: ({ words: ws }) => (ws.length >= 2 && ws[0]!.hit && !ws.slice(1).some((w) => w.hit) ? 1 : 0),
  /** At most one content word of several matched. */
  oneHit: ({ words: ws }) => (ws.length >= 2 && ws.filter((w) => w.hit).length <= 1 ? 1 : 0),
  /** Share of the content words the top tool matched. */
  hitShare: ({ words: ws }) => (ws.length ? ws.filter((w) => w.hit).length / ws.length : 0),
  /** ln(1 + senses) of the least ambiguous matched word: a matched word with one sense is a domain word. */
  hitMinSenses: ({ words: ws }) => {
    const hit = ws.filter((w) => w.hit);
    return hit.length ? Math.log1p(Math.min(...hit.map((w) => w.senses))) : 0;
  },
  /** Relative idf of the rarest known word the top tool lacks ("pizza" when "order" matched). */
  unmatchedIdf: ({ words: ws }) => Math.max(0, ...ws.filter((w) => !w.hit && w.idf !== null).map((w) => w.idf!)),
  /** ln of the share of everyday requests whose top score is at least this query's, in the same catalog (an empirical tail). */
  nullTail: ({ nullTail }) => Math.log(nullTail),
};
const EXTRA = (process.env.VERDICT_EXTRA ?? "").split(",").filter(Boolean);
for (const k of EXTRA) if (!CANDIDATES[k]) throw new Error(`VERDICT_EXTRA: unknown candidate ${k}; known: ${Object.keys(CANDIDATES).join(", ")}`);
const halves = <T>(items: T[]): [T[], T[]] => {
  const s = sample(items, items.length, seed);
  const k = Math.floor(s.length / 2);
  return [s.slice(0, k), s.slice(k)];
};

async function rows(tools: string | Loaded, sets: Record<string, EvalQuery[]>): Promise<Row[]> {
  const loaded = typeof tools === "string" ? await loadTools(loadJsonlTools(tools), tools) : tools;
  const finder = createFinder(loaded.artifact, { alwaysLoaded: [], verdict: false });
  // The same finder with a model whose factor is always 1 (logScore 0): what the hint rules alone do to the top score.
  const rulesOnly = createFinder(loaded.artifact, { alwaysLoaded: [], verdict: { ...VERDICT_MODEL, logScore: 0 } });
  const verdict = new Verdict(loaded.artifact.index as SearchIndexData);
  const docOf = new Map(loaded.artifact.tools.map((t, i) => [t.name, i]));
  const data = loaded.artifact.index as SearchIndexData;
  const idfMax = Math.log((data.docs - 1 + 0.5) / 1.5 + 1);
  const names = new Set(data.nameTerms.flat());
  const everyday = everydayRequests();
  const nullScores: number[] = [];
  for (const q of everyday) nullScores.push((await finder.find({ query: q.query, limit: 1, min_score: 0, schemas: false })).tools[0]?.score ?? 0);
  const out: Row[] = [];
  for (const [set, qs] of Object.entries({ ...sets, everyday })) {
    for (const q of qs) {
      // explain names the query words the top tool matched (directly or through an expansion).
      const r = await finder.find({ query: q.query, limit: 10, min_score: 0, schemas: false, explain: true });
      const top = r.tools[0];
      const tool = top ? loaded.artifact.tools[docOf.get(top.name)!]! : undefined;
      const f = verdict.features(q.query, top ? docOf.get(top.name)! : -1, top?.score ?? 0, tool ? textInput(tool) : false);
      // As the finder decides (index.ts): no model on a top tool with hints or one asked for by its name.
      const exact = top?.explain?.length === 1 && top.explain[0]!.word === q.query.trim() && top.explain[0]!.fields.join() === "name";
      const decided = tool !== undefined && !hasHints(tool) && !exact;
      const ruled = top ? (await rulesOnly.find({ query: q.query, limit: 1, min_score: 0, schemas: false })).tools[0] : undefined;
      const other = top && ruled && top.score > 0 ? Math.min(1, ruled.score / top.score) : 1;
      const matched = new Set((top?.explain ?? []).map((m) => m.word));
      const words = new Map<string, Word>();
      encode(stripAgentPhrasing(q.query), (w, stem) => {
        if (words.has(stem)) return;
        const id = sortedIndexOf(data.terms, stem);
        const idf = id === undefined ? null : Math.log((data.docs - data.df[id]! + 0.5) / (data.df[id]! + 0.5) + 1) / idfMax;
        words.set(stem, { hit: matched.has(w), idf, senses: senses.get(w) ?? 0, name: id !== undefined && names.has(id) });
      });
      const tail = (1 + nullScores.filter((x) => x >= f.score).length) / (1 + nullScores.length);
      const ws = [...words.values()];
      const second = r.tools[1];
      const cov: [number, number] = [f.coverage, second ? verdict.features(q.query, docOf.get(second.name)!, second.score).coverage : 0];
      const seen: Seen = { words: ws, nullTail: tail, query: q.query, scores: r.tools.map((t) => t.score), cov };
      const extra = Object.fromEntries(Object.entries(CANDIDATES).map(([k, c]) => [k, c(seen)]));
      const groups = goldGroups(q);
      const r1 = groups.length > 0 && top !== undefined && groups.some((g) => g.includes(loaded.keyOf.get(top.name)!));
      out.push({ set, y: groups.length ? 1 : 0, f, decided, other, q: q.query, top: top?.name ?? "", s: r.tools.map((t) => t.score), r1, extra });
    }
  }
  // Cost of the verdict per query (features + factor on the top tool, after the finder warmed the
  // stem cache as it does in service), printed, not asserted.
  const qs0 = Object.values(sets).flat();
  const t0 = performance.now();
  for (const q of qs0) verdict.factor(verdict.features(q.query, 0, 0.5), 0.4);
  timing.push(
    `${typeof tools === "string" ? tools.split("/").at(-2) : "own"}: ${((1000 * (performance.now() - t0)) / Math.max(1, qs0.length)).toFixed(1)} µs/query`,
  );
  return out;
}

const bySplit = (qs: EvalQuery[], s: string) => qs.filter((q) => q.split === s);
const meta = readJsonl<EvalQuery>(`${E}/metatool/queries.jsonl`);
const [sDev, sTest] = halves(bySplit(meta, "single"));
const [nDev, nTest] = halves(bySplit(meta, "no_tool"));
const seal = readJsonl<EvalQuery>(`${E}/seal-tools/queries.jsonl`);
// VERDICT_LOAD=file: the rows of an earlier VERDICT_DUMP (same seed), so a fit can be repeated in seconds.
async function allRows(): Promise<Row[]> {
  if (process.env.VERDICT_LOAD) return readJsonl<Row>(process.env.VERDICT_LOAD);
  const out: Row[] = [
    ...(await rows(`${E}/metatool/tools.jsonl`, { "meta-single-dev": sDev, "meta-none-dev": nDev, "meta-single-test": sTest, "meta-none-test": nTest })),
    ...(await rows(`${E}/seal-tools/tools.jsonl`, {
      "seal-dev": bySplit(seal, "dev"),
      "seal-in": bySplit(seal, "test_in_domain"),
      "seal-out": bySplit(seal, "test_out_domain"),
    })),
    ...(await rows(`${E}/livemcpbench/tools.jsonl`, { livemcpbench: readJsonl<EvalQuery>(`${E}/livemcpbench/queries.jsonl`) })),
    ...(await rows("test/eval/cases/tools.jsonl", { cases: readJsonl<EvalQuery>("test/eval/cases/queries.jsonl") })),
  ];
  // Own small catalogs: answerable (y 1) against unanswerable and near-miss (y 0); dev split in the objective, heldout reported.
  for (const set of readSuite()) {
    const qs = readSetQueries(set);
    out.push(...(await rows(await loadSet(set), { "own-dev": bySplit(qs, "dev"), "own-heldout": bySplit(qs, "heldout") })));
  }
  return out;
}
const all = await allRows();
const dev = all.filter((r) => /-dev$|^cases$/.test(r.set));
// The logistic learns from the rows the model decides only (a top tool with hints is judged by the hint rules).
const decidedDev = dev.filter((r) => r.decided);
const ownDev = (y: number) => all.filter((r) => r.set === "own-dev" && r.y === y);

const MIN = 0.4;
// Share of the loss on answerable rows: the operating point is at high recall of answerable queries.
const POSW = Number(process.env.VERDICT_POSW ?? "0.5");
// VERDICT_DROP=a,b: features of the model held at weight 0 (left out of the logistic and the search).
const DROP = new Set((process.env.VERDICT_DROP ?? "").split(",").filter(Boolean));
const x = (r: Row) => [...base(r.f), ...EXTRA.map((k) => r.extra[k]!)].map((v, j) => (DROP.has(KEYS[j]!) ? 0 : v));
const base = (f: VerdictFeatures) => [
  Math.log(Math.max(1e-6, f.score)),
  f.coverage,
  f.known,
  Math.log1p(f.terms),
  f.question,
  f.narrative,
  f.language,
  f.selfContained,
  f.fresh,
  f.why,
  f.hypothetical,
  f.minIdf,
];
const BASE_KEYS = [
  "logScore",
  "coverage",
  "known",
  "logTerms",
  "question",
  "narrative",
  "language",
  "selfContained",
  "fresh",
  "why",
  "hypothetical",
  "minIdf",
] as const;
const KEYS = [...BASE_KEYS, ...EXTRA];

// Weighted logistic regression (Newton steps would need a solver; plain gradient descent on 6 features is enough).
// Classes balanced: the no_tool rows weigh as much in total as the answerable ones.
// VERDICT_STD=1 (fifth round): the descent runs on standardized features (mean 0, sd 1 over the rows
// fitted; L2 on the standardized weights), converted back to raw weights: plain gradient descent on raw
// features of very different scales stops far from the optimum in 4,000 steps.
const STD = Boolean(process.env.VERDICT_STD);
function logisticFit(data: Row[], l2: number): number[] {
  const pos = data.filter((r) => r.y).length;
  const neg = data.length - pos;
  const raw = data.map(x);
  const mu = raw[0]!.map((_, j) => (STD ? raw.reduce((s, r) => s + r[j]!, 0) / raw.length : 0));
  const sd = mu.map((m, j) => (STD ? Math.sqrt(raw.reduce((s, r) => s + (r[j]! - m) ** 2, 0) / raw.length) || 1 : 1));
  const X = raw.map((r) => r.map((v, j) => (v - mu[j]!) / sd[j]!));
  const w = new Array(KEYS.length + 1).fill(0);
  for (let it = 0; it < 4000; it++) {
    const g = new Array(w.length).fill(0);
    X.forEach((xi, i) => {
      const y = data[i]!.y;
      const z = xi.reduce((s, v, j) => s + v * w[j]!, w[KEYS.length]!);
      const p = 1 / (1 + Math.exp(-z));
      const wt = y ? POSW / pos : (1 - POSW) / neg;
      xi.forEach((v, j) => (g[j] += wt * (p - y) * v));
      g[KEYS.length] += wt * (p - y);
    });
    for (let j = 0; j < KEYS.length; j++) g[j] += l2 * w[j]!;
    const lr = 1;
    for (let j = 0; j < w.length; j++) w[j] -= lr * g[j]!;
  }
  // Back to raw features: z = Σ w_j (x_j − mu_j) / sd_j + b.
  const out = w.map((v, j) => (j < KEYS.length ? v / sd[j]! : v));
  out[KEYS.length] = w[KEYS.length]! - w.slice(0, KEYS.length).reduce((s, v, j) => s + (v * mu[j]!) / sd[j]!, 0);
  return out;
}

const model = (w: number[], bias: number): Candidate => ({
  m: baseModel(w, bias),
  extra: Object.fromEntries(EXTRA.map((k, j) => [k, w[BASE_KEYS.length + j]!])),
});
const baseModel = (w: number[], bias: number): VerdictModel => ({
  logScore: w[0]!,
  coverage: w[1]!,
  known: w[2]!,
  logTerms: w[3]!,
  question: w[4]!,
  narrative: w[5]!,
  language: w[6]!,
  selfContained: w[7]!,
  fresh: w[8]!,
  why: w[9]!,
  hypothetical: w[10]!,
  minIdf: w[11]!,
  bias,
});
// A candidate model: VERDICT_MODEL's weights (m) and weights of candidate features not in it.
type Candidate = { m: VerdictModel; extra: Record<string, number> };
const marginOf = (c: Candidate, r: Row) => verdictMargin(c.m, r.f) + Object.entries(c.extra).reduce((s, [k, w]) => s + w * r.extra[k]!, 0);
const asCandidate = (m: VerdictModel | Candidate | null): Candidate | null => (m === null || "m" in m ? m : { m, extra: {} });
// The finder's decision at the default min_score (index.ts): the top score times the model's factor (capped at 1; on the
// rows it decides) times the hint rules' factor ≥ min_score. Without hint rules: the score ≥ m and the margin ≥ 0.
const factorOf = (c: Candidate, r: Row) => Math.min(1, MIN * Math.exp((marginOf(c, r) - c.m.logScore * Math.log(Math.max(1e-6, r.f.score))) / c.m.logScore));
const none = (c: Candidate | null, r: Row, minScore = MIN) =>
  r.f.score < minScore || (c !== null && r.f.score * (r.decided ? factorOf(c, r) : 1) * r.other < minScore - 5e-5);
const rate = (rs: Row[], m: VerdictModel | Candidate | null, minScore = MIN) => {
  const c = asCandidate(m);
  return rs.length ? (100 * rs.filter((r) => none(c, r, minScore)).length) / rs.length : NaN;
};
const SETS = [
  "meta-none-dev",
  "meta-single-dev",
  "seal-dev",
  "cases",
  "meta-none-test",
  "meta-single-test",
  "seal-in",
  "seal-out",
  "livemcpbench",
  "meta-none",
  "meta-single",
  "own-dev/none",
  "own-dev/fn",
  "own-heldout/none",
  "own-heldout/fn",
  "meta-single/hid1",
  "everyday",
];
const line = (label: string, m: VerdictModel | Candidate | null, minScore = MIN) =>
  `| ${label} | ` +
  SETS.map((s) =>
    rate(
      all.filter((r) => {
        // "set/none": the set's requests without a tool (none-rate); "set/fn": with one (false-none);
        // "set/hid1": with the right tool first (right tool hidden).
        const [name, part] = s.split("/");
        if (part === "hid1") return (r.set === name || r.set.startsWith(`${name}-`)) && r.r1 === true;
        if (part) return r.set === name && r.y === (part === "fn" ? 1 : 0);
        return (r.set === s || r.set.startsWith(`${s}-`)) && (s !== "cases" || r.y === 1);
      }),
      m,
      minScore,
    ).toFixed(1),
  ).join(" | ") +
  " |";

console.log(`| decision | ${SETS.join(" | ")} |`);
console.log(`|---|${SETS.map(() => "---").join("|")}|`);
for (const ms of [0.4, 0.5, 0.55, 0.6]) console.log(line(`score ≥ ${ms} (before)`, null, ms));
console.log(line("VERDICT_MODEL in code", VERDICT_MODEL));

const target = Number(values.fn);
const sd = dev.filter((r) => r.set === "meta-single-dev");
const nd = dev.filter((r) => r.set === "meta-none-dev");
const sealDev = dev.filter((r) => r.set === "seal-dev");
const casesDev = dev.filter((r) => r.set === "cases" && r.y === 1);

/** Bias for weights w (no bias): the most "none" on metatool no_tool dev with false-none on metatool single dev ≤ --fn %. */
// VERDICT_BIAS_BY=hid1: hold "right tool hidden" on metatool single dev at the code model's value instead of false-none.
const byHidden = process.env.VERDICT_BIAS_BY === "hid1";
const held = byHidden ? sd.filter((r) => r.r1) : sd;
const heldShare = byHidden ? rate(held, VERDICT_MODEL) : target;
/** The bias that holds the chosen share (false-none, or right tool hidden) on metatool single dev for margins without bias. */
function biasFor(margin: (r: Row) => number): number {
  const free = (r: Row) => r.f.score >= MIN && r.f.score * r.other >= MIN - 5e-5;
  const capped = held.filter((r) => !free(r)).length;
  const allowed = Math.floor((heldShare / 100) * held.length + 1e-9) - capped;
  const margins = held
    .filter((r) => free(r) && r.decided)
    .map(margin)
    .sort((a, b) => a - b);
  // none ⇔ margin + bias < 0: the `allowed` lowest margins fall under.
  const t = allowed < 0 ? -Infinity : allowed >= margins.length ? Infinity : margins[allowed]!;
  return Number.isFinite(t) ? -t : 0;
}
const withBias = (w: number[]): Candidate =>
  model(
    w,
    biasFor((r) => marginOf(model(w, 0), r)),
  );
// Objective on dev only: none-rate on no_tool dev, with seal-tools dev and own cases' false-none kept near where the lexical score alone has them.
// With VERDICT_OWNW > 0 the own sets' dev split counts too: none-rate on requests no tool serves, false-none held at ≤ 5%.
const OWNW = Number(process.env.VERDICT_OWNW ?? "0");
const NULLW = Number(process.env.VERDICT_NULLW ?? "0");
const OWNFN = Number(process.env.VERDICT_OWNFN ?? "0");
const everydayRows = all.filter((r) => r.set === "everyday");
const objective = (m: Candidate) =>
  rate(nd, m) +
  NULLW * rate(everydayRows, m) -
  OWNFN * rate(ownDev(1), m) -
  5 * Math.max(0, rate(sealDev, m) - 0.3) -
  2 * Math.max(0, rate(casesDev, m) - 4) +
  OWNW * (rate(ownDev(0), m) - 5 * Math.max(0, rate(ownDev(1), m) - 5));

// 1. Logistic regression (balanced classes) for the direction; 2. a seeded coordinate search from
// it for the operating point (the logistic loss weighs every query alike; the verdict lives at
// high recall of answerable queries). The freshness weight stays at the logistic's value: it is
// positive evidence the no_tool half can barely inform (5% of it says "today" or "latest").
// VERDICT_KEEP=1 (sixth round): start from VERDICT_MODEL's weights and search only the features it holds at 0.
const KEEP = Boolean(process.env.VERDICT_KEEP);
const codeWeights = KEYS.map((k) => (VERDICT_MODEL as Record<string, number>)[k] ?? 0);
const w0 = KEEP ? codeWeights : logisticFit(decidedDev, Number(values.l2)).slice(0, KEYS.length);
let w = [...w0];
let best = objective(withBias(w));
let st = seed >>> 0;
const rnd = () => {
  st = (st + 0x6d2b79f5) >>> 0;
  let t = st;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const gauss = () => Math.sqrt(-2 * Math.log(1 - rnd())) * Math.cos(2 * Math.PI * rnd());
const searchable = KEYS.map((k, j) => (k === "fresh" || DROP.has(k) || (KEEP && codeWeights[j] !== 0) ? -1 : j)).filter((j) => j >= 0);
for (let it = 0; it < Number(values.iterations); it++) {
  const j = searchable[Math.floor(rnd() * searchable.length)]!;
  const w2 = [...w];
  w2[j] = w2[j]! + 0.2 * gauss();
  if (w2[0]! <= 0.05) continue;
  const o = objective(withBias(w2));
  if (o > best) {
    best = o;
    w = w2;
  }
}
const logistic = withBias(w0);
const searched = withBias(w);
console.log(line("logistic (dev), bias for the fn target", logistic));
for (const d of [-0.5, -0.25, 0, 0.25, 0.5])
  console.log(line(`+ search (dev), bias ${d >= 0 ? "+" : ""}${d}`, { ...searched, m: { ...searched.m, bias: searched.m.bias + d } }));
if (process.env.VERDICT_CANDIDATES) {
  // Each candidate added to the model in code at a fixed weight, the bias re-chosen for the same false-none.
  for (const k of Object.keys(CANDIDATES)) {
    for (const wk of [-0.4, -0.8, 0.4]) {
      const extra = { [k]: wk };
      const b = biasFor((r) => marginOf({ m: { ...VERDICT_MODEL, bias: 0 }, extra }, r));
      console.log(line(`VERDICT_MODEL + ${wk}·${k}`, { m: { ...VERDICT_MODEL, bias: b }, extra }));
    }
  }
}
if (process.env.VERDICT_UPPER) {
  // An upper bound for the own small catalogs: a logistic fit on their dev split alone (in-sample), its
  // bias set for 0, 1, 2, 3 more own dev false-nones than the score alone gives.
  const own = all.filter((r) => r.set === "own-dev" && r.f.score >= MIN);
  const w1 = logisticFit(own, Number(values.l2)).slice(0, KEYS.length);
  const margins = own
    .filter((r) => r.y)
    .map((r) => marginOf(model(w1, 0), r))
    .sort((a, b) => a - b);
  for (const k of [0, 1, 2, 3]) console.log(line(`own dev alone, in-sample, +${k} own dev false-none`, model(w1, -(margins[k]! - 1e-9))));
}
const r4 = (v: number) => Math.round(v * 1e4) / 1e4;
const weights = (c: Candidate) => JSON.stringify(Object.fromEntries(Object.entries({ ...c.m, ...c.extra }).map(([k, v]) => [k, r4(v)])));
console.log("verdict cost (features + factor):", timing.join(", "));
console.log("logistic:", weights(logistic));
console.log("searched:", weights(searched));
if (process.env.VERDICT_DUMP) {
  const { writeFileSync } = await import("node:fs");
  writeFileSync(process.env.VERDICT_DUMP, all.map((r) => JSON.stringify(r)).join("\n"));
}
