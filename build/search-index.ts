// Build-time half of search: BM25F statistics (per-posting impacts), build-time synonym
// expansions and the exported FlexSearch vocabulary index, all deterministic and JSON-serializable.
import { Document } from "flexsearch";
import type { Catalog } from "../registry/contract/artifact.js";
import {
  DEFAULT_SCORER_PARAMS,
  encode,
  FIELDS,
  pairs,
  IMPACT_SCALE,
  SEARCH_INDEX_VERSION,
  vocabIndexOptions,
  toolFieldTexts,
  type FieldName,
  type ScorerParams,
  type SearchIndexData,
  type VocabRecord,
} from "../registry/contract/search-options.js";
export { toolFieldTexts };
import { lexiconPairs } from "./lexicon.js";
import { indexActionTable } from "./actions.js";
import { neighbourTable } from "./neighbours.js";
import { wordnetSenses, wordnetSynonyms } from "./wordnet.js";
import { englishWordsNear } from "./english-words.js";
import { CAPABILITY_MAX_DF } from "../registry/contract/find-tuning.js";

/** A word → term ids table with sorted keys and ids (deterministic artifacts). */
function sortedTable(m: Map<string, Set<number>>): Record<string, number[]> {
  const t: Record<string, number[]> = Object.create(null) as Record<string, number[]>;
  for (const key of [...m.keys()].sort()) t[key] = [...m.get(key)!].sort((a, b) => a - b);
  return t;
}

const b64 = (a: Uint16Array | Uint32Array | Uint8Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString("base64");

export async function buildSearchIndex(catalog: Catalog, params: ScorerParams = DEFAULT_SCORER_PARAMS): Promise<SearchIndexData> {
  const famDesc = new Map(catalog.families.map((f) => [f.name, f.description]));
  const n = catalog.tools.length;
  const words = new Map<string, string>(); // surface word → stem, for synonym lookup
  const onWord = (w: string, s: string) => void words.set(w, s);

  // Per document and field: term counts and length.
  const docs = catalog.tools.map((tool) => {
    const texts = toolFieldTexts(tool, famDesc.get(tool.family) ?? "");
    const fields = {} as Record<FieldName, { tf: Map<string, number>; len: number }>;
    const pairTf = new Map<string, number>();
    for (const f of FIELDS) {
      const terms = encode(texts[f], onWord);
      const tf = new Map<string, number>();
      for (const t of terms) tf.set(t, (tf.get(t) ?? 0) + 1);
      fields[f] = { tf, len: terms.length };
      if (params.pairWeight > 0 && f === "desc") {
        for (const p of pairs(terms)) pairTf.set(p, (pairTf.get(p) ?? 0) + params.pairWeight * params.weight[f]);
      }
      // An example's pairs, within one example: a phrase the author wrote the way users ask ("square root").
      if ((params.examplePairWeight ?? 0) > 0 && f === "examples") {
        for (const line of texts[f].split("\n")) for (const p of pairs(encode(line))) pairTf.set(p, (pairTf.get(p) ?? 0) + params.examplePairWeight!);
      }
    }
    return { ...fields, pairTf };
  });
  const avg = {} as Record<FieldName, number>;
  for (const f of FIELDS) avg[f] = Math.max(1, docs.reduce((s, d) => s + d[f].len, 0) / Math.max(1, n));

  // Postings with BM25F saturation: tf~ = Σ_f w_f·tf_f / (1 − b_f + b_f·len_f/avg_f).
  const post = new Map<string, { doc: number; sat: number }[]>();
  docs.forEach((d, doc) => {
    const tfw = new Map<string, number>();
    for (const f of FIELDS) {
      const norm = 1 - params.b[f] + (params.b[f] * d[f].len) / avg[f];
      for (const [t, c] of d[f].tf) tfw.set(t, (tfw.get(t) ?? 0) + (params.weight[f] * c) / norm);
    }
    for (const [t, x] of d.pairTf) tfw.set(t, (tfw.get(t) ?? 0) + x);
    for (const [t, x] of tfw) {
      if (x <= 0) continue;
      const list = post.get(t) ?? [];
      list.push({ doc, sat: x / (params.k1 + x) });
      post.set(t, list);
    }
  });

  const terms = [...post.keys()].sort();
  const termId = new Map(terms.map((t, i) => [t, i]));
  const df = terms.map((t) => post.get(t)!.length);
  // The idf's counts when some tool has details: a word's tools outside their details, else (a word only details say) those.
  const withDetails = docs.some((d) => d.details.len > 0);
  const idfDf = withDetails
    ? terms.map((t, i) => {
        const main = post.get(t)!.reduce((s, p) => s + (FIELDS.some((f) => f !== "details" && docs[p.doc]![f].tf.has(t)) ? 1 : 0), 0);
        return main > 0 ? main : df[i]!;
      })
    : undefined;
  const total = df.reduce((a, b) => a + b, 0);
  const ids = n < 65536 ? new Uint16Array(total) : new Uint32Array(total);
  const imp = new Uint16Array(total);
  let k = 0;
  for (const t of terms) {
    for (const p of post.get(t)!) {
      ids[k] = p.doc;
      imp[k++] = Math.max(1, Math.round(p.sat * IMPACT_SCALE));
    }
  }

  const nameTerms = docs.map((d) => [...d.name.tf.keys()].map((t) => termId.get(t)!).sort((a, b) => a - b));

  // Build-time expansion: WordNet synonyms of indexed words that are themselves indexed, keyed by
  // the synonym's stem, so a query word absent from the catalog still reaches the tools that say it otherwise.
  // Null-prototype tables: a word "__proto__" is a key like any other, not the object's prototype.
  const expand: Record<string, number[]> = Object.create(null) as Record<string, number[]>;
  if (params.synonymWeight > 0) {
    const rel = new Map<string, Set<number>>();
    const syn = await wordnetSynonyms();
    for (const [w, s] of [...words].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
      const target = termId.get(s);
      if (target === undefined) continue;
      for (const other of syn.get(w) ?? []) {
        const os = encode(other);
        if (os.length !== 1 || os[0] === s) continue;
        const set = rel.get(os[0]!) ?? new Set<number>();
        set.add(target);
        rel.set(os[0]!, set);
      }
    }
    for (const key of [...rel.keys()].sort()) expand[key] = [...rel.get(key)!].sort((a, b) => a - b);
  }

  // Lexicon: each word of a group reaches the group's other words the catalog contains (one term
  // each). A capability pair of specific words goes to its own table at `capabilityWeight`, unless
  // the word it reaches is in more than a tenth of the tools: such a word says little about which
  // tool (the paraphrase table's rule; "directory" in 16 of devteam's 113 tools).
  const related = new Map<string, Set<number>>();
  const capability = new Map<string, Set<number>>();
  if ((params.lexiconWeight ?? 0) > 0) {
    const strong = (params.capabilityWeight ?? 0) > 0;
    const senses = await wordnetSenses();
    const one = (w: string) => {
      const e = encode(w);
      return e.length === 1 ? e[0] : undefined;
    };
    for (const p of lexiconPairs(one, senses)) {
      const target = termId.get(p.to);
      if (target === undefined) continue;
      const table = strong && p.strong && df[target]! <= CAPABILITY_MAX_DF * n ? capability : related;
      table.set(p.from, (table.get(p.from) ?? new Set<number>()).add(target));
    }
  }

  // Paraphrases: a word the catalog does not contain reaches the catalog's terms among its nearest
  // neighbours in word vectors. Words it contains keep their own matches: expanding them too cost
  // seal-tools dev 0.3 nDCG and the paraphrase dev sets 1–2 (test/eval/README.md, "Paraphrases").
  const similar: Record<string, number[]> = Object.create(null) as Record<string, number[]>;
  if ((params.paraphraseWeight ?? 0) > 0) {
    // A neighbour in many tools ("get", "show") says little about which one and costs a long posting
    // list; in a small catalog a few tools are not many.
    const maxDf = Math.max(5, (params.paraphraseMaxDf ?? 1) * n);
    for (const [key, nbs] of await neighbourTable()) {
      if (termId.has(key)) continue;
      const ids = nbs.flatMap((nb) => {
        const id = termId.get(nb);
        return id !== undefined && df[id]! <= maxDf ? [id] : [];
      });
      if (ids.length) similar[key] = ids.sort((a, b) => a - b);
    }
  }

  // FlexSearch over the Latin vocabulary, for typo and prefix tolerance at query time.
  const flexIndex = new Document<VocabRecord>(vocabIndexOptions());
  terms.forEach((t, id) => {
    if (/^[a-z][a-z0-9]{2,}$/.test(t)) flexIndex.add({ id, t, s: t });
  });
  const flex: [string, string][] = [];
  await flexIndex.export((key: string, data: string) => void flex.push([key, data]));
  flex.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));

  return {
    version: SEARCH_INDEX_VERSION,
    params,
    docs: n,
    terms,
    df,
    ...(idfDf ? { idfDf } : {}),
    postings: b64(ids),
    impacts: b64(imp),
    expand,
    related: sortedTable(related),
    ...(capability.size ? { capability: sortedTable(capability) } : {}),
    similar,
    nameTerms,
    flex,
    englishWords: await englishWordsNear(terms, expand),
    // The action table, for the action rule (lambdas/core/find/actions.ts); the same for every catalog.
    actions: indexActionTable(),
  };
}
