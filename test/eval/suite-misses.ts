import { createFinder } from "../../lambdas/core/find/index.js";
import { goldGroups } from "./harness.js";
import { loadSet, readSetQueries, readSuite } from "./suite.js";

const [name, flag] = process.argv.slice(2);
const set = readSuite().find((s) => s.name === name);
if (!set)
  throw new Error(
    `usage: suite-misses.ts SET [--all]; sets: ${readSuite()
      .map((s) => s.name)
      .join(", ")}`,
  );
const loaded = await loadSet(set);
const finder = createFinder(loaded.artifact, { alwaysLoaded: [] });
const queries = readSetQueries(set).filter((q) => q.split === "dev");
for (const q of queries) {
  const groups = goldGroups(q);
  const ranked = await finder.find({ query: q.query, limit: 3, min_score: 0, schemas: false });
  const verdict = await finder.find({ query: q.query, limit: 1, schemas: false });
  const keys = ranked.tools.map((t) => loaded.keyOf.get(t.name)!);
  const top3 = groups.length > 0 && groups.every((g) => keys.some((k) => g.includes(k)));
  const none = verdict.verdict === "none";
  const miss = groups.length ? !top3 || none : !none;
  if (!miss && flag !== "--all") continue;
  const shown = ranked.tools.map((t) => `${t.name} ${t.score}`).join(", ");
  console.log(
    `${miss ? "MISS" : "ok  "} [${q.kind}] ${q.query}\n     gold ${groups.map((g) => g.join("|")).join(" + ") || "-"}; verdict ${verdict.verdict}${verdict.tools[0] ? ` ${verdict.tools[0].score}` : ""}; top ${shown}`,
  );
}
