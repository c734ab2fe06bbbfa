// Retrieve hands the later stages only the tools they can use (those it scored, and the touched tools of
// a family the rerank may lift), not every tool it touched: answers must be those of the full list.
import { describe, expect, it } from "vitest";
import { createFinder } from "../../../../../lambdas/core/find/index.js";
import type { FindRequest } from "../../../../../lambdas/core/find/types.js";
import { Retriever } from "../../../../../lambdas/core/find/retrieve.js";
import { newWork } from "../../../../../lambdas/core/find/work.js";
import type { Artifact } from "../../../../../lambdas/core/ports.js";
import { memoryTestArtifact, testArtifactInput, testTool } from "../../../../helpers/artifact.js";
import { CATALOGS, EveryTouched } from "./work-units.js";

/** Tasks over many similar tools in a few families: where the step and family lifts move tools. */
const WORDS = "send email message contact translate text invoice pay customer report chart upload file photo calendar meeting schedule weather".split(" ");
function taskCatalog(): Promise<Artifact> {
  let seed = 11;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const word = () => WORDS[Math.floor(next() * WORDS.length)]!;
  const tools = Array.from({ length: 200 }, (_, i) => {
    const words = Array.from({ length: 2 + Math.floor(next() * 5) }, word);
    const family = `fam${i % 7}`;
    return testTool(`${family}.${words.slice(0, 2).join("_")}_${i}`, { description: `${words.join(" ")} tool number ${i}.` });
  });
  const tasks = Array.from({ length: 60 }, () =>
    Array.from({ length: 1 + Math.floor(next() * 3) }, () => Array.from({ length: 2 + Math.floor(next() * 4) }, word).join(" ")).join(", then "),
  );
  return memoryTestArtifact(testArtifactInput(tools, { always_loaded: [] })).then((a) => Object.assign(a, { tasks }));
}

const ASKS: Omit<FindRequest, "query">[] = [
  { limit: 10, min_score: 0 },
  { limit: 10 },
  { limit: 5 },
  { limit: 3, explain: true },
  { limit: 1, min_score: 0.2 },
];

/** A Retriever without the top-k threshold: every tool that can reach min_score is finished (the full ranking). */
class Unkept extends Retriever {
  override retrieve(...[q, minScore, reach, lifts]: Parameters<Retriever["retrieve"]>) {
    return super.retrieve(q, minScore, reach, lifts);
  }
}

/** Requests naming an owner without a short request's action (no penalty loosens the threshold), where the owner lift raised a tool the threshold left unfinished. */
const OWNER_REQUESTS = [
  "the authenticated user's projects",
  "the authenticated user's subscriptions",
  "all of the enterprise's projects please, every single one of them right now",
];

/** Requests whose top the scope tie swaps with a tool just behind it, about a repository's things (no owner lift's allowance) or the caller's. */
const SCOPE_TIES = [
  "What license does the octo/widgets repository use?",
  "What license does the octo/widgets repository use? Get its license.",
  "Shut down my cloud dev environment so it stops billing",
  "left my codespace fuzzy-potato-x7 running overnight, shut it down before it eats more hours",
];

async function compare(artifact: Artifact, queries: string[], retriever: typeof Retriever = EveryTouched) {
  const work = newWork();
  const ours = createFinder(artifact, { work });
  const reference = createFinder(artifact, { retriever });
  let shown = 0;
  for (const query of queries) {
    for (const ask of ASKS) {
      const a = await ours.find({ query, ...ask });
      expect(a, `${query} ${JSON.stringify(ask)}`).toEqual(await reference.find({ query, ...ask }));
      shown += a.tools.length;
    }
  }
  return { shown, work };
}

describe("the tools retrieve hands on", () => {
  it("answer every example request as the full list of touched tools does, and are far fewer", async () => {
    const { shown, work } = await compare(await CATALOGS.example.artifact(), CATALOGS.example.requests());
    expect(shown).toBeGreaterThan(1000);
    expect(work.ranked).toBeLessThan(work.touched * 0.5);
  });

  it("answer tasks whose steps and families the rerank lifts as the full list does", async () => {
    const artifact = (await taskCatalog()) as Artifact & { tasks: string[] };
    const { shown, work } = await compare(artifact, artifact.tasks);
    expect(shown).toBeGreaterThan(200);
    expect(work.rerankPasses).toBeGreaterThan(10);
    expect(work.ranked).toBeLessThan(work.touched);
  });

  it("answer the GitHub catalog's requests, those naming an owner the owner lift raises and those the scope tie swaps too, as the full ranking does", async () => {
    const { artifact, requests } = CATALOGS.github;
    const { shown, work } = await compare(await artifact(), [...requests(), ...OWNER_REQUESTS, ...SCOPE_TIES], Unkept);
    expect(shown).toBeGreaterThan(2000);
    expect(work.scored).toBeLessThan(work.touched);
  });
});
