// Retrieval evaluation: our find (through the real build path) against Okapi BM25 and SQLite FTS5
// on the same tools and the same text. Shared by the eval CLI, the bench and the regression test.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { emitArtifact } from "../../build/artifact.js";
import { compileRegistry } from "../../build/build.js";
import { buildSearchIndex, toolFieldTexts } from "../../build/search-index.js";
import { catalogFromJsonl, parseJsonl, type JsonlTool } from "../../build/sources/jsonl.js";
import { artifactFromFiles, type Artifact } from "../../lambdas/artifact.js";
import { createFinder, type FinderOptions } from "../../lambdas/core/find/index.js";
import type { Finder } from "../../lambdas/core/find/types.js";
import { DECISION_DEFAULTS, withDecisions } from "../../lambdas/core/find/decision.js";
import type { Models } from "../../lambdas/core/ports.js";
import { splitIdentifier, type ScorerParams } from "../../registry/contract/search-options.js";

export type EvalQuery = {
  id: string;
  query: string;
  /** Gold ids (each its own group), or any-of groups as the third GitHub held-out split writes them. */
  gold?: (string | string[])[];
  gold_ids?: string[][];
  split?: string;
  /** Own sets: answerable, unanswerable (no tool of the catalog serves it) or near_miss (sounds like a tool's domain, none does it). */
  kind?: "answerable" | "unanswerable" | "near_miss";
  /** Sets that grade their requests (the GitHub set): easy, medium or hard. */
  difficulty?: string;
};

export type Loaded = {
  artifact: Artifact;
  /** Catalog name → the JSONL key (`id` when present, else `name`) gold labels use. */
  keyOf: Map<string, string>;
  /** Baseline document text per catalog tool (name split + description + parameters), catalog order. */
  baselineText: string[];
};

export function readJsonl<T>(path: string): T[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as T);
}

/** JSONL → catalog → emitArtifact → parsed artifact: the same path a deployment takes. */
export async function loadTools(rows: JsonlTool[], source: string, params?: ScorerParams): Promise<Loaded> {
  const catalog = catalogFromJsonl(rows, { source });
  const files = await emitArtifact({ families: catalog.families, tools: catalog.tools, always_loaded: [] });
  const keyOf = new Map<string, string>();
  catalog.tools.forEach((t, i) => keyOf.set(t.name, rows[i]!.id ?? rows[i]!.name));
  return loaded(artifactFromFiles(files), keyOf, params);
}

/**
 * A file a generated registry folder may hold beside families.yaml (the build does not read it): full tool
 * name → the key its eval's gold labels use (the GitHub set: the operationId the tool was imported from).
 */
export const EVAL_KEYS = "eval-keys.json";

/** A registry folder (families.yaml) through the build the CLI runs; gold labels are full tool names, or the folder's EVAL_KEYS. */
export async function loadRegistry(dir: string, params?: ScorerParams): Promise<Loaded> {
  const built = await compileRegistry(dir);
  if (!built.ok || !built.files) {
    const first = built.diagnostics.find((d) => d.severity === "error");
    throw new Error(`${dir}: the registry has errors${first ? `, first: ${first.file} ${first.message}` : ""}`);
  }
  const artifact = artifactFromFiles(built.files);
  const keysFile = join(dir, EVAL_KEYS);
  const keys = new Map(existsSync(keysFile) ? Object.entries(JSON.parse(readFileSync(keysFile, "utf8")) as Record<string, string>) : []);
  return loaded(artifact, new Map(artifact.tools.map((t) => [t.name, keys.get(t.name) ?? t.name])), params);
}

async function loaded(artifact: Artifact, keyOf: Map<string, string>, params?: ScorerParams): Promise<Loaded> {
  // Tuning only: the same build function with other BM25F parameters.
  if (params) artifact.index = JSON.parse(JSON.stringify(await buildSearchIndex(artifact, params)));
  const famDesc = new Map(artifact.families.map((f) => [f.name, f.description]));
  const baselineText = artifact.tools.map((t) => {
    const f = toolFieldTexts(t, famDesc.get(t.family) ?? "");
    return [splitIdentifier(f.name), f.desc, f.params].join(" ");
  });
  return { artifact, keyOf, baselineText };
}

// --- baselines -------------------------------------------------------------------------------

/** Plain tokens for the baselines: lower case, letters and digits, no stemming or stopwords. */
export const plainTokens = (s: string) => s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

/**
 * Okapi BM25, k1 = 1.2, b = 0.75, idf = ln(1 + (N − df + 0.5)/(df + 0.5)). Our own inverted index:
 * the `okapibm25` package counts substring regex matches (`cat` inside `category`, unescaped query
 * text as a regex), treats b = 0 as the default, and rescans every document per query.
 */
export class Bm25 {
  private readonly post = new Map<string, { doc: number; tf: number }[]>();
  private readonly len: number[];
  private readonly avg: number;
  constructor(
    texts: string[],
    private readonly k1 = 1.2,
    private readonly b = 0.75,
  ) {
    this.len = texts.map((text, doc) => {
      const toks = plainTokens(text);
      const tf = new Map<string, number>();
      for (const t of toks) tf.set(t, (tf.get(t) ?? 0) + 1);
      for (const [t, c] of tf) {
        const l = this.post.get(t) ?? [];
        l.push({ doc, tf: c });
        this.post.set(t, l);
      }
      return toks.length;
    });
    this.avg = this.len.reduce((a, b) => a + b, 0) / Math.max(1, texts.length);
  }
  search(query: string, limit: number): number[] {
    const N = this.len.length;
    const acc = new Map<number, number>();
    // Each query word once, as FTS5 and ours do (counting repeats measured 4–5 nDCG lower on seal-tools).
    for (const t of new Set(plainTokens(query))) {
      const l = this.post.get(t);
      if (!l) continue;
      const idf = Math.log(1 + (N - l.length + 0.5) / (l.length + 0.5));
      for (const { doc, tf } of l) {
        const s = (idf * tf * (this.k1 + 1)) / (tf + this.k1 * (1 - this.b + (this.b * this.len[doc]!) / this.avg));
        acc.set(doc, (acc.get(doc) ?? 0) + s);
      }
    }
    return [...acc]
      .sort((a, b) => b[1] - a[1] || a[0] - b[0])
      .slice(0, limit)
      .map(([d]) => d);
  }
}

/** SQLite FTS5 with bm25() (k1 1.2, b 0.75 built in), query terms ORed. */
export class Fts5 {
  private readonly db: Database.Database;
  private readonly stmt: Database.Statement<[string, number], { rowid: number }>;
  constructor(texts: string[]) {
    this.db = new Database(":memory:");
    this.db.exec("CREATE VIRTUAL TABLE t USING fts5(body)");
    const ins = this.db.prepare("INSERT INTO t(rowid, body) VALUES (?, ?)");
    this.db.transaction(() => texts.forEach((text, i) => ins.run(i + 1, plainTokens(text).join(" "))))();
    this.stmt = this.db.prepare("SELECT rowid FROM t WHERE t MATCH ? ORDER BY bm25(t) LIMIT ?");
  }
  search(query: string, limit: number): number[] {
    const terms = [...new Set(plainTokens(query))];
    if (!terms.length) return [];
    const match = terms.map((t) => `"${t}"`).join(" OR ");
    return this.stmt.all(match, limit).map((r) => r.rowid - 1);
  }
  close(): void {
    this.db.close();
  }
}

// --- metrics -----------------------------------------------------------------------------------

export type Figures = {
  n: number;
  answerable: number;
  r1: number;
  /** Share of gold groups in the top 3 (what an agent reading the first few tools sees). */
  r3: number;
  r5: number;
  r10: number;
  ndcg10: number;
  c10: number;
  /** Share of queries without gold answered "none" (null when the set has none). */
  none_rate: number | null;
  /** Share of answerable queries answered "none". */
  false_none: number | null;
  /**
   * Right tool hidden: of the answerable queries whose right tool (any of a gold group) is ranked
   * first (hidden1) or in the top 3 (hidden3) at min_score 0, the share answered "none". False-none
   * also counts queries whose shown tools were wrong anyway; this counts only what the verdict hid.
   */
  hidden1: number | null;
  hidden3: number | null;
};

export const goldGroups = (q: EvalQuery): string[][] => q.gold_ids ?? (q.gold ?? []).map((g) => (Array.isArray(g) ? g : [g]));

export class Metrics {
  private n = 0;
  private answerable = 0;
  private sums = { r1: 0, r3: 0, r5: 0, r10: 0, ndcg10: 0, c10: 0 };
  private noGold = 0;
  private noGoldNone = 0;
  private falseNone = 0;
  private right = { 1: [0, 0], 3: [0, 0] } as Record<1 | 3, [number, number]>;

  add(groups: string[][], ranked: string[], none: boolean): void {
    this.n++;
    if (!groups.length) {
      this.noGold++;
      if (none) this.noGoldNone++;
      return;
    }
    this.answerable++;
    if (none) this.falseNone++;
    const hitAt = groups.map((g) => ranked.findIndex((k) => g.includes(k)));
    const recall = (k: number) => hitAt.filter((r) => r >= 0 && r < k).length / groups.length;
    for (const k of [1, 3] as const) {
      if (!hitAt.some((r) => r >= 0 && r < k)) continue;
      this.right[k][0]++;
      if (none) this.right[k][1]++;
    }
    this.sums.r1 += recall(1);
    this.sums.r3 += recall(3);
    this.sums.r5 += recall(5);
    this.sums.r10 += recall(10);
    this.sums.c10 += hitAt.every((r) => r >= 0 && r < 10) ? 1 : 0;
    // Binary relevance: a rank counts when it satisfies a gold group not satisfied above it.
    const used = new Set<number>();
    let dcg = 0;
    ranked.slice(0, 10).forEach((k, i) => {
      const g = groups.findIndex((grp, gi) => !used.has(gi) && grp.includes(k));
      if (g >= 0) {
        used.add(g);
        dcg += 1 / Math.log2(i + 2);
      }
    });
    let idcg = 0;
    for (let i = 0; i < Math.min(groups.length, 10); i++) idcg += 1 / Math.log2(i + 2);
    this.sums.ndcg10 += dcg / idcg;
  }

  figures(): Figures {
    const a = Math.max(1, this.answerable);
    const pct = (x: number) => Math.round((1000 * x) / a) / 10;
    return {
      n: this.n,
      answerable: this.answerable,
      r1: pct(this.sums.r1),
      r3: pct(this.sums.r3),
      r5: pct(this.sums.r5),
      r10: pct(this.sums.r10),
      ndcg10: pct(this.sums.ndcg10),
      c10: pct(this.sums.c10),
      none_rate: this.noGold ? Math.round((1000 * this.noGoldNone) / this.noGold) / 10 : null,
      false_none: this.answerable ? Math.round((1000 * this.falseNone) / this.answerable) / 10 : null,
      hidden1: this.right[1][0] ? Math.round((1000 * this.right[1][1]) / this.right[1][0]) / 10 : null,
      hidden3: this.right[3][0] ? Math.round((1000 * this.right[3][1]) / this.right[3][0]) / 10 : null,
    };
  }
}

export type SystemName = "ours" | "bm25" | "fts5";

/** Decision mode in the eval: the models to ask, and a count of fallbacks by their reason's code. */
export type DecisionEval = { models: Models; fallbacks: Map<string, number> };

export type EvalOptions = { minScore?: number; finder?: FinderOptions; systems?: SystemName[]; decision?: DecisionEval };

/** The finder "ours" is: keyword ranking, or decision mode over it when a model is given. */
export function evalFinder(artifact: Artifact, opts: { finder?: FinderOptions; decision?: DecisionEval }): Finder {
  const keyword = createFinder(artifact, { alwaysLoaded: [], ...opts.finder });
  return opts.decision ? withDecisions(keyword, keyword, { models: opts.decision.models }) : keyword;
}

/**
 * One query's top-10 names and whether the answer is "no tool fits". Keyword: ranked at min_score 0,
 * the verdict at the default bar. Decision: one question ranks (min_probability 0) and the verdict is
 * "none" when the model chose none or its best tool is under the default min_probability; a query
 * that fell back is scored as keyword mode answers it, and its reason counted.
 */
export async function answerQuery(
  finder: Finder,
  query: string,
  minScore: number | undefined,
  decision?: DecisionEval,
): Promise<{ ranked: string[]; none: boolean }> {
  const keywordVerdict = async () =>
    (await finder.find({ query, limit: 1, schemas: false, mode: "keyword", ...(minScore !== undefined ? { min_score: minScore } : {}) })).verdict === "none";
  if (!decision) {
    const ranked = await finder.find({ query, limit: 10, min_score: 0, schemas: false, mode: "keyword" });
    return { ranked: ranked.tools.map((t) => t.name), none: await keywordVerdict() };
  }
  const r = await finder.find({ query, limit: 10, min_score: 0, schemas: false, mode: "decision", min_probability: 0 });
  if (r.fallback_reason) {
    const code = r.fallback_reason.split(":")[0]!;
    decision.fallbacks.set(code, (decision.fallbacks.get(code) ?? 0) + 1);
  }
  const none = r.mode === "decision" ? (r.tools[0]?.score ?? 0) < DECISION_DEFAULTS.minProbability : await keywordVerdict();
  return { ranked: r.tools.map((t) => t.name), none };
}

/** Run every query through each system; ours ranks with min_score 0 and answers the verdict at the default. */
export async function evaluate(loaded: Loaded, queries: EvalQuery[], opts: EvalOptions = {}): Promise<Record<SystemName, Figures>> {
  const systems = opts.systems ?? ["ours", "bm25", "fts5"];
  const { artifact, keyOf, baselineText } = loaded;
  const keyAt = (d: number) => keyOf.get(artifact.tools[d]!.name)!;
  const out = {} as Record<SystemName, Figures>;
  if (systems.includes("ours")) {
    const finder = evalFinder(artifact, opts);
    const m = new Metrics();
    for (const q of queries) {
      const { ranked, none } = await answerQuery(finder, q.query, opts.minScore, opts.decision);
      m.add(
        goldGroups(q),
        ranked.map((name) => keyOf.get(name)!),
        none,
      );
    }
    out.ours = m.figures();
  }
  if (systems.includes("bm25")) {
    const bm = new Bm25(baselineText);
    const m = new Metrics();
    for (const q of queries) {
      const r = bm.search(q.query, 10);
      m.add(goldGroups(q), r.map(keyAt), r.length === 0);
    }
    out.bm25 = m.figures();
  }
  if (systems.includes("fts5")) {
    const fts = new Fts5(baselineText);
    const m = new Metrics();
    for (const q of queries) {
      const r = fts.search(q.query, 10);
      m.add(goldGroups(q), r.map(keyAt), r.length === 0);
    }
    fts.close();
    out.fts5 = m.figures();
  }
  return out;
}

/** Deterministic sample (mulberry32 + partial Fisher–Yates), so a seed names the same queries everywhere. */
export function sample<T>(items: T[], n: number, seed: number): T[] {
  let s = seed >>> 0;
  const rnd = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const a = [...items];
  const k = Math.min(n, a.length);
  for (let i = 0; i < k; i++) {
    const j = i + Math.floor(rnd() * (a.length - i));
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a.slice(0, k);
}

export function loadJsonlTools(path: string): JsonlTool[] {
  const { tools, errors } = parseJsonl(readFileSync(path, "utf8"));
  if (errors.length) throw new Error(`${path}: ${errors.length} bad lines, first at line ${errors[0]!.line}: ${errors[0]!.message}`);
  return tools;
}

// --- the "no tool fits" verdict ----------------------------------------------------------------

export type VerdictRow = { min_score: number; verdict: boolean; none_rate: number | null; false_none: number | null };

/** None-rate (no-gold queries) and false-none (the others) at each min_score, lexical score alone and with the verdict. */
export async function verdictSweep(loaded: Loaded, queries: EvalQuery[], minScores: number[]): Promise<VerdictRow[]> {
  const rows: VerdictRow[] = [];
  for (const verdict of [false, true]) {
    const finder = createFinder(loaded.artifact, { alwaysLoaded: [], ...(verdict ? {} : { verdict: false }) });
    const none = minScores.map(() => ({ noGold: 0, noGoldNone: 0, gold: 0, falseNone: 0 }));
    for (const q of queries) {
      const answerable = goldGroups(q).length > 0;
      for (let i = 0; i < minScores.length; i++) {
        const r = await finder.find({ query: q.query, limit: 1, min_score: minScores[i]!, schemas: false });
        const c = none[i]!;
        if (answerable) {
          c.gold++;
          if (r.verdict === "none") c.falseNone++;
        } else {
          c.noGold++;
          if (r.verdict === "none") c.noGoldNone++;
        }
      }
    }
    const pct = (a: number, b: number) => (b ? Math.round((1000 * a) / b) / 10 : null);
    minScores.forEach((m, i) =>
      rows.push({ min_score: m, verdict, none_rate: pct(none[i]!.noGoldNone, none[i]!.noGold), false_none: pct(none[i]!.falseNone, none[i]!.gold) }),
    );
  }
  return rows;
}

/** seal-tools scaled up: copies with renamed tools, another family and perturbed descriptions. */
export function scale(rows: JsonlTool[], target: number): JsonlTool[] {
  const out = [...rows];
  for (let copy = 1; out.length < target; copy++) {
    for (const r of rows) {
      if (out.length >= target) break;
      const words = (r.description ?? "").split(" ");
      // Perturb: rotate the words and drop one, so copies are near-duplicates, not exact ones.
      const k = (copy + r.name.length) % Math.max(1, words.length);
      const desc = [...words.slice(k), ...words.slice(0, k)].filter((_, i) => i !== copy % Math.max(1, words.length)).join(" ");
      out.push({ ...r, name: `${r.name}V${copy}`, family: `${r.family ?? "x"} ${copy}`, description: desc });
    }
  }
  return out;
}
